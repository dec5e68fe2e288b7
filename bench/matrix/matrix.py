#!/usr/bin/env python3
"""Every rep on every workload at several thread counts, side by side.

Runs the existing benchmarks, memrep_bench at the rep level (the "rep" face)
and Debian's db_bench with memrep's RocksDB plugin preloaded (the "db_bench"
face, through bench/report/db_bench_compare.py), over a grid of cells, and
gives every rep's median ops/s in each cell as a ratio to a base rep, then
each rep's worst cell. A cell is one (face, workload, key/value shape,
entries, threads, key distribution) at which every rep runs.

Bases: at the rep level skip_list_ndebug (RocksDB's skip list compiled
without assertions, a peer of build/peers) when the memrep_bench binary has
it, else skip_list; through db_bench the no-assertion skip-list plugin
(bench.SkipListNDebug, build/peers/bench/libmemrep_skip_list_ndebug.so) when
it is built, else Debian's skip_list. skip_list is always shown. With
--ceiling, bench.Ceiling (a rep that stores nothing) joins the db_bench
write-only cells as the bound of what RocksDB allows; it is no rep's worst
cell. scripts/compare.sh, the main job, runs the quick mode this way.

Writes to --out (default build/matrix): matrix.json (every cell, every rep's
median and runs, the commands, the machine, load averages, git commit, wall
time), matrix.md (a table per face, each rep's worst cell) and matrix.png
(the heat map; needs matplotlib). Prints a short summary on stdout and
progress on stderr.

    python3 bench/matrix/matrix.py --quick                 # about 2 minutes on 2 cores
    python3 bench/matrix/matrix.py                         # the full matrix (about 11 hours)
    python3 bench/matrix/matrix.py --from-json build/matrix/matrix.json --out /tmp/m
    python3 bench/matrix/matrix.py --from-json a/matrix.json b/matrix.json --out /tmp/m
    python3 bench/matrix/matrix.py --quick --compare-bench OLD/memrep_bench \\
        --compare-plugin OLD/libmemrep_rocksdb.so          # two builds: rep@old beside rep

Exit status: 0 the runs completed (a cliff is a finding, not a failure),
1 a benchmark failed (memrep_bench's own check, exit 1; a db_bench run that
failed; a memrep_bench run past --timeout), 2 bad flags.
"""
import argparse
import contextlib
import io
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "report"))
import common  # noqa: E402  (machine facts and ratios, as the report gives them)
import db_bench_compare as dbc  # noqa: E402  (the db_bench runs, reused)
import report_data  # noqa: E402  (the report's number formats)

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
ROCKSDB_OWN = {"skip_list", "vector", "hash_skiplist", "hash_linkedlist"}

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
CEILING_REP = dbc.CEILING

MODES = {
    # 16-byte keys and 100-byte values, uniform keys, one repetition: enough
    # to show the read-while-writing cliffs in minutes.
    "quick": {"shapes": [(16, 100)], "entries": [500000], "distributions": ["uniform"],
              "repeats": 1, "db_num": 200000},
    "full": {"shapes": [(16, 100), (8, 0)], "entries": [1000000, 4000000],
             "distributions": ["uniform", "zipfian"], "repeats": 3, "db_num": 1000000},
}

FLAG_LOW, FLAG_CLIFF = 1.0, 0.8
# Tail latency: the p99.9 of a Get (readwrite) and of a Seek (seekwhilewriting)
# while a writer writes, over the base's in the same cell, is flagged above this.
TAIL_WORKLOADS = {"readwrite": "Get", "seekwhilewriting": "Seek"}
TAIL_LIMIT = 10.0


