"""What the main job (compare.py) makes of a matrix run: workload classes,
the terminal summary and the Markdown report (its figures: compare_plots.py).

Everything here reads compare.json's document and writes nothing but the
files it is asked for, so that `compare.py --from-json` redraws a run.

A *class* groups one face's cells at one thread count by what they ask of a
memtable: a rep's figure for a class is the geometric mean of its ratios to
the base over the class's cells, so that one cell's noise weighs as much as
another's and a 10x cell does not hide a 0.5x one. The faces stay apart:
through db_bench the rest of RocksDB costs every rep the same, so its ratios
are smaller, and the ceiling runs there alone. Each cell's own ratio stays in
matrix/matrix.md.
"""
import math
import os

import report_data
from common import times
from db_bench_reps import CEILING

# workload (either face) -> class, in the order the table shows them.
CLASSES = ["write", "batch write", "point read", "seek", "scan", "read + write", "seek + write"]
CLASS_OF = {
    ("rep", "fillrandom"): "write", ("rep", "concurrentfill"): "write",
    ("rep", "overwrite"): "write", ("rep", "fillbatch"): "batch write",
    ("rep", "readrandom"): "point read", ("rep", "multiget"): "point read",
    ("rep", "seekrandom"): "seek", ("rep", "readseq"): "scan",
    ("rep", "readwrite"): "read + write", ("rep", "mix8020"): "read + write",
    ("rep", "seekwhilewriting"): "seek + write",
    ("db_bench", "fillrandom"): "write", ("db_bench", "fillrandom_batch100"): "batch write",
    ("db_bench", "readwhilewriting"): "read + write",
    ("db_bench", "readrandomwriterandom"): "read + write",
    ("db_bench", "seekrandomwhilewriting"): "seek + write",
}
BASES = {"skip_list_ndebug", "bench.SkipListNDebug"}
SUMMARY_LIMIT = 40


# ---------------------------------------------------------------- names

def display_names(listed):
    """{name either face uses: the one name the report uses}. memrep's reps
    by their RocksDB id (memrep.Trie), the rest by memrep_bench's name."""
    names = {"bench.SkipListNDebug": "skip_list_ndebug", CEILING: "ceiling"}
    for r in listed:
        shown = r["canonical_name"] if r["memrep"] else r["name"]
        names[r["name"]] = names[r["canonical_name"]] = shown
    return names


def short(rep):
    return rep[len("memrep."):] if rep.startswith("memrep.") else rep


# ---------------------------------------------------------------- classes

def geomean(xs):
    xs = [max(x, 1e-3) for x in xs if x is not None]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def contenders(doc):
    """The reps the report compares, in order: memrep's, then the peers and
    Debian's skip list; the base and the ceiling apart."""
    order, names = [], doc["names"]
    for face in ("rep", "db_bench"):
        for r in doc["matrix"]["reps"].get(face, []):
            n = names.get(r, r)
            if n not in order and n not in ("skip_list_ndebug", "ceiling") and "@" not in r:
                order.append(n)
    if doc["matrix"]["bases"].get("rep", {}).get("rep") == "skip_list":
        order = [r for r in order if r != "skip_list"]  # the base itself
    mem = [r for r in order if r.startswith("memrep.")]
    return mem + [r for r in order if r not in mem]


def thread_tiers(doc):
    counts = sorted({c["threads"] for c in doc["matrix"]["cells"]})
    return counts


FACES = ["rep", "db_bench"]


def class_table(doc):
    """{(face, class, threads): {"cells": n, "reps": {rep: geometric mean of its ratios}}}."""
    names = doc["names"]
    table = {}
    for c in doc["matrix"]["cells"]:
        cls = CLASS_OF.get((c["face"], c["workload"]))
        if cls is None:
            continue
        row = table.setdefault((c["face"], cls, c["threads"]), {"cells": 0, "ratios": {}})
        row["cells"] += 1
        for r, e in c["reps"].items():
            if "@" in r:
                continue
            ratio = 0.0 if e.get("status") == "timeout" else e.get("ratio")
            if ratio is not None:
                row["ratios"].setdefault(names.get(r, r), []).append(ratio)
    out = {}
    for key in sorted(table, key=lambda k: (FACES.index(k[0]), CLASSES.index(k[1]), k[2])):
        row = table[key]
        out[key] = {"cells": row["cells"],
                    "reps": {r: geomean(v) for r, v in row["ratios"].items()}}
    return out


