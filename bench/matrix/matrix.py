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
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time

from matrix_grid import (CEILING_REP, DB_WORKLOADS, MODES, NDEBUG_PLUGIN_REP, REP_WORKLOADS,
                         ROOT, log)
import common  # bench/report's, on the path matrix_grid sets
from matrix_analysis import analyse, joined
from matrix_render import write_outputs
from matrix_run import run_db_face, run_rep_face


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


def machine():
    return {"cores": os.cpu_count(), "cpu": common.cpu_model(platform.processor() or "unknown"),
            "kernel": platform.release(), "python": platform.python_version()}


def git_commit():
    """HEAD's commit, "-dirty" when tracked files differ; None outside a checkout."""
    commit, dirty = common.git_state(ROOT)
    return commit + ("-dirty" if dirty else "") if commit else None


def default_bench():
    peers = os.path.join(ROOT, "build", "peers", "bench", "memrep_bench")
    release = os.path.join(ROOT, "build", "release", "bench", "memrep_bench")
    if os.access(peers, os.X_OK):
        if os.access(release, os.X_OK) and os.path.getmtime(peers) < os.path.getmtime(release):
            log(f"note: {peers} is older than {release}; bash scripts/peers.sh rebuilds it")
        return peers
    return release


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