class Failure(Exception):
    """A benchmark that failed: recorded, and the exit status is 1."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def int_list(text, what):
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}: not a comma list of integers: {text!r}")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{what}: give positive integers: {text!r}")
    return values


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Exit status: 0 the runs completed, 1 a benchmark failed, 2 bad flags.")
    p.add_argument("--quick", action="store_true",
                   help="16/100 at 500K entries, uniform, 1 repetition; threads 1 for the "
                   "single writers, 2 and the core count for the rest; db_bench --num 200000")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "matrix"),
                   help="output folder (default build/matrix)")
    p.add_argument("--from-json", metavar="FILE", nargs="+",
                   help="redraw matrix.md, matrix.png and the summary from earlier "
                   "matrix.json files (several: their cells joined, as from runs split by "
                   "workload); runs nothing")
    p.add_argument("--faces", default="rep,db_bench", help="rep, db_bench or both (default)")
    p.add_argument("--bench", metavar="PATH",
                   help="memrep_bench (default: build/peers/bench/memrep_bench when built, "
                   "else build/release/bench/memrep_bench)")
    p.add_argument("--plugin", metavar="PATH",
                   default=os.path.join(ROOT, "build", "release", "rocksdb",
                                        "libmemrep_rocksdb.so"),
                   help="memrep's RocksDB plugin for db_bench")
    p.add_argument("--db-bench", default=None, help="db_bench (default: the one on PATH)")
    p.add_argument("--ndebug-plugin", metavar="PATH",
                   help=f"a plugin registering {NDEBUG_PLUGIN_REP}, the db_bench base "
                   "(default: build/peers/bench/libmemrep_skip_list_ndebug.so when built; "
                   "'none' uses Debian's skip_list)")
    p.add_argument("--ceiling", metavar="PATH",
                   help=f"a plugin registering {CEILING_REP} (a rep that stores nothing, "
                   "build/release/bench/libmemrep_ceiling.so): it joins the db_bench write-only "
                   "cells (fillrandom, fillrandom_batch100) as the bound of what RocksDB allows")
    p.add_argument("--compare-bench", metavar="PATH",
                   help="a second memrep_bench (another commit): its reps run as REP@old, "
                   "alternating with --bench per repetition")
    p.add_argument("--compare-plugin", metavar="PATH",
                   help="a second build of the plugin: its reps run as REP@old in the db_bench cells")
    p.add_argument("--compare-label", default="old", help="the suffix of the second build's reps")
    p.add_argument("--reps", help="comma list: only these reps (bench or canonical names; "
                   "the bases always run)")
    p.add_argument("--workloads", help="comma list: only these workloads (of either face)")
    p.add_argument("--threads", type=lambda t: int_list(t, "--threads"),
                   help="thread counts of the rep-level workloads that are not single-writer "
                   "(default: 2, 4, 8, the core count above 8, twice it for the mixed ones; "
                   "--quick: 2 and the core count)")
    p.add_argument("--db-threads", type=lambda t: int_list(t, "--db-threads"),
                   help="db_bench thread counts (default: 1 and the core count)")
    p.add_argument("--entries", type=lambda t: int_list(t, "--entries"),
                   help="rep-level entry counts (default: the mode's)")
    p.add_argument("--shapes", help="key/value sizes, e.g. 16/100,8/0 (default: the mode's)")
    p.add_argument("--distributions", help="uniform,zipfian (zipfian only where the "
                   "workload chooses keys; default: the mode's)")
    p.add_argument("--repeats", type=int, help="repetitions, median shown (default: the mode's)")
    p.add_argument("--db-num", type=int, help="db_bench --num (default: the mode's)")
    p.add_argument("--timeout", type=float, default=3600,
                   help="seconds per memrep_bench invocation (past it: a failure) and per "
                   "db_bench run (past it: the rep's cell is a cliff, 't/o'); default 3600")
    p.add_argument("--no-plot", action="store_true", help="no matrix.png")
    a = p.parse_args(argv)
    a.mode = "quick" if a.quick else "full"
    m = MODES[a.mode]
    a.faces = [f for f in a.faces.split(",") if f]
    bad = [f for f in a.faces if f not in ("rep", "db_bench")]
    if bad or not a.faces:
        p.error(f"--faces: choose rep and/or db_bench, not {bad or a.faces}")
    a.repeats = a.repeats if a.repeats is not None else m["repeats"]
    if a.repeats < 1:
        p.error("--repeats must be at least 1")
    a.db_num = a.db_num if a.db_num is not None else m["db_num"]
    if a.db_num < 1:
        p.error("--db-num must be at least 1")
    a.entries = a.entries or m["entries"]
    try:
        a.shapes = ([tuple(int(x) for x in s.split("/")) for s in a.shapes.split(",") if s]
                    if a.shapes else m["shapes"])
        if not a.shapes or any(len(s) != 2 or s[0] < 8 or s[1] < 0 for s in a.shapes):
            raise ValueError
    except ValueError:
        p.error(f"--shapes: give KEY/VALUE sizes (keys at least 8 bytes), e.g. 16/100,8/0")
    a.distributions = (a.distributions.split(",") if a.distributions else m["distributions"])
    if not a.distributions or set(a.distributions) - {"uniform", "zipfian"}:
        p.error(f"--distributions: uniform and/or zipfian, not {a.distributions}")
    a.workloads = a.workloads.split(",") if a.workloads else None
    if a.workloads:
        unknown = set(a.workloads) - set(REP_WORKLOADS) - set(DB_WORKLOADS)
        if unknown:
            p.error(f"--workloads: unknown {sorted(unknown)}; rep level: {REP_WORKLOADS}, "
                    f"db_bench: {list(DB_WORKLOADS)}")
    a.reps = [r for r in a.reps.split(",") if r] if a.reps else None
    if a.timeout <= 0:
        p.error("--timeout must be positive")
    a.cores = os.cpu_count() or 1
    return a


# ---------------------------------------------------------------- the grid

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


# ---------------------------------------------------------------- machine

def machine():
    return {"cores": os.cpu_count(), "cpu": common.cpu_model(platform.processor() or "unknown"),
            "kernel": platform.release(), "python": platform.python_version()}


def git_commit():
    """HEAD's commit, "-dirty" when tracked files differ; None outside a checkout."""
    commit, dirty = common.git_state(ROOT)
    return commit + ("-dirty" if dirty else "") if commit else None