def best_of(row, reps):
    """The fixed rep with the best figure: not Auto, whose cells in the
    matrix measure its start rep (one memtable holds the whole run)."""
    got = [(row["reps"][r], r) for r in reps
           if row["reps"].get(r) is not None and r != "memrep.Auto"]
    return max(got) if got else (None, None)


def losses(doc):
    """{rep: (cells below 1.0x sorted worst first, cells judged)}."""
    names, out = doc["names"], {}
    for c in doc["matrix"]["cells"]:
        for r, e in c["reps"].items():
            n = names.get(r, r)
            if "@" in r or n in ("ceiling", "skip_list_ndebug") or r == c.get("base"):
                continue
            ratio = 0.0 if e.get("status") == "timeout" else e.get("ratio")
            if ratio is None:
                continue
            below, judged = out.setdefault(n, ([], [0]))
            judged[0] += 1
            if ratio < 1.0:
                below.append((ratio, f"{face_word(c['face'])} {c['workload']} t{c['threads']}"))
    return {r: (sorted(b), j[0]) for r, (b, j) in out.items()}


def face_word(face):
    return "db_bench" if face == "db_bench" else "rep"


# ---------------------------------------------------------------- Auto

def auto_phases(doc):
    """[(phase, 'Trie -> Vector', settled_after)] of memrep_phased's Auto run."""
    ph = doc.get("phased") or {}
    for run in ph.get("runs", []):
        if run.get("auto"):
            out = []
            for phase, a in run["auto"].items():
                seq = " -> ".join(f"{short(s['rep'])}" + (f" x{s['memtables']}"
                                                           if s["memtables"] > 1 else "")
                                  for s in a["sequence"])
                out.append((phase, seq, a.get("settled_after")))
            return out
    return []


def phased_totals(doc):
    """{rep: total seconds} of memrep_phased's run: the medians' totals (of
    one round's runs where the document has no medians)."""
    ph = doc.get("phased") or {}
    return {m["rep"]: m.get("total_s") for m in ph.get("medians", [])
            if m.get("total_s") is not None} or {
        r["rep"]: r["total_s"] for r in ph.get("runs", []) if r.get("total_s")}


def auto_lines(doc):
    phases = auto_phases(doc)
    if not phases:
        why = (doc.get("phased") or {}).get("error") or "memrep_phased did not run"
        return [f"Auto's choices: none ({why})."]
    lines = [f"What Auto chose (memrep_phased: one database, 4 phases, "
             f"{doc['phased_flags']['write_buffer_size'] >> 20} MiB memtables; rep per "
             "memtable in order):"]
    for phase, seq, settled in phases:
        lines.append(f"  {phase:<10} {seq}  (" + (
            "never settled" if settled is None else
            f"settled after {settled} switch{'' if settled == 1 else 'es'}") + ")")
    totals = phased_totals(doc)
    auto = totals.get("memrep.Auto")
    fixed = {r: t for r, t in totals.items() if r != "memrep.Auto"}
    if auto and fixed:
        best = min(fixed, key=fixed.get)
        rounds = doc.get("phased_flags", {}).get("rounds", 1)
        line = (f"  all phases{f' (median of {rounds} rounds)' if rounds > 1 else ''}: "
                f"Auto {auto:.2f} s, best fixed rep {short(best)} {fixed[best]:.2f} s")
        if "skip_list" in fixed:
            line += f", skip_list {fixed['skip_list']:.2f} s"
        lines.append(line + " (lower is faster)")
    return lines


# ---------------------------------------------------------------- summary

def base_short(doc):
    bases = {doc["names"].get(b["rep"], b["rep"]) for b in doc["matrix"]["bases"].values()}
    if bases == {"skip_list"}:
        return "Debian's skip_list, built with assertions: a slow base (scripts/peers.sh)"
    return "/".join(sorted(bases))


