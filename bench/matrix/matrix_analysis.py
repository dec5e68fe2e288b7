"""The matrix's numbers: every rep's ratio to the base in each cell (and
new over old, with a second build), each rep's worst cell, the counts of
cells below the flags, the tail latency while writing; and one document
from several runs' (matrix.py --from-json A B).
"""
import statistics

from matrix_grid import CEILING_REP

FLAG_LOW, FLAG_CLIFF = 1.0, 0.8
# Tail latency: the p99.9 of a Get (readwrite) and of a Seek (seekwhilewriting)
# while a writer writes, over the base's in the same cell, is flagged above this.
TAIL_WORKLOADS = {"readwrite": "Get", "seekwhilewriting": "Seek"}
TAIL_LIMIT = 10.0


def analyse(doc):
    """Ratios to the base (and new/old) per cell, each rep's worst, the counts."""
    label = doc.get("compare_label", "old")
    summary = {}
    for face in ("rep", "db_bench"):
        if face not in doc["bases"]:
            continue
        base = doc["bases"][face]["rep"]
        worst, counts = {}, {"cells": 0, "below_1": 0, "below_0.8": 0}
        worst_vs_old = {}
        for cell in (c for c in doc["cells"] if c["face"] == face):
            counts["cells"] += 1
            b = cell["reps"].get(base, {}).get("ops_sec")
            cell["base"], cell["base_ops_sec"] = base, b
            low = cliff = False
            for rep, e in cell["reps"].items():
                if e["status"] == "timeout":
                    e["ratio"] = 0.0  # slower than anything measured
                elif e.get("ops_sec") is not None and b:
                    e["ratio"] = e["ops_sec"] / b
                else:
                    e["ratio"] = None
                if rep.endswith(f"@{label}"):
                    new = cell["reps"].get(rep[:-len(label) - 1], {})
                    if new.get("ops_sec") is not None and e.get("ops_sec"):
                        new["vs_old"] = new["ops_sec"] / e["ops_sec"]
                        w = worst_vs_old.get(rep[:-len(label) - 1])
                        if w is None or new["vs_old"] < w["ratio"]:
                            worst_vs_old[rep[:-len(label) - 1]] = {"cell": cell["id"],
                                                                   "ratio": new["vs_old"]}
                if (e["ratio"] is None or rep in (base, CEILING_REP) or
                        rep.endswith(f"@{label}")):
                    continue  # the base, the bound, and the second build (its own table)
                low |= e["ratio"] < FLAG_LOW
                cliff |= e["ratio"] < FLAG_CLIFF
                w = worst.get(rep)
                if w is None or e["ratio"] < w["ratio"]:
                    worst[rep] = {"cell": cell["id"], "ratio": e["ratio"],
                                  "status": e["status"]}
            counts["below_1"] += low
            counts["below_0.8"] += cliff
        order = [r for r in doc["reps"].get(face, []) if r in worst]
        summary[face] = {"base": base, "worst": {r: worst[r] for r in order},
                         "worst_vs_old": worst_vs_old, "counts": counts,
                         "tail": analyse_tail(doc, face, base, label)}
    doc["summary"] = summary
    return doc


def analyse_tail(doc, face, base, label):
    """Each rep's p99.9 over the base's in the read-while-writing cells
    (TAIL_WORKLOADS; memrep_bench samples the readers' ops only), stored in
    the cell's entries as "p999_ratio"; returns each rep's worst."""
    worst = {}
    for cell in (c for c in doc["cells"] if c["face"] == face):
        if cell["workload"] not in TAIL_WORKLOADS:
            continue
        b = cell["reps"].get(base, {}).get("p999_ns")
        for rep, e in cell["reps"].items():
            if not b or not e.get("p999_ns") or rep == base:
                continue
            e["p999_ratio"] = e["p999_ns"] / b
            if rep.endswith(f"@{label}"):
                continue
            w = worst.get(rep)
            if w is None or e["p999_ratio"] > w["ratio"]:
                worst[rep] = {"cell": cell["id"], "ratio": e["p999_ratio"],
                              "p999_ns": e["p999_ns"], "base_p999_ns": b}
    return worst


# ---------------------------------------------------------------- joining runs

def weighted_median(pairs):
    """The median of values each counted `runs` times: [(value, runs)]."""
    xs = [v for v, n in pairs if v is not None for _ in range(max(n, 1))]
    return statistics.median(xs) if xs else None


def fold_entries(a, b):
    """One rep's entry for a cell run in two documents: the runs joined."""
    if a["status"] != "ok" or b["status"] != "ok":
        bad = a if a["status"] != "ok" else b
        return dict(bad, runs=a.get("runs", 0) + b.get("runs", 0))
    out = dict(a)
    out["runs_ops_sec"] = a["runs_ops_sec"] + b["runs_ops_sec"]
    out["ops_sec"] = statistics.median(out["runs_ops_sec"])
    out["runs"] = a["runs"] + b["runs"]
    for key, value in a.items():
        if key in ("runs", "runs_ops_sec", "ops_sec", "status", "note", "factory") or \
                not isinstance(value, (int, float)):
            continue
        out[key] = weighted_median([(value, a["runs"]), (b.get(key), b["runs"])])
    if "read_ops_sec" in a:
        out["read_ops_sec"] = out["ops_sec"]
    return out


def joined(docs):
    """One document from several runs'. Cells, commands and failures follow
    in order; a cell in more than one (the same face and id) becomes one, its
    runs joined: ops/s the median of all runs, the other figures (p99.9,
    bytes per entry, ...) the median of the runs' medians, each counted as
    often as it had runs."""
    doc = docs[0]
    for d in docs[1:]:
        if d.get("compare_label") != doc.get("compare_label"):
            raise ValueError(f"compare labels differ ({doc.get('compare_label')} and "
                             f"{d.get('compare_label')})")
        for face, base in d["bases"].items():
            if doc["bases"].setdefault(face, base)["rep"] != base["rep"]:
                raise ValueError(f"the {face} bases differ ({doc['bases'][face]['rep']} and "
                                 f"{base['rep']})")
        for face, reps in d["reps"].items():
            mine = doc["reps"].setdefault(face, [])
            mine += [r for r in reps if r not in mine]
        for key in ("commands", "failures"):
            doc[key] += d[key]
        by_id = {(c["face"], c["id"]): c for c in doc["cells"]}
        for cell in d["cells"]:
            mine = by_id.get((cell["face"], cell["id"]))
            if mine is None:
                doc["cells"].append(cell)
                by_id[(cell["face"], cell["id"])] = cell
                continue
            for rep, e in cell["reps"].items():
                have = mine["reps"].get(rep)
                mine["reps"][rep] = e if have is None else fold_entries(have, e)
            mine["failed"] = mine.get("failed", False) or cell.get("failed", False)
        doc["command"] += " ; " + d["command"]
        doc["wall_s"] = doc.get("wall_s", 0) + d.get("wall_s", 0)
        doc["load_end"] = d.get("load_end")
    # The repetitions the cells now have (the fewest, as the header says).
    runs = [e["runs"] for c in doc["cells"] for e in c["reps"].values()
            if e.get("status") == "ok"]
    if runs:
        doc["repeats"] = min(runs)
    return doc