# ---------------------------------------------------------------- the rep level

def list_reps(bench):
    try:
        out = subprocess.run([bench, "--list_reps"], capture_output=True, text=True, timeout=60,
                             check=True, stdin=subprocess.DEVNULL).stdout
        return json.loads(out)["reps"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
        raise SystemExit(f"matrix: cannot list the reps of {bench} (--list_reps): {e}")


def wanted(a, rep):
    """Whether --reps keeps this rep (listed by any of its names)."""
    if a.reps is None:
        return True
    return bool({rep["name"], rep["canonical_name"], *rep["aliases"]} & set(a.reps))


def rep_level_reps(a, listed):
    """(base, [bench names in order]): the base, skip_list, memrep's reps, the peers."""
    names = {r["name"] for r in listed}
    base = "skip_list_ndebug" if "skip_list_ndebug" in names else "skip_list"
    order = [base] + (["skip_list"] if base != "skip_list" else [])
    order += [r["name"] for r in listed if r["memrep"] and wanted(a, r)]
    order += [r["name"] for r in listed if not r["memrep"] and r["name"] not in ROCKSDB_OWN
              and r["name"] not in order and wanted(a, r)]
    return base, order


def run_bench(a, doc, bench, reps, group, workloads, repeats, tag):
    """One memrep_bench invocation; returns its runs (each with "binary": tag)."""
    key_size, value_size, entries, dist, threads = group
    with tempfile.NamedTemporaryFile(prefix="matrix-", suffix=".json", delete=False) as f:
        json_path = f.name
    cmd = [bench, f"--benchmarks={','.join(workloads)}", f"--memtablerep={','.join(reps)}",
           f"--num_operations={entries}", f"--key_size={key_size}", f"--item_size={value_size}",
           f"--key_distribution={dist}", f"--num_threads={threads}", f"--repeats={repeats}",
           "--progress=false", f"--json={json_path}"]
    shown = shlex.join(cmd[:-1])
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout,
                              stdin=subprocess.DEVNULL)
        code, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        code, stderr = None, f"timed out after {a.timeout:g} s"
    wall = time.monotonic() - t0
    doc["commands"].append({"face": "rep", "command": shown, "wall_s": round(wall, 2),
                            "exit": code})
    try:
        if code != 0:
            tail = "\n".join(stderr.strip().splitlines()[-10:])
            raise Failure(f"memrep_bench {'timed out' if code is None else f'exit {code}'}: "
                          f"{shown}\n{tail}")
        with open(json_path) as f:
            runs = json.load(f)["runs"]
    finally:
        os.unlink(json_path)
    for r in runs:
        r["binary"] = tag
    return runs, wall


def rotated(xs, k):
    k %= len(xs)
    return xs[k:] + xs[:k]


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fold_rep_runs(cell, runs, label_of):
    """Median per rep of the runs of one cell into cell["reps"]."""
    by_rep = {}
    for r in runs:
        by_rep.setdefault(label_of(r), []).append(r)
    for label, mine in by_rep.items():
        done = [r for r in mine if not r["skipped"]]
        entry = {"runs": len(done)}
        if not done:
            entry.update(status="skipped", note=mine[0].get("note", ""), ops_sec=None)
        else:
            mixed = any(r.get("write_ops") for r in done)
            entry.update(
                status="ok",
                ops_sec=median_or_none([r["ops_per_sec"] for r in done]),
                runs_ops_sec=[r["ops_per_sec"] for r in done],
                p999_ns=median_or_none([r.get("p999_ns") or None for r in done]),
                bytes_per_entry=median_or_none([r.get("bytes_per_entry") for r in done]),
                create_us=median_or_none([r.get("create_us") for r in done]),
                destroy_us=median_or_none([r.get("destroy_us") for r in done]),
                seconds=median_or_none([r.get("seconds") for r in done]))
            if mixed:
                # The counted op of a mixed workload is the readers'; the writer apart.
                entry["read_ops_sec"] = entry["ops_sec"]
                entry["write_ops_sec"] = median_or_none([r.get("write_ops_per_sec")
                                                         for r in done])
            if done[0].get("note"):
                entry["note"] = done[0]["note"]
        cell["reps"][label] = entry