def base_words(doc):
    bases = {f: b["rep"] for f, b in doc["matrix"]["bases"].items()}
    shown = {doc["names"].get(b, b) for b in bases.values()}
    if shown == {"skip_list_ndebug"}:
        return "skip_list_ndebug (RocksDB's skip list without assertions, built by peers.sh)"
    if shown == {"skip_list"}:
        return ("skip_list (Debian's librocksdb, built with assertions: its ratios flatter "
                "every rep; bash scripts/peers.sh builds the no-assertion base)")
    return "; ".join(f"{f}: {doc['names'].get(b, b)}" for f, b in bases.items())


def summary(doc, report_path):
    m = doc["matrix"]
    reps = contenders(doc)
    show = [r for r in reps if r.startswith("memrep.") or r == "skip_list"]
    show += [r for r in reps if r not in show]
    show = show[:8]
    tiers = thread_tiers(doc)
    keep = {tiers[0], tiers[-1]} if tiers else set()
    table = class_table(doc)
    ceiling = any(r.get("reps", {}).get("ceiling") for r in table.values())
    head = [f"memrep compare: {m['machine']['cores']} cores, commit "
            f"{str(m.get('git_commit'))[:12]}, load {m.get('load_start')} -> "
            f"{m.get('load_end')}, {doc['wall_s'] / 60:.1f} min",
            f"Ops/s over the base's ({base_short(doc)}), geometric mean per class",
            "(rep: memrep_bench, db: db_bench; best: of the fixed reps, as Auto's cells measure "
            "its start rep):"]
    width = 11
    title = f"{'face class threads':<23}" + "".join(f"{short(r)[:width - 1]:>{width}}"
                                                     for r in show)
    title += f"{'ceiling':>{width}}" if ceiling else ""
    lines = [title + "  best"]
    for (face, cls, t), row in table.items():
        if t not in keep:
            continue
        line = f"{('rep ' if face == 'rep' else 'db  ') + cls + f' t{t}':<23}" + "".join(
            f"{times(row['reps'].get(r)):>{width}}" for r in show)
        if ceiling:
            line += f"{times(row['reps'].get('ceiling')):>{width}}"
        ratio, best = best_of(row, reps)
        line += f"  {short(best) if best else '-'}" + ("" if ratio is None or ratio >= 1
                                                      else " (none beats the base)")
        lines.append(line)
    lost = ["Where each rep loses (cells below 1.0x; within ~20% of 1.0x is noise on a "
            "shared machine):"]
    lost_by_rep = losses(doc)
    for r in (r for r in show if r in lost_by_rep):
        below, judged = lost_by_rep[r]
        if not below:
            lost.append(f"  {short(r):<16} none of {judged} cells")
        else:
            worst = ", ".join(f"{w} {times(x)}" for x, w in below[:2])
            lost.append(f"  {short(r):<16} {len(below)} of {judged} cells; worst {worst}")
    tail = []
    failures = m.get("failures", []) + ([doc["phased"]["error"]] if (doc.get("phased") or {})
                                        .get("error") else [])
    if failures:
        tail.append(f"{len(failures)} benchmark(s) failed: see the report's Failures section")
    tail.append(f"Report: {report_path} (figures in img/, every cell in matrix/matrix.md)")
    # Within the limit whatever the machine: the table's rows go last.
    room = SUMMARY_LIMIT - len(head) - len(lost) - len(auto_lines(doc)) - len(tail)
    if len(lines) > room:
        lines = lines[:max(1, room - 1)] + [f"  ... {len(lines) - max(1, room - 1)} more rows "
                                            "in the report"]
    return head + lines + lost + auto_lines(doc) + tail


# ---------------------------------------------------------------- Markdown

def traits_rows(doc):
    rows = []
    for r in doc["listed"]:
        shown = doc["names"][r["name"]]
        if shown not in contenders(doc) and shown != "skip_list_ndebug":
            continue
        t = r["traits"]
        dup = {"all": "every duplicate", "same_thread": "of a thread's own rows",
               "none": "none"}.get(t.get("duplicates"), t.get("duplicates", "?"))
        cmp_ = {"any": "any", "bytewise": "bytewise and reverse",
                "byte_equality": "bytewise and reverse (equality by bytes)"}.get(
            t.get("comparators"), t.get("comparators", "?"))
        cap = t.get("max_memtable_bytes") or 0
        rows.append(f"| {shown} | {'yes' if t.get('concurrent_insert') else 'no'} | {cmp_} | "
                    f"{dup} | {t.get('point_read_while_mutable', '?')} | "
                    f"{f'{cap >> 30} GiB' if cap else 'no limit'} |")
    return rows


