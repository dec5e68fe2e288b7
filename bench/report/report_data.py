"""The numbers of a benchmarks.json, as report_render and report_plots use them.

Every function here takes the document that report.py writes and
tolerates missing parts: a failed run has no data and simply contributes no
numbers. Nothing here reads files or runs anything.
"""
from db_bench_reps import CEILING  # db_bench_compare.py --ceiling: the rep that stores nothing

BASELINE = "skip_list"
CANDIDATE = "sorted_hash"
DB_BASELINE = "skip_list"
DB_CANDIDATE = "memrep.SortedHash"
REP_ORDER = ["skip_list", "vector", "hash_skiplist", "hash_linkedlist", "sorted_hash"]
WORKLOAD_ORDER = ["fillrandom", "fillseq", "overwrite", "concurrentfill", "readrandom",
                  "readseq", "seekrandom", "readwrite", "seekwhilewriting"]

# Issue #3: sorted_hash over skip_list at 10M entries, item sizes 0 and 100.
TARGETS = [
    ("fillrandom", "write", 8.0),
    ("readrandom", "read", 10.0),
    ("seekrandom", "seek", 1.15),
    ("readwrite", "read while writing", 6.0),
]
TARGET_NUM = 10_000_000
NOT_AT_TARGET_SIZE = "not at 10M"
TARGET_ITEM_SIZES = (0, 100)

# The Nimbus scenario (memrep_nimbus_import): its table's columns, in its
# order, as (JSON name, heading, decimals).
NIMBUS_COLUMNS = [
    ("import_s", "import s", 2),
    ("import_flush_s", "import+flush s", 2),
    ("persist_p50_ms", "persist p50 ms", 2),
    ("persist_p99_ms", "p99 ms", 2),
    ("persist_max_ms", "max ms", 2),
    ("flushes", "flushes", 0),
    ("flush_s", "flush s (sum)", 2),
    ("stall_s", "stall s", 2),
    ("recent_reads_per_s", "recent reads/s", 0),
    ("first_read_ms", "first read ms", 3),
]
# Figures of the read phases; the others are import figures. In --full they
# come from different invocations (see report.nimbus_plan).
NIMBUS_READ_FIGURES = ("recent_reads_per_s", "first_read_ms")
NIMBUS_BASELINE = "skip_list"
NIMBUS_CANDIDATE = "memrep.Vector"
NIMBUS_RECORDS = 5_000_000  # the program's default --records: the full scenario
# The Nimbus targets: memrep.Vector's median over a RocksDB rep's, as
# (figure, what, base rep, target, higher_is_better): at most 0.6x the skip
# list's import time and no more than RocksDB's vector's, persists no slower
# at p99 and max, recent reads at least as fast.
NIMBUS_TARGETS = [
    ("import_s", "import time", NIMBUS_BASELINE, 0.6, False),
    ("import_s", "import time", "vector", 1.0, False),
    ("persist_p99_ms", "persist p99", NIMBUS_BASELINE, 1.0, False),
    ("persist_max_ms", "persist max", NIMBUS_BASELINE, 1.0, False),
    ("recent_reads_per_s", "recent reads/s", NIMBUS_BASELINE, 1.0, True),
]


def ok_runs(doc, part=None):
    return [r for r in doc.get("rep_runs", [])
            if r.get("status") == "ok" and r.get("data") and (part is None or r.get("part") == part)]