def run_rep_face(a, doc, save):
    bench = a.bench
    listed = list_reps(bench)
    base, reps = rep_level_reps(a, listed)
    doc["bases"]["rep"] = {
        "rep": base, "binary": bench,
        "why": ("skip_list_ndebug: RocksDB's skip list without assertions (build/peers)"
                if base == "skip_list_ndebug" else
                "skip_list (Debian's librocksdb, with assertions): this memrep_bench has no "
                "skip_list_ndebug peer (bash scripts/peers.sh builds it)")}
    old_reps = []
    if a.compare_bench:
        old_names = {r["name"] for r in list_reps(a.compare_bench)}
        old_reps = [r for r in reps if r in old_names]
    label = a.compare_label
    doc["reps"]["rep"] = reps + [f"{r}@{label}" for r in old_reps]
    workloads = [w for w in REP_WORKLOADS if a.workloads is None or w in a.workloads]
    groups = []  # (key, value, entries, distribution, threads) -> workloads
    for key_size, value_size in a.shapes:
        for entries in a.entries:
            for dist in a.distributions:
                by_threads = {}
                for w in workloads:
                    if dist != "uniform" and w not in CHOOSES_KEYS:
                        continue
                    for t in rep_threads(a, w):
                        by_threads.setdefault(t, []).append(w)
                for t, ws in sorted(by_threads.items()):
                    groups.append(((key_size, value_size, entries, dist, t), ws))
    for i, (group, ws) in enumerate(groups, 1):
        key_size, value_size, entries, dist, t = group
        log(f"[rep {i}/{len(groups)}] {key_size}/{value_size} {fmt_count(entries)} {dist} "
            f"threads {t}: {','.join(ws)} ({len(reps)} reps"
            f"{f' + {len(old_reps)}@{label}' if old_reps else ''}, {a.repeats} repetitions)")
        runs = []
        try:
            if not old_reps:
                got, _ = run_bench(a, doc, bench, reps, group, ws, a.repeats, "new")
                runs += got
            else:
                # memrep_bench runs one binary: alternate the two per repetition,
                # the first binary and the first rep rotating.
                for r in range(a.repeats):
                    for tag in rotated(["new", "old"], r):
                        path, names = ((bench, reps) if tag == "new"
                                       else (a.compare_bench, old_reps))
                        got, _ = run_bench(a, doc, path, rotated(names, r), group, ws, 1, tag)
                        runs += got
        except Failure as e:
            doc["failures"].append(str(e))
            log(f"FAILED: {e}")
            save()
            continue
        for w in ws:
            mine = [r for r in runs if r["workload"] == w]
            threads = max((r["threads"] for r in mine if not r["skipped"]), default=t)
            cell = new_cell("rep", w, key_size, value_size, entries, threads, dist)
            fold_rep_runs(cell, mine, lambda r: r["rep"] if r["binary"] == "new"
                          else f"{r['rep']}@{label}")
            doc["cells"].append(cell)
        save()


# ---------------------------------------------------------------- db_bench