def cost_rows(doc):
    """Memory and creation/destruction per rep, from the rep-level fillrandom
    cell at one thread; db_bench's peak RSS from its fillrandom cell."""
    names = doc["names"]
    rep_cell = next((c for c in doc["matrix"]["cells"] if c["face"] == "rep"
                     and c["workload"] == "fillrandom" and c["threads"] == 1), None)
    db_cell = next((c for c in doc["matrix"]["cells"] if c["face"] == "db_bench"
                    and c["workload"] == "fillrandom" and c["threads"] == 1), None)
    by_rep = {}
    for cell, keys in ((rep_cell, ("bytes_per_entry", "create_us", "destroy_us")),
                       (db_cell, ("rss_mb",))):
        for r, e in (cell or {}).get("reps", {}).items():
            if "@" not in r:
                by_rep.setdefault(names.get(r, r), {}).update({k: e.get(k) for k in keys})
    rows = []
    for r, v in by_rep.items():
        def num(k, fmt):
            return "-" if v.get(k) is None else format(v[k], fmt)
        rows.append(f"| {r} | {num('bytes_per_entry', '.1f')} | {num('create_us', ',.0f')} | "
                    f"{num('destroy_us', ',.0f')} | {num('rss_mb', '.0f')} |")
    entries = report_data.count(rep_cell["entries"]) if rep_cell else "?"
    db_num = report_data.count(db_cell["entries"]) if db_cell else "?"
    return rows, entries, db_num