class RepSet:
    """Every workload measured at one (entries, item size) in one part: the
    union of the memrep_bench runs of that size (readseq runs on its own)."""

    def __init__(self, num, item_size):
        self.num, self.item_size = num, item_size
        self.runs = []
        self.entries = {}  # (workload, rep) -> summary entry of memrep_bench's JSON

    def add(self, run):
        self.runs.append(run)
        for e in run["data"].get("summary", []):
            self.entries[(e.get("workload"), e.get("rep"))] = e

    @property
    def reps(self):
        seen = {rep for (_, rep) in self.entries}
        return [r for r in REP_ORDER if r in seen] + sorted(seen - set(REP_ORDER))

    @property
    def workloads(self):
        seen = {w for (w, _) in self.entries}
        return [w for w in WORKLOAD_ORDER if w in seen] + sorted(seen - set(WORKLOAD_ORDER))

    @property
    def repeats(self):
        return sorted({r.get("repeats") for r in self.runs})

    def entry(self, workload, rep):
        """The summary entry of a measured (not skipped) run, or None."""
        e = self.entries.get((workload, rep))
        return e if e and e.get("runs", 0) > 0 and e.get("ops_per_sec", 0) > 0 else None

    def skipped_note(self, workload, rep):
        e = self.entries.get((workload, rep))
        return e.get("note", "") if e and e.get("runs", 0) == 0 else ""

    def ops(self, workload, rep):
        e = self.entry(workload, rep)
        return e["ops_per_sec"] if e else None

    def ratio(self, workload, rep, base=BASELINE):
        """rep's median ops/s over the baseline's, from the same memrep_bench run."""
        x, b = self.ops(workload, rep), self.ops(workload, base)
        return x / b if x is not None and b else None

    def label(self):
        return f"{count(self.num)} entries, item size {self.item_size}"


def rep_sets(doc, part="rep"):
    """RepSets of a part ('rep', 'scaling' or None for every part), biggest first."""
    sets = {}
    for run in ok_runs(doc, part):
        key = (run["num"], run["item_size"])
        sets.setdefault(key, RepSet(*key)).add(run)
    return sorted(sets.values(), key=lambda s: (-s.num, -s.item_size))


def is_met(ratio, target, higher_is_better=True):
    """Whether a ratio meets its target: at least it, or at most it."""
    return ratio >= target if higher_is_better else ratio <= target


def verdict(ratio, target, higher_is_better=True):
    """'met' or 'missed': the verdict of every target row that has a ratio."""
    return "met" if is_met(ratio, target, higher_is_better) else "missed"


def target_rows(doc):
    """One row per (target, item size): measured at the biggest rep-level size
    where both reps have the workload. verdict: met or missed at TARGET_NUM
    entries; "not at <TARGET_NUM>" for a row measured at another size (its
    "indication" says met or missed there, which decides nothing: a short
    run's ratios are not the 10M ones); no data."""
    sets = rep_sets(doc, "rep")
    rows = []
    for item in TARGET_ITEM_SIZES:
        for workload, what, target in TARGETS:
            row = {"workload": workload, "what": what, "item_size": item, "target": target,
                   "num": None, "base_ops": None, "ops": None, "ratio": None,
                   "verdict": "no data", "indication": None}
            for s in sets:  # biggest first
                if s.item_size == item and s.ratio(workload, CANDIDATE) is not None:
                    r = s.ratio(workload, CANDIDATE)
                    row.update(num=s.num, base_ops=s.ops(workload, BASELINE),
                               ops=s.ops(workload, CANDIDATE), ratio=r)
                    if s.num == TARGET_NUM:
                        row["verdict"] = verdict(r, target)
                    else:
                        row["verdict"] = NOT_AT_TARGET_SIZE
                        row["indication"] = verdict(r, target)
                    break
            rows.append(row)
    return rows


def scaling_series(doc, workload, item_size=100):
    """{rep: [(entries, ops/s, repeats)]} over every part's runs, by entries."""
    series = {}
    for s in rep_sets(doc, None):
        if s.item_size != item_size:
            continue
        for rep in s.reps:
            ops = s.ops(workload, rep)
            if ops is not None:
                series.setdefault(rep, {})[s.num] = (s.num, ops, s.entry(workload, rep)["runs"])
    # The same size in two parts (e.g. 1M in 'rep' and 'scaling'): the later wins.
    return {rep: [pts[n] for n in sorted(pts)] for rep, pts in series.items()
            if rep in (BASELINE, CANDIDATE) or len(pts) > 1}