def run_db_face(a, doc, save, tmp_parent):
    plugin = os.path.abspath(a.plugin)
    if not os.path.isfile(plugin):
        raise SystemExit(f"matrix: the plugin {plugin} is not built "
                         "(cmake --build --preset release --target memrep_rocksdb)")
    listed = list_reps(a.bench)
    memrep = [r for r in listed if r["memrep"] and wanted(a, r)]
    words = {"skip_list": "skip_list"}  # label -> db_bench_compare --reps word
    ndebug = a.ndebug_plugin
    if ndebug is None:
        guess = os.path.join(ROOT, "build", "peers", "bench", "libmemrep_skip_list_ndebug.so")
        ndebug = guess if os.path.isfile(guess) else "none"
    if ndebug != "none":
        ndebug = os.path.abspath(ndebug)
        if not os.path.isfile(ndebug):
            raise SystemExit(f"matrix: --ndebug-plugin {ndebug} does not exist")
        base = NDEBUG_PLUGIN_REP
        words = {base: f"{base}@{ndebug}", **words}
        why = f"{base}: RocksDB's skip list without assertions, preloaded from {ndebug}"
    else:
        base = "skip_list"
        why = ("skip_list: Debian's librocksdb, with assertions (no no-assertion skip-list "
               "plugin is built: bash scripts/peers.sh configures build/peers, then "
               "scripts/matrix.sh builds it)")
    for r in memrep:
        words[r["canonical_name"]] = r["canonical_name"]
    label = a.compare_label
    old = []
    if a.compare_plugin:
        cp = os.path.abspath(a.compare_plugin)
        if not os.path.isfile(cp):
            raise SystemExit(f"matrix: --compare-plugin {cp} does not exist")
        old_names = None
        if a.compare_bench:
            old_names = {r["canonical_name"] for r in list_reps(a.compare_bench)}
        for r in memrep:
            if old_names is None or r["canonical_name"] in old_names:
                words[f"{r['canonical_name']}@{label}"] = f"{r['canonical_name']}@{cp}"
                old.append(f"{r['canonical_name']}@{label}")
    ceiling_word = None
    if a.ceiling:
        ceiling_path = os.path.abspath(a.ceiling)
        if not os.path.isfile(ceiling_path):
            raise SystemExit(f"matrix: --ceiling {ceiling_path} does not exist")
        ceiling_word = f"{CEILING_REP}@{ceiling_path}"
    labels = list(words) + ([CEILING_REP] if ceiling_word else [])
    doc["bases"]["db_bench"] = {"rep": base, "why": why}
    doc["reps"]["db_bench"] = labels
    by_word = {w: l for l, w in words.items()}
    if ceiling_word:
        by_word[ceiling_word] = CEILING_REP
    threads = sorted(set(a.db_threads or [1, a.cores]))
    cells = [(w, t) for w in DB_WORKLOADS if a.workloads is None or w in a.workloads
             for t in threads]
    def cell_words(workload):
        write_only = ceiling_word and workload in dbc.WRITE_ONLY_WORKLOADS
        return list(words.values()) + ([ceiling_word] if write_only else [])

    total = sum(len(cell_words(DB_WORKLOADS[name][0])) for name, _ in cells) * a.repeats
    n = 0
    for name, t in cells:
        workload, extra = DB_WORKLOADS[name]
        argv = ["--reps", ",".join(words.values()), "--plugin", plugin,
                "--memrep-bench", a.bench, "--num", str(a.db_num), "--repeats", str(a.repeats),
                "--threads", str(t), "--timeout", str(a.timeout), "--workloads", workload]
        if a.db_bench:
            argv += ["--db-bench", a.db_bench]
        if ceiling_word and workload in dbc.WRITE_ONLY_WORKLOADS:
            argv += ["--ceiling", os.path.abspath(a.ceiling)]
        da = dbc.parse_args(argv)
        da.extra = list(extra)
        notes = io.StringIO()
        try:
            with contextlib.redirect_stderr(notes):
                dbc.validate(da)
        except dbc.BenchError as e:
            raise SystemExit(f"matrix: db_bench: {e}")
        for line in notes.getvalue().splitlines():
            # The no-assertion skip list is not memrep's: memrep_bench does not
            # list it, and it takes concurrent inserts as RocksDB's does.
            if NDEBUG_PLUGIN_REP not in line:
                log(line)
        if a.compare_bench:
            old_traits = dbc.list_reps(os.path.abspath(a.compare_bench))
            for l in old:
                rep = dbc.rep_name(words[l])
                if rep in old_traits:
                    da.rep_traits[words[l]] = dict(old_traits[rep], source="--compare-bench")
        cell = new_cell("db_bench", name, da.key_size, da.value_size, da.num, t, "uniform")
        mine = cell_words(workload)
        results = {by_word[w]: [] for w in mine}
        failed = False
        for r in range(a.repeats):
            for word in rotated(mine, r):
                n += 1
                l = by_word[word]
                try:
                    res = dbc.run_once(da, workload, word, r, tmp_parent)
                except dbc.BenchError as e:
                    if str(e).startswith("timed out"):
                        results[l].append(None)
                        log(f"[db {n}/{total}] {cell['id']} {l}: timed out ({a.timeout:g} s)")
                        continue
                    doc["failures"].append(f"db_bench {cell['id']} {l}: {e}")
                    log(f"FAILED: db_bench {cell['id']} {l}: {e}")
                    failed = True
                    continue
                results[l].append(res)
                doc["commands"].append({"face": "db_bench", "command": res["command"],
                                        "wall_s": res["wall_s"], "exit": 0})
                log(f"[db {n}/{total}] {cell['id']} {l}: {res['ops_sec']:,.0f} ops/s")
        for l, got in results.items():
            done = [x for x in got if x is not None]
            entry = {"runs": len(done)}
            if got and len(done) < len(got):
                entry.update(status="timeout", ops_sec=None,
                             note=f"{len(got) - len(done)} of {len(got)} runs past "
                             f"{a.timeout:g} s")
            elif not done:
                entry.update(status="failed", ops_sec=None)
            else:
                entry.update(status="ok", ops_sec=statistics.median(x["ops_sec"] for x in done),
                             runs_ops_sec=[x["ops_sec"] for x in done],
                             rss_mb=statistics.median(x["maxrss_kib"] for x in done) / 1024,
                             factory=done[0]["factory"])
            cell["reps"][l] = entry
        cell["failed"] = failed
        doc["cells"].append(cell)
        save()


# ---------------------------------------------------------------- analysis

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