def render(doc, figures, matrix_md_rel):
    m = doc["matrix"]
    mach = m["machine"]
    reps = contenders(doc)
    table = class_table(doc)
    out = ["# memrep: which rep for which workload", "",
           f"Written by `bash scripts/compare.sh` on {m.get('date')}: commit "
           f"`{m.get('git_commit')}`, {mach['cores']} cores ({mach['cpu']}), load average "
           f"{m.get('load_start')} at the start and {m.get('load_end')} at the end, "
           f"{doc['wall_s'] / 60:.1f} min. Only ratios within one run mean anything; on a "
           "shared machine a cell within about 20% of 1.0x (30% through db_bench) is not a "
           "finding on its own (docs/results/README.md).", "",
           f"Base: {base_words(doc)}.", ""]
    if "headline" in figures:
        out += [f"![reps x workload classes]({figures['headline']})", ""]
    else:
        out += ["(No figures: this python has no matplotlib; Debian's python3-matplotlib.)", ""]
    out += ["## Choosing a rep", "",
            "Each entry: the rep's ops/s over the base's, the geometric mean over the cells of "
            "the class at that thread count, the rep level (memrep_bench) and db_bench apart "
            "(through db_bench the rest of RocksDB costs every rep the same); `ceiling` is a "
            "rep that stores nothing (db_bench write cells only), what RocksDB itself allows; "
            "best: of the fixed reps (in the matrix one memtable holds the whole run, so "
            "`memrep.Auto`'s cells measure its start rep). Classes: write "
            "(fillrandom, concurrentfill, overwrite; db_bench fillrandom), batch write "
            "(fillbatch; db_bench fillrandom --batch_size=100), point read (readrandom, "
            "multiget), seek (seekrandom), scan (readseq), read + write (readwrite, mix8020; "
            "db_bench readwhilewriting, readrandomwriterandom), seek + write "
            "(seekwhilewriting; db_bench seekrandomwhilewriting).", ""]
    cols = reps + (["ceiling"] if any(r["reps"].get("ceiling") for r in table.values()) else [])
    out.append("| face | class | threads | cells | " + " | ".join(cols) + " | best |")
    out.append("|---|---|---|---|" + "---|" * len(cols) + "---|")
    for (face, cls, t), row in table.items():
        ratio, best = best_of(row, reps)
        out.append(f"| {face_word(face)} | {cls} | {t} | {row['cells']} | " + " | ".join(
            times(row["reps"].get(r)) for r in cols) + f" | {best or '-'} |")
    out += ["", "**Where each rep loses** (every cell below 1.0x, worst first):", ""]
    for r, (below, judged) in losses(doc).items():
        if below:
            out.append(f"- {r}: {len(below)} of {judged} cells: " + ", ".join(
                f"{w} {times(x)}" for x, w in below[:6]) + (", ..." if len(below) > 6
                                                                 else ""))
        else:
            out.append(f"- {r}: none of {judged} cells")
    out += ["", "**What Auto chose.** In the matrix every memtable holds the whole run, so "
            "`memrep.Auto` stays on its start rep there: its cells measure that rep behind "
            "Auto's counters. Where it can choose, in `memrep_phased` (one database through "
            "four workload phases, small memtables so that each phase switches several "
            "times; bench/README.md, \"The phased benchmark\"), it did this:", "", "```"]
    out += auto_lines(doc)
    out += ["```", "", f"Command: `{doc.get('phased_command', '')}`", ""]
    rows, entries, db_num = cost_rows(doc)
    out += ["**Memory and lifetime.** Bytes per entry, creation and destruction from the rep "
            f"level's fillrandom at {entries} entries, one thread (destruction frees the "
            f"whole memtable); peak RSS of db_bench's fillrandom at {db_num} keys:", "",
            "| rep | bytes per entry | create (us) | destroy (us) | db_bench peak RSS (MB) |",
            "|---|---|---|---|---|"] + rows
    out += ["", "**Traits** (from the registry, `memrep_bench --list_reps`): concurrent "
            "writes (RocksDB's `allow_concurrent_memtable_write`), the comparators served, "
            "the duplicates (same key and sequence) it detects, and a point read's cost while "
            "the memtable is written:", "",
            "| rep | concurrent writes | comparators | duplicates detected | point read | "
            "memtable limit |", "|---|---|---|---|---|---|"] + traits_rows(doc)
    out += ["", "## Every cell", "",
            f"Each cell's ratios, ops/s and worst cells: [{matrix_md_rel}]({matrix_md_rel}) "
            "(the matrix's quick mode, bench/README.md \"Matrix\").", ""]
    if os.path.exists(os.path.join(doc["out"], "matrix", "matrix.png")):
        out += ["![every cell](matrix/matrix.png)", ""]
    out += ["## Thread scaling", ""]
    if "scaling" in figures:
        out += [f"![thread scaling]({figures['scaling']})", ""]
    else:
        out += [f"Not drawn: this machine has {mach['cores']} cores, and the curves need "
                "three thread counts (4 cores or more).", ""]
    peers = [r for r in reps if r not in ("skip_list",) and not r.startswith("memrep.")]
    out += ["## Peers", ""]
    if base_words(doc).startswith("skip_list_ndebug"):
        out.append("The base is RocksDB's own skip list compiled without assertions from the "
                   "installed librocksdb's source (`bash scripts/peers.sh`).")
    else:
        out.append("The no-assertion skip list is not built (`bash scripts/peers.sh` builds it "
                   "into build/peers, and the next run takes it as the base).")
    out.append(("Other projects' memtables in this run: " + ", ".join(peers) + ".") if peers
               else "No other project's memtable is built: `bash scripts/peers.sh "
               "--topling-zip DIR --columnar-memtable DIR` adds ToplingDB's CSPP trie and "
               "the columnar seed (bench/README.md, \"Peers\").")
    out += ["", "## Commands", "", f"- matrix: `{m.get('command')}`",
            f"- Auto's phases: `{doc.get('phased_command', '')}`",
            "- raw data: compare.json (this run), matrix/matrix.json (every cell, every run)", ""]
    failures = m.get("failures", []) + ([doc["phased"]["error"]] if (doc.get("phased") or {})
                                        .get("error") else [])
    if failures:
        out += ["## Failures", ""] + [f"- ```{f}```".replace("\n", " ") for f in failures]
    return "\n".join(out) + "\n"