def db_summary(doc):
    """(config, summary, workloads, reps) of the db_bench part, or None."""
    db = doc.get("db_bench") or {}
    data = db.get("data") if db.get("status") == "ok" else None
    if not data or not data.get("summary"):
        return None
    config = data.get("config", {})
    summary = data["summary"]
    workloads = [w for w in config.get("workloads", summary.keys()) if w in summary]
    reps = config.get("reps") or sorted({r for w in summary.values() for r in w})
    # The ceiling's word names its plugin's path: show it by its name alone.
    ceiling = [r for r in reps if r.split("@")[0] == CEILING]
    if ceiling:
        summary = {w: {(CEILING if r == ceiling[0] else r): v for r, v in m.items()}
                   for w, m in summary.items()}
        reps = [CEILING if r == ceiling[0] else r for r in reps]
    return config, summary, workloads, reps


def db_ceiling_share(summary, workload, rep):
    """A rep's median ops/s over the ceiling's (db_bench_compare.py --ceiling), or None."""
    return db_ratio(summary, workload, rep, CEILING)


def db_ratio(summary, workload, rep, base, key="median_ops_sec"):
    try:
        x, b = summary[workload][rep][key], summary[workload][base][key]
    except (KeyError, TypeError):
        return None
    return x / b if b else None


def nimbus_runs(doc):
    """The memrep_nimbus_import invocations that ran and left their JSON."""
    return [r for r in doc.get("nimbus_runs", [])
            if r.get("status") == "ok" and (r.get("data") or {}).get("medians")]


def nimbus_uses(run):
    """The kinds of figure ('import', 'reads') an invocation is read for."""
    return run.get("uses") or ["import", "reads"]


def number_or_none(x):
    """x if it is a number; None for null, NaN or anything else."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and x == x else None


def nimbus_figure(run, rep, figure):
    """rep's median of figure in one invocation; None if absent (a rep not
    run, or null: reads/s without reads)."""
    for m in (run.get("data") or {}).get("medians", []):
        if m.get("rep") == rep:
            return number_or_none(m.get(figure))
    return None


def nimbus_target_rows(doc):
    """One row per Nimbus target: memrep.Vector's median over the base rep's,
    from the first invocation read for that figure that has both. verdict:
    met, missed or not measured."""
    runs = nimbus_runs(doc)
    rows = []
    for figure, what, base, target, higher in NIMBUS_TARGETS:
        kind = "reads" if figure in NIMBUS_READ_FIGURES else "import"
        row = {"figure": figure, "what": what, "base": base, "target": target,
               "higher_is_better": higher, "run": None, "records": None,
               "base_value": None, "value": None, "ratio": None,
               "verdict": "not measured"}
        for run in runs:
            if kind not in nimbus_uses(run):
                continue
            x = nimbus_figure(run, NIMBUS_CANDIDATE, figure)
            b = nimbus_figure(run, base, figure)
            if x is not None and b:
                r = x / b
                row.update(run=run.get("name"), records=run["data"].get("params", {})
                           .get("records"), base_value=b, value=x, ratio=r,
                           verdict=verdict(r, target, higher))
                break
        rows.append(row)
    return rows


# ---------------------------------------------------------------- formatting

def count(n):
    """10000000 -> '10M', 300000 -> '300K', 2000 -> '2K', 1500 -> '1500'."""
    for div, suffix in ((1_000_000, "M"), (1_000, "K")):
        if n >= div and n % div == 0:
            return f"{n // div}{suffix}"
    return f"{n:,}" if n >= 10_000 else str(n)


def ops_text(x):
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}K"
    return f"{x:.0f}"


def percent_text(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def ratio_text(r, target=None, higher_is_better=True):
    """'7.08x'; more digits when two decimals would hide a miss (7.999 vs 8,
    or 0.6004 vs at most 0.6)."""
    if r is None:
        return "-"
    text = f"{r:.2f}x"
    if target is not None and (is_met(r, target, higher_is_better) !=
                               is_met(round(r, 2), target, higher_is_better)):
        text = f"{r:.4f}x"
    return text


def figure_text(x, decimals):
    """A Nimbus figure as memrep_nimbus_import prints it, with thousands
    separators; '-' when absent."""
    return "-" if x is None else f"{x:,.{decimals}f}"