def fmt_ratio(r, status="ok"):
    if status == "timeout":
        return "t/o"
    if r is None or r >= 0.01:
        return common.times(r, whole_from=100)
    return f"{r:.1g}x" if r > 0 else "0x"


def flagged(r, status="ok"):
    text = fmt_ratio(r, status)
    if r is None:
        return text
    if 0.995 <= r < FLAG_LOW:
        text = f"{r:.3f}x"  # not "1.00x" beside a flag
    if r < FLAG_CLIFF:
        return f"**{text}** !!"
    if r < FLAG_LOW:
        return f"{text} !"
    return text


FACE_TITLE = {"rep": "Rep level (memrep_bench)",
              "db_bench": "db_bench (Debian's db_bench, memrep's plugin preloaded)"}


def markdown(doc):
    m = doc["machine"]
    out = ["# memrep matrix", "",
           f"Mode `{doc['mode']}`, commit `{doc.get('git_commit')}`, {m['cores']} cores "
           f"({m['cpu']}), load average {doc.get('load_start')} at the start and "
           f"{doc.get('load_end')} at the end, {doc.get('wall_s', 0) / 60:.1f} min, median of "
           f"{doc['repeats']} repetition(s). Command: `{doc.get('command', '')}`.", "",
           "Each entry is the rep's median ops/s over the base's in the same cell "
           f"(for mixed workloads the readers' ops). **bold !!**: below {FLAG_CLIFF}x; `!`: "
           f"below {FLAG_LOW}x; `t/o`: a db_bench run past the timeout; `-`: skipped "
           "(memrep_bench's reason in matrix.json) or not run.", ""]
    label = doc.get("compare_label", "old")
    for face, s in doc["summary"].items():
        reps = doc["reps"][face]
        cells = [c for c in doc["cells"] if c["face"] == face]
        out += [f"## {FACE_TITLE[face]}", "", f"Base: {doc['bases'][face]['why']}.", ""]
        out.append("| cell | base ops/s | " + " | ".join(reps) + " |")
        out.append("|---|---|" + "---|" * len(reps))
        for c in cells:
            row = [c["id"], report_data.ops_text(c.get("base_ops_sec"))]
            for r in reps:
                e = c["reps"].get(r)
                row.append("-" if e is None else flagged(e.get("ratio"), e["status"]))
            out.append("| " + " | ".join(row) + " |")
        out += ["", f"### Worst cell per rep ({face})", "",
                "| rep | worst cell | ratio to base | flag |", "|---|---|---|---|"]
        for r, w in s["worst"].items():
            flag = ("below 0.8x" if w["ratio"] < FLAG_CLIFF else
                    "below 1.0x" if w["ratio"] < FLAG_LOW else "")
            out.append(f"| {r} | {w['cell']} | {fmt_ratio(w['ratio'], w['status'])} | {flag} |")
        k = s["counts"]
        out += ["", f"{k['cells']} cells; {k['below_1']} where some rep is below 1.0x, "
                f"{k['below_0.8']} below 0.8x.", ""]
        if s.get("tail"):
            tail_cells = [c for c in cells if c["workload"] in TAIL_WORKLOADS]
            out += [f"### Tail latency while writing ({face})", "",
                    "p99.9 of the readers' op (a Get in readwrite, a new iterator's Seek and "
                    "Nexts in seekwhilewriting; memrep_bench times about one op in 64) over "
                    f"the base's in the same cell; **bold !!**: above {TAIL_LIMIT:g}x. The "
                    "base's own p99.9 in ns.", "",
                    "| cell | base p99.9 ns | " + " | ".join(r for r in reps if r != s["base"])
                    + " |", "|---|---|" + "---|" * (len(reps) - 1)]
            for c in tail_cells:
                bp = c["reps"].get(s["base"], {}).get("p999_ns")
                row = [c["id"], "-" if not bp else f"{bp:,.0f}"]
                for r in reps:
                    if r == s["base"]:
                        continue
                    q = c["reps"].get(r, {}).get("p999_ratio")
                    text = "-" if q is None else f"{q:.2f}x"
                    row.append(f"**{text}** !!" if q is not None and q > TAIL_LIMIT else text)
                out.append("| " + " | ".join(row) + " |")
            out += ["", "Worst p99.9 over the base's per rep: " + "; ".join(
                f"{r} {w['ratio']:.2f}x at {w['cell']}" for r, w in s["tail"].items()) + ".", ""]
        if s["worst_vs_old"]:
            olds = [r for r in reps if f"{r}@{label}" in reps]
            out += [f"### New over @{label}, per cell ({face})", "",
                    "| cell | " + " | ".join(olds) + " |", "|---|" + "---|" * len(olds)]
            for c in cells:
                out.append("| " + " | ".join(
                    [c["id"]] + [flagged(c["reps"].get(r, {}).get("vs_old")) for r in olds]) + " |")
            out += ["", f"Worst new/@{label} per rep: " + "; ".join(
                f"{r} {fmt_ratio(w['ratio'])} at {w['cell']}"
                for r, w in s["worst_vs_old"].items()) + ".", ""]
    if doc["failures"]:
        out += ["## Failures", ""] + [f"- ```{f}```".replace("\n", " ") for f in doc["failures"]]
    return "\n".join(out) + "\n"


