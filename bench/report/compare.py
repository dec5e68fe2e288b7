#!/usr/bin/env python3
"""The main job: which rep for which workload, on this machine.

Runs the matrix's quick mode (bench/matrix/matrix.py: every registered rep,
memrep.Auto among them, at the rep level and through Debian's db_bench, with
the ceiling in the db_bench write cells) at 1 thread and at the core count
(at least 2; with 4 cores or more also 2 and 4, for the scaling curves),
then memrep_phased for what memrep.Auto chooses when its memtables switch,
and writes into --out (default build/report):

    benchmarks.md        the report: the headline heat map, "Choosing a rep"
                         (reps x workload classes, where each rep loses,
                         Auto's choices, memory, creation and destruction,
                         traits), every cell, thread scaling, the peers
    compare.json         this run: the matrix's document, memrep_phased's
    matrix/              matrix.json, matrix.md, matrix.png (every cell)
    img/headline.png     reps x workload classes
    img/scaling.png      ops/s by thread count (three thread counts or more)

and prints a summary of at most 40 lines; progress goes to stderr.

    python3 bench/report/compare.py --bench B --plugin P [--ndebug-plugin N] \\
        [--ceiling C] [--phased PH] [matrix.py flags, e.g. --entries 2000]
    python3 bench/report/compare.py --from-json build/report/compare.json   # redraw

Flags it does not know go to matrix.py (after its own, so they win).
Exit status: 0 everything ran, 1 a benchmark failed (the report says
which), 2 bad flags or a missing program.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import compare_plots
import compare_render as render

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MATRIX = os.path.join(ROOT, "bench", "matrix", "matrix.py")
sys.path.insert(0, os.path.dirname(MATRIX))
from matrix_run import list_reps  # noqa: E402  (memrep_bench --list_reps, as the matrix reads it)
# memrep_phased: 3 rounds, 1 MiB memtables, 20 switches a phase (as
# docs/auto.md's 16 MiB run): about 3 s per rep and round. With 6, the
# memtable each phase starts on (the last phase's rep) and Auto's trials
# were a sixth to a half of a phase, and its total came out 1.01-1.03x the
# best fixed rep's; with 20, 0.94-1.00x
# (docs/results/2026-12-07-main-job-20-switches.md).
PHASED_FLAGS = {"rounds": 3, "write_buffer_size": 1 << 20, "switches_per_phase": 20}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog="Other flags go to bench/matrix/matrix.py.")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "report"))
    p.add_argument("--bench", help="memrep_bench (the rep level; its --list_reps names the reps)")
    p.add_argument("--plugin", help="libmemrep_rocksdb.so, for db_bench")
    p.add_argument("--ndebug-plugin", default="none",
                   help="the no-assertion skip list's plugin, db_bench's base ('none': "
                   "Debian's skip_list)")
    p.add_argument("--ceiling", help="libmemrep_ceiling.so: the rep that stores nothing")
    p.add_argument("--phased", help="memrep_phased, for what memrep.Auto chooses")
    p.add_argument("--phased-switches", type=int, default=PHASED_FLAGS["switches_per_phase"],
                   help="memrep_phased --switches_per_phase (default %(default)s)")
    p.add_argument("--from-json", metavar="FILE", help="redraw from a compare.json; runs nothing")
    a, rest = p.parse_known_args(argv)
    a.matrix_args = rest
    if not a.from_json:
        for flag in ("bench", "plugin"):
            path = getattr(a, flag)
            if not path or not os.access(path, os.R_OK):
                p.error(f"--{flag} {path}: not found (bash scripts/compare.sh builds it)")
    return a


def thread_counts():
    cores = max(2, os.cpu_count() or 1)
    counts = {1, cores} | ({2, 4} if cores >= 4 else set())
    return ",".join(str(t) for t in sorted(counts))


def run_matrix(a, out):
    threads = thread_counts()
    cmd = [sys.executable, "-B", MATRIX, "--quick", "--threads", threads, "--db-threads",
           threads, "--out", os.path.join(out, "matrix"), "--bench", a.bench,
           "--plugin", a.plugin, "--ndebug-plugin", a.ndebug_plugin]
    if a.ceiling:
        cmd += ["--ceiling", a.ceiling]
    cmd += a.matrix_args
    log(f"compare: {shlex.join(cmd)}")
    # The matrix's own summary (stdout) is folded into this one.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode == 2:
        raise SystemExit(2)
    with open(os.path.join(out, "matrix", "matrix.json")) as f:
        return json.load(f)


def run_phased(a, listed, tmp):
    """memrep_phased over skip_list, memrep's fixed reps and Auto: (doc, command)."""
    reps = ["skip_list"] + [r["canonical_name"] for r in listed if r["memrep"]]
    flags = dict(PHASED_FLAGS, switches_per_phase=a.phased_switches)
    json_path = os.path.join(tmp, "phased.json")
    cmd = [a.phased, f"--reps={','.join(reps)}"] + [f"--{k}={v}" for k, v in flags.items()]
    shown = shlex.join([os.path.relpath(a.phased, ROOT)] + cmd[1:])
    if not a.phased or not os.access(a.phased, os.X_OK):
        return {"error": f"memrep_phased not found: {a.phased}"}, shown
    log(f"compare: {shown}")
    proc = subprocess.run(cmd + [f"--db={tmp}", f"--json={json_path}"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=600)
    if proc.returncode != 0:
        tail = " ".join(proc.stderr.strip().splitlines()[-3:])
        return {"error": f"memrep_phased exit {proc.returncode}: {tail}"}, shown
    with open(json_path) as f:
        return json.load(f), shown


def write(doc, out):
    os.makedirs(out, exist_ok=True)
    doc["out"] = out
    figures = compare_plots.draw(doc, os.path.join(out, "img"))
    md_path = os.path.join(out, "benchmarks.md")
    with open(md_path, "w") as f:
        f.write(render.render(doc, figures, "matrix/matrix.md"))
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(doc, f, indent=1)
    rel = os.path.relpath(md_path)
    for line in render.summary(doc, md_path if rel.startswith("..") else rel):
        print(line)
    return figures


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    out = os.path.abspath(a.out)
    if a.from_json:
        with open(a.from_json) as f:
            doc = json.load(f)
    else:
        t0 = time.monotonic()
        a.bench, a.plugin = os.path.abspath(a.bench), os.path.abspath(a.plugin)
        listed = list_reps(a.bench)
        matrix = run_matrix(a, out)
        with tempfile.TemporaryDirectory(prefix="memrep-compare-") as tmp:
            phased, phased_cmd = run_phased(a, listed, tmp)
        doc = {"tool": "bench/report/compare.py", "command": shlex.join(
            ["bench/report/compare.py"] + argv), "matrix": matrix, "listed": listed,
            "names": render.display_names(listed), "phased": phased,
            "phased_command": phased_cmd,
            "phased_flags": dict(PHASED_FLAGS, switches_per_phase=a.phased_switches),
            "wall_s": round(time.monotonic() - t0, 1)}
    write(doc, out)
    failed = doc["matrix"].get("failures") or (doc.get("phased") or {}).get("error")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
