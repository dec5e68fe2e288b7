"""The matrix's grid: the workloads of each face, the modes' sizes, the
thread counts a workload runs at, and a cell (one face, workload, key/value
shape, entries, threads and key distribution) with its id; also the
checkout's root and the progress log every part of the matrix writes to.
It puts bench/report on the import path, for the matrix's other modules.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "report"))
import db_bench_reps  # noqa: E402  (db_bench_compare.py's reps)

# memrep_bench's workloads, in the order the matrix shows them.
REP_WORKLOADS = ["fillrandom", "concurrentfill", "fillbatch", "overwrite", "readrandom",
                 "multiget", "seekrandom", "readseq", "readwrite", "seekwhilewriting",
                 "mix8020"]
SINGLE_WRITER = {"fillrandom", "fillbatch", "overwrite"}  # one thread in memrep_bench
AT_LEAST_TWO = {"concurrentfill", "readwrite", "seekwhilewriting"}  # max(2, N) threads
MIXED = {"readwrite", "seekwhilewriting", "mix8020"}
# Workloads whose keys --key_distribution chooses (reads, seeks, overwrite, mixes).
CHOOSES_KEYS = {"overwrite", "readrandom", "multiget", "seekrandom", "readwrite",
                "seekwhilewriting", "mix8020"}

# db_bench cells: name -> (db_bench_compare workload, extra db_bench flags).
DB_WORKLOADS = {
    "fillrandom": ("fillrandom", []),
    "fillrandom_batch100": ("fillrandom", ["--batch_size=100"]),
    "readwhilewriting": ("readwhilewriting", []),
    "seekrandomwhilewriting": ("seekrandomwhilewriting", []),
    "readrandomwriterandom": ("readrandomwriterandom", []),
}
NDEBUG_PLUGIN_REP = "bench.SkipListNDebug"
# The rep that stores nothing (bench/ceiling/): what RocksDB itself allows.
# Its reads read an empty memtable, so it runs in the write-only cells alone
# and is nobody's worst cell: a bound, not a contender.
CEILING_REP = db_bench_reps.CEILING

MODES = {
    # 16-byte keys and 100-byte values, uniform keys, one repetition: enough
    # to show the read-while-writing cliffs in minutes.
    "quick": {"shapes": [(16, 100)], "entries": [500000], "distributions": ["uniform"],
              "repeats": 1, "db_num": 200000},
    "full": {"shapes": [(16, 100), (8, 0)], "entries": [1000000, 4000000],
             "distributions": ["uniform", "zipfian"], "repeats": 3, "db_num": 1000000},
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def rep_threads(a, workload):
    """The thread counts a rep-level workload runs at."""
    if workload in SINGLE_WRITER:
        return [1]
    if a.threads:
        counts = set(a.threads)
    elif a.mode == "quick":
        counts = {2, a.cores}
    else:
        counts = {2, 4, 8} | ({a.cores} if a.cores > 8 else set())
        if workload in MIXED:
            counts.add(2 * a.cores)
    if workload in AT_LEAST_TWO:
        counts = {max(2, t) for t in counts}
    return sorted(counts)


def fmt_count(n):
    if n >= 1000000 and n % 100000 == 0:
        return f"{n / 1000000:g}M"
    if n >= 1000 and n % 100 == 0:
        return f"{n / 1000:g}K"
    return str(n)


def cell_id(c):
    dist = "" if c["distribution"] == "uniform" else f" {c['distribution']}"
    return (f"{c['workload']} {c['key_size']}/{c['value_size']} {fmt_count(c['entries'])} "
            f"t{c['threads']}{dist}")


def new_cell(face, workload, key_size, value_size, entries, threads, distribution):
    c = {"face": face, "workload": workload, "key_size": key_size, "value_size": value_size,
         "entries": entries, "threads": threads, "distribution": distribution}
    c["id"] = cell_id(c)
    c["reps"] = {}
    return c