def summary_lines(doc):
    label = doc.get("compare_label", "old")
    lines = []
    for face, s in doc["summary"].items():
        k = s["counts"]
        lines.append(f"{face}: base {s['base']}; {k['cells']} cells, {k['below_1']} with a rep "
                     f"below 1.0x, {k['below_0.8']} below 0.8x. Worst cell per rep:")
        for r, w in s["worst"].items():
            if r.endswith(f"@{label}"):
                continue
            extra = ""
            if r in s["worst_vs_old"]:
                v = s["worst_vs_old"][r]
                extra = f"  (new/@{label} worst {fmt_ratio(v['ratio'])} at {v['cell']})"
            lines.append(f"  {r:<22} {fmt_ratio(w['ratio'], w['status']):>7}  {w['cell']}{extra}")
        if s.get("tail"):
            lines.append(f"{face}: worst p99.9 while writing over the base's "
                         f"(limit {TAIL_LIMIT:g}x):")
            for r, w in s["tail"].items():
                flag = "  above the limit" if w["ratio"] > TAIL_LIMIT else ""
                lines.append(f"  {r:<22} {w['ratio']:>6.2f}x  {w['cell']}{flag}")
    if doc["failures"]:
        lines.append(f"{len(doc['failures'])} failure(s): see matrix.md")
    return lines


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import TwoSlopeNorm
    except ImportError:
        log("matrix: no matplotlib in this python (python3-matplotlib is Debian's): "
            "no matrix.png")
        return False
    faces = [f for f in doc["summary"] if any(c["face"] == f for c in doc["cells"])]
    if not faces:
        return False
    span = 1.0  # colours saturate at 10x and 0.1x (the text gives the ratio)
    heights = [max(2, sum(c["face"] == f for c in doc["cells"])) for f in faces]
    width = max(8.0, 4.0 + 0.95 * max(len(doc["reps"][f]) for f in faces))
    fig, axes = plt.subplots(len(faces), 1, squeeze=False, constrained_layout=True,
                             figsize=(width, 0.8 + 0.3 * sum(heights) + 1.9 * len(faces)),
                             gridspec_kw={"height_ratios": heights})
    norm = TwoSlopeNorm(vmin=-span, vcenter=0.0, vmax=span)
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#d9d9d9")
    image = None
    for ax, face in zip(axes[:, 0], faces):
        reps = doc["reps"][face]
        cells = [c for c in doc["cells"] if c["face"] == face]
        grid, text = [], []
        for c in cells:
            row, trow = [], []
            for r in reps:
                e = c["reps"].get(r, {})
                ratio = e.get("ratio")
                if e.get("status") == "timeout":
                    row.append(-span)
                elif ratio is None:
                    row.append(float("nan"))
                else:
                    row.append(max(-span, min(span, math.log10(max(ratio, 1e-12)))))
                trow.append(fmt_ratio(ratio, e.get("status", "ok")) if e else "")
            grid.append(row)
            text.append(trow)
        image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        for i, trow in enumerate(text):
            for j, t in enumerate(trow):
                v = grid[i][j]
                dark = not math.isnan(v) and abs(v) > 0.6 * span
                ax.text(j, i, t, ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(reps)))
        ax.set_xticklabels(reps, rotation=30, ha="right", fontsize=8)
        ax.set_xlabel("rep", fontsize=8)
        ax.set_yticks(range(len(cells)))
        ax.set_yticklabels([c["id"] for c in cells], fontsize=7)
        ax.set_ylabel("cell: workload key/value entries threads", fontsize=8)
        ax.set_title(f"{FACE_TITLE[face]}: median ops/s over {doc['bases'][face]['rep']}'s",
                     fontsize=10)
    ticks = [-1, math.log10(0.2), math.log10(0.5), math.log10(0.8), 0, math.log10(2),
             math.log10(5), 1]
    bar = fig.colorbar(image, ax=axes[:, 0].tolist(), ticks=ticks, shrink=0.5, aspect=30)
    bar.ax.set_yticklabels(["≤0.1x", "0.2x", "0.5x", "0.8x", "1x", "2x", "5x", "≥10x"],
                           fontsize=8)
    bar.set_label("ratio to the base (log scale; grey: skipped)", fontsize=8)
    fig.suptitle(f"memrep matrix ({doc['mode']}, {doc['machine']['cores']} cores, "
                 f"commit {str(doc.get('git_commit'))[:10]}, median of {doc['repeats']})",
                 fontsize=11)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def write_outputs(doc, out, draw):
    os.makedirs(out, exist_ok=True)
    analyse(doc)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(markdown(doc))
    if draw:
        plot(doc, os.path.join(out, "matrix.png"))
    for line in summary_lines(doc):
        print(line)


# ---------------------------------------------------------------- main

def default_bench():
    peers = os.path.join(ROOT, "build", "peers", "bench", "memrep_bench")
    release = os.path.join(ROOT, "build", "release", "bench", "memrep_bench")
    if os.access(peers, os.X_OK):
        if os.access(release, os.X_OK) and os.path.getmtime(peers) < os.path.getmtime(release):
            log(f"note: {peers} is older than {release}; bash scripts/peers.sh rebuilds it")
        return peers
    return release


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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    if a.from_json:
        docs = []
        for path in a.from_json:
            try:
                with open(path) as f:
                    docs.append(json.load(f))
            except (OSError, ValueError) as e:
                print(f"matrix: cannot read {path}: {e}", file=sys.stderr)
                return 2
        try:
            doc = joined(docs)
        except (ValueError, KeyError, TypeError) as e:
            print(f"matrix: cannot join {' '.join(a.from_json)}: {e}", file=sys.stderr)
            return 2
        write_outputs(doc, a.out, not a.no_plot)
        if len(docs) > 1:
            with open(os.path.join(a.out, "matrix.json"), "w") as f:
                json.dump(doc, f, indent=1)
        return 1 if doc["failures"] else 0
    a.bench = os.path.abspath(a.bench or default_bench())
    for flag, path in (("--bench", a.bench), ("--compare-bench", a.compare_bench)):
        if path and not os.access(path, os.X_OK):
            print(f"matrix: {flag} {path} is not an executable (bash scripts/matrix.sh "
                  "builds memrep_bench)", file=sys.stderr)
            return 2
    if a.compare_bench:
        a.compare_bench = os.path.abspath(a.compare_bench)
    if "db_bench" in a.faces:
        a.db_bench = a.db_bench or shutil.which("db_bench")
        missing = [(flag, path) for flag, path in (("--plugin", a.plugin),
                                                   ("--compare-plugin", a.compare_plugin),
                                                   ("--db-bench", a.db_bench)) if flag and (
                   path is not None or flag == "--db-bench") and not (path and os.path.isfile(path))]
        if missing:
            print("matrix: missing for the db_bench face: " + ", ".join(
                f"{flag} {path}" for flag, path in missing) + " (Debian's rocksdb-tools has "
                "db_bench; cmake --build --preset release --target memrep_rocksdb builds the "
                "plugin; or --faces rep)", file=sys.stderr)
            return 2
    out = os.path.abspath(a.out)
    t0 = time.monotonic()
    doc = {"tool": "bench/matrix/matrix.py", "mode": a.mode,
           "command": shlex.join(["bench/matrix/matrix.py"] + argv),
           "machine": machine(), "git_commit": git_commit(),
           "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "load_start": common.loadavg(),
           "repeats": a.repeats, "compare_label": a.compare_label,
           "binaries": {"bench": a.bench, "compare_bench": a.compare_bench,
                        "plugin": os.path.abspath(a.plugin),
                        "compare_plugin": a.compare_plugin and os.path.abspath(a.compare_plugin)},
           "bases": {}, "reps": {}, "cells": [], "commands": [], "failures": []}
    os.makedirs(out, exist_ok=True)
    json_path = os.path.join(out, "matrix.json")

    def save():
        doc["wall_s"] = round(time.monotonic() - t0, 1)
        doc["load_end"] = common.loadavg()
        with open(json_path + ".tmp", "w") as f:
            json.dump(analyse(doc), f, indent=1)
        os.replace(json_path + ".tmp", json_path)

    log(f"matrix: {a.mode} mode, {a.cores} cores, load average {doc['load_start']}, "
        f"memrep_bench {a.bench}")
    tmp_parent = tempfile.mkdtemp(prefix="memrep-matrix-")
    try:
        try:
            if "rep" in a.faces:
                run_rep_face(a, doc, save)
            if "db_bench" in a.faces:
                run_db_face(a, doc, save, tmp_parent)
        except SystemExit as e:
            print(e, file=sys.stderr)
            return 2
    finally:
        shutil.rmtree(tmp_parent, ignore_errors=True)
    save()
    write_outputs(doc, out, not a.no_plot)
    log(f"matrix: {doc['wall_s'] / 60:.1f} min, load average {doc['load_start']} -> "
        f"{doc['load_end']}; {json_path}, matrix.md, matrix.png in {out}")
    return 1 if doc["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
