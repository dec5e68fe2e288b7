#!/usr/bin/env python3
"""Runs memrep's benchmarks and writes benchmarks.md, benchmarks.json and plots.

One command for the whole benchmark story of issue #3: memrep_bench at the
rep level (every rep, item sizes 0 and 100), the same at growing entry
counts (scaling), Debian's db_bench through db_bench_compare.py, and the
Nimbus scenario (memrep_nimbus_import: one writer's big WriteBatches into a
real RocksDB database, memrep.Vector against RocksDB's memtables). It
writes, into --out:

    benchmarks.md     machine, commands, tables, target vs measured, plots
    benchmarks.json   everything it ran: commands, wall times, the raw JSON
                      of every memrep_bench, db_bench_compare and
                      memrep_nimbus_import run
    img/*.png         headline.png, throughput_*.png, scaling.png,
                      latency.png, db_bench.png

Modes (bench/README.md, "Report"):
    --short   a few minutes on 2 cores (200K entries, one repetition);
              default --out build/report (the main job, scripts/compare.sh,
              is compare.py over the matrix instead)
    --full    the published numbers (10M entries, ~1 hour on 2 cores);
              default --out docs/results; docs/results/benchmarks.md comes from it
    --from-json FILE   redraw the md and plots from a saved benchmarks.json

A part that fails (a tool missing, a failed check, a timeout) is reported in
the md and the command exits 1 at the end; everything else is still written.
Exit status: 0 every part ran, 1 some part failed, 2 bad flags.

Python 3 standard library; matplotlib (Debian: python3-matplotlib) for the
plots. Usage: bash scripts/report.sh --short   (builds, then runs this)
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import threading
import time

import report_data
import report_plots
import report_render
from common import command_output, cpu_model, git_state, loadavg_words, read_text

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ALL_REPS = ["skip_list", "vector", "hash_skiplist", "hash_linkedlist", "sorted_hash", "vector_rep"]
TARGET_REPS = ["skip_list", "sorted_hash"]
# readseq runs on its own with --num_scans=1: its op is one entry, so one scan
# per iterator gives the same rate as ten, and the hash reps copy and sort the
# whole rep for every iterator (ten copies of 10M entries would take ~10 min).
WORKLOADS = ["fillrandom", "fillseq", "overwrite", "concurrentfill", "readrandom",
             "readseq", "seekrandom", "readwrite", "seekwhilewriting"]
SCALING_WORKLOADS = ["fillrandom", "readrandom", "seekrandom"]
WRITE_BUFFER_SIZE = 256 << 20
PARTS = ["rep", "scaling", "db_bench", "nimbus"]
# memrep_nimbus_import's default --batch (--num-override scales it with
# --records), and the reps of --full's read figures (its defaults but vector).
NIMBUS_BATCH = 5000
NIMBUS_READ_REPS = ["skip_list", "memrep.Vector", "memrep.SortedHash"]


def rep_runs(part, num, item_size, reps, repeats, workloads=WORKLOADS):
    """memrep_bench invocations for one (num, item_size): readseq apart."""
    main = [w for w in workloads if w != "readseq"]
    out = [] if not main else [
        {"part": part, "num": num, "item_size": item_size, "reps": reps,
         "workloads": main, "repeats": repeats, "extra": []}]
    if "readseq" in workloads:
        out.append({"part": part, "num": num, "item_size": item_size, "reps": reps,
                    "workloads": ["readseq"], "repeats": repeats, "extra": ["--num_scans=1"]})
    return out


def plan(mode, num_override=None, repeats_override=None):
    """The runs of a mode: memrep_bench invocations and the db_bench settings."""
    runs = []
    if mode == "short":
        for item in (100, 0):
            runs += rep_runs("rep", 200_000, item, ALL_REPS, 1)
        for n in (100_000, 300_000, 1_000_000):
            runs += rep_runs("scaling", n, 100, TARGET_REPS, 1, SCALING_WORKLOADS)
        db = {"num": 200_000, "repeats": 1}
    else:
        # The headline: skip_list vs sorted_hash at 10M, both item sizes. One
        # repetition: the two reps' nine workloads take ~20 min per item size
        # on 2 cores (skip_list's 10M-entry fills dominate).
        for item in (100, 0):
            runs += rep_runs("rep", 10_000_000, item, TARGET_REPS, 1)
        # Every rep, median of 3, at 1M: the hash reps' total-order
        # iterators copy the whole rep, which at 10M would cost ~40 min alone.
        runs += rep_runs("rep", 1_000_000, 100, ALL_REPS, 3)
        # 1M and 10M points of the scaling lines come from the runs above.
        for n, r in ((100_000, 3), (300_000, 3), (3_000_000, 1)):
            runs += rep_runs("scaling", n, 100, TARGET_REPS, r, SCALING_WORKLOADS)
        db = {"num": 1_000_000, "repeats": 2}
    if num_override:
        # Test sizes: the biggest count becomes N, the others keep their order.
        biggest = max(r["num"] for r in runs)
        for r in runs:
            r["num"] = max(100, r["num"] * num_override // biggest)
        db["num"] = num_override
    if repeats_override:
        for r in runs:
            r["repeats"] = repeats_override
        db["repeats"] = repeats_override
    for r in runs:  # e.g. rep_10M_item100, rep_10M_item100_readseq
        r["name"] = (f"{r['part']}_{report_data.count(r['num'])}_item{r['item_size']}" +
                     ("_readseq" if r["workloads"] == ["readseq"] else ""))
    return runs, db


def nimbus_plan(mode, num_override=None, repeats_override=None):
    """The memrep_nimbus_import invocations of a mode: flags (the program's
    defaults apart) and the figures each is read for ('import', 'reads').

    --short: one quick invocation for every figure. --full: the defaults, in
    two invocations: the read figures without RocksDB's vector (every Get
    sorts its whole mutable memtable: hours per run), and the import
    figures with --reads=0 and every default rep (read phases would give the
    background flushes time the writer does not wait for)."""
    if mode == "short":
        runs = [{"name": "nimbus", "uses": ["import", "reads"],
                 "flags": {"records": 200_000, "runs": 1, "reads": 100}}]
        records = 200_000
    else:
        runs = [{"name": "nimbus_reads", "uses": ["reads"],
                 "flags": {"reps": ",".join(NIMBUS_READ_REPS)}},
                {"name": "nimbus_import", "uses": ["import"], "flags": {"reads": 0}}]
        records = report_data.NIMBUS_RECORDS
    for r in runs:
        if num_override:  # the batches shrink with the records: as many persists
            r["flags"]["records"] = num_override
            r["flags"]["batch"] = max(1, NIMBUS_BATCH * num_override // records)
        if repeats_override:
            r["flags"]["runs"] = repeats_override
    return runs


# ---------------------------------------------------------------- machine

def cmake_cache(build_dir, key):
    for line in read_text(os.path.join(build_dir, "CMakeCache.txt")).splitlines():
        if line.startswith(key + ":"):
            return line.split("=", 1)[1]
    return ""


def collect_machine(build_dir, db_bench_path=None):
    """Facts about this machine and checkout; "" where unknown."""
    mem_kib = next((int(line.split()[1]) for line in read_text("/proc/meminfo").splitlines()
                    if line.startswith("MemTotal:")), 0)
    compiler = cmake_cache(build_dir, "CMAKE_CXX_COMPILER")
    build_type = cmake_cache(build_dir, "CMAKE_BUILD_TYPE")
    flags = cmake_cache(build_dir, f"CMAKE_CXX_FLAGS_{build_type.upper()}") if build_type else ""
    rocksdb = {p: command_output(["dpkg-query", "-W", "-f=${Version}", p])
               for p in ("librocksdb-dev", "rocksdb-tools")}
    commit, dirty = git_state(REPO)
    try:
        import matplotlib
        mpl = matplotlib.__version__
    except ImportError:
        mpl = ""
    return {
        "cpu_model": cpu_model(platform.processor()),
        "cpus_online": os.cpu_count() or 0,
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0,
        "ram_gib": round(mem_kib / (1 << 20), 1),
        "kernel": " ".join(platform.uname()[i] for i in (0, 2, 4)),
        "os": next((line.split("=", 1)[1].strip('"') for line in
                    read_text("/etc/os-release").splitlines()
                    if line.startswith("PRETTY_NAME=")), ""),
        "compiler": (command_output([compiler, "--version"]).splitlines() or [""])[0]
        if compiler else "",
        "build": f"{build_type} {flags}".strip(),
        "rocksdb_packages": rocksdb,
        "db_bench": db_bench_path or "",
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "matplotlib": mpl,
        "loadavg_start": loadavg_words(),
    }


# ---------------------------------------------------------------- running

def run_tool(cmd, timeout, log_prefix):
    """Run cmd; its stderr passes through (progress lines) and its last 4 KB
    are kept. Returns (exit code or None on timeout, stdout, stderr tail)."""
    print(f"\n[report] {log_prefix}: {shlex.join(cmd)}", file=sys.stderr, flush=True)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
    except OSError as e:
        return 127, "", str(e)
    tail = bytearray()

    def pump():
        while True:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                return
            sys.stderr.buffer.write(chunk)
            sys.stderr.flush()
            tail.extend(chunk)
            del tail[:-4096]

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    out = []
    out_reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    out_reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = None
    reader.join()
    out_reader.join()
    return code, (out[0] if out else b"").decode(errors="replace"), tail.decode(errors="replace")


def failure_text(code, timeout, stderr_tail):
    why = (f"timed out after {timeout:g} s" if code is None else
           f"killed by signal {-code}" if code < 0 else f"exit status {code}")
    lines = [l for l in stderr_tail.replace("\r", "\n").splitlines() if l.strip()]
    return why + ("\n" + "\n".join(lines[-12:]) if lines else "")


def run_memrep_bench(run, bench, tmp, timeout):
    json_path = os.path.join(tmp, run["name"] + ".json")
    cmd = [bench, f"--benchmarks={','.join(run['workloads'])}",
           f"--memtablerep={','.join(run['reps'])}", f"--num_operations={run['num']}",
           f"--item_size={run['item_size']}", f"--repeats={run['repeats']}",
           *run["extra"], f"--json={json_path}"]
    run["command"] = shlex.join([os.path.relpath(bench, REPO)] + cmd[1:-1])
    run_for_json(run, cmd, json_path, timeout, "memrep_bench")


def run_for_json(run, cmd, json_path, timeout, tool, log_prefix=None):
    """Runs cmd for `run`: its wall time, stdout table, status, and the JSON
    it wrote. Progress lines name it log_prefix, by default its name."""
    t0 = time.monotonic()
    code, stdout, err = run_tool(cmd, timeout, log_prefix or run["name"])
    run["wall_s"] = round(time.monotonic() - t0, 1)
    run["table"] = stdout
    run["data"] = None
    if code != 0:
        run["status"], run["error"] = "failed", failure_text(code, timeout, err)
        return
    try:
        with open(json_path) as f:
            run["data"] = json.load(f)
        run["status"], run["error"] = "ok", None
    except (OSError, ValueError) as e:
        run["status"], run["error"] = "failed", f"no usable JSON from {tool}: {e}"


def run_nimbus(run, bench, tmp, timeout):
    """One memrep_nimbus_import invocation; its databases go under tmp."""
    json_path = os.path.join(tmp, run["name"] + ".json")
    flags = [f"--{k}={v}" for k, v in run["flags"].items()]
    cmd = [bench, *flags, f"--db={os.path.join(tmp, run['name'] + '-db')}",
           f"--json={json_path}"]
    run["command"] = shlex.join([os.path.relpath(bench, REPO)] + flags)
    run_for_json(run, cmd, json_path, timeout, "memrep_nimbus_import")


def db_bench_command(db, args, json_path):
    user = shlex.split(args.db_bench_args or "")
    base = [] if "--quick" in user else ["--num", str(db["num"]), "--repeats", str(db["repeats"])]
    # User flags come after the report's (argparse: the last one wins), the
    # plugin and the JSON path last, since the report reads that file.
    # The ceiling (a rep that stores nothing) where the build made its plugin.
    ceiling = os.path.join(os.path.dirname(os.path.realpath(args.plugin)), "..", "bench",
                           "libmemrep_ceiling.so")
    ceiling_args = ["--ceiling", os.path.normpath(ceiling)] if os.path.isfile(ceiling) else []
    return ([sys.executable, os.path.join(HERE, "db_bench_compare.py")] + base +
            ["--write-buffer-size", str(WRITE_BUFFER_SIZE)] + ceiling_args + user +
            ["--plugin", args.plugin, "--json", json_path])


def run_db_bench(db, args, tmp):
    json_path = os.path.join(tmp, "db_bench.json")
    cmd = db_bench_command(db, args, json_path)
    shown = ["python3", "bench/report/db_bench_compare.py"] + [
        os.path.relpath(c, REPO) if c == args.plugin else c for c in cmd[2:-2]]
    db["command"] = shlex.join(shown)
    run_for_json(db, cmd, json_path, args.timeout * 4, "db_bench_compare.py", "db_bench")


# ---------------------------------------------------------------- main

def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Sizes: --short rep level 200K entries (items 0 and 100, every rep, 1 "
               "repetition), scaling 100K/300K/1M, db_bench 200K x 1. --full rep level 10M "
               "(skip_list and sorted_hash, items 0 and 100, 1 repetition) and 1M (every "
               "rep, median of 3), scaling 100K..10M, db_bench 1M x 2, 256 MiB buffer. "
               "Nimbus: --short 200K records, 1 run, 100 reads per phase; --full the "
               "program's defaults (5M records, median of 3), reads without RocksDB's "
               "vector, import figures from a second run with --reads=0.")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--short", action="store_const", dest="mode", const="short")
    mode.add_argument("--full", action="store_const", dest="mode", const="full")
    mode.add_argument("--from-json", metavar="FILE",
                      help="no runs: redraw the md and plots from this benchmarks.json")
    p.add_argument("--out", help="output directory (default: docs/results for --full, "
                   "build/report otherwise)")
    p.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"),
                   help="the release build (memrep_bench, the plugin, the compiler facts)")
    p.add_argument("--memrep-bench", help="default: BUILD_DIR/bench/memrep_bench")
    p.add_argument("--nimbus", help="the Nimbus scenario's program "
                   "(default: BUILD_DIR/bench/memrep_nimbus_import)")
    p.add_argument("--plugin", help="default: BUILD_DIR/rocksdb/libmemrep_rocksdb.so")
    p.add_argument("--parts", default=",".join(PARTS),
                   help=f"comma list of the parts to run (default: {','.join(PARTS)})")
    p.add_argument("--db-bench-args", metavar="'FLAGS'", default="",
                   help="extra db_bench_compare.py flags, one string, e.g. "
                   "--db-bench-args='--num 500000 --workloads readrandom' (they override "
                   "the mode's --num/--repeats; --quick drops them)")
    p.add_argument("--num-override", type=int, metavar="N",
                   help="for tests: the biggest entry count becomes N, the others shrink "
                   "in proportion; db_bench --num N; Nimbus --records N (batches in "
                   "proportion)")
    p.add_argument("--repeats-override", type=int, metavar="R", help="repetitions of every "
                   "run (Nimbus: --runs R)")
    p.add_argument("--timeout", type=float, help="seconds per memrep_bench or "
                   "memrep_nimbus_import run "
                   "(default 600 short, 7200 full); db_bench_compare gets 4x")
    p.add_argument("--no-plots", action="store_true", help="write no PNG (noted in the md)")
    a = p.parse_args(argv)
    if a.from_json:
        a.mode = "from-json"
    parts = [x for x in a.parts.split(",") if x]
    bad = [x for x in parts if x not in PARTS]
    if bad:
        p.error(f"unknown part(s) {bad}; choose from {PARTS}")
    a.parts = parts
    for name in ("num_override", "repeats_override"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    a.out = a.out or os.path.join(REPO, "docs/results" if a.mode == "full" else "build/report")
    a.timeout = a.timeout or (7200 if a.mode == "full" else 600)
    a.memrep_bench = a.memrep_bench or os.path.join(a.build_dir, "bench", "memrep_bench")
    a.nimbus = a.nimbus or os.path.join(a.build_dir, "bench", "memrep_nimbus_import")
    a.plugin = os.path.abspath(a.plugin or os.path.join(a.build_dir, "rocksdb",
                                                        "libmemrep_rocksdb.so"))
    return a


def shown_path(path):
    rel = os.path.relpath(path)
    return os.path.abspath(path) if rel.startswith("..") else rel


def save(doc, out):
    path = os.path.join(out, "benchmarks.json")
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(path + ".tmp", path)


def tool_missing(run, path, target):
    """Marks `run` failed, saying how to build it, if the tool at `path` cannot run."""
    if os.access(path, os.X_OK):
        return False
    run.update(status="failed", data=None, command=path, wall_s=0,
               error=f"{target} not found at {path}: build it "
               f"(cmake --build --preset release --target {target})")
    return True


def run_nimbus_part(doc, a, tmp):
    """Every memrep_nimbus_import invocation of the mode, into doc['nimbus_runs']."""
    for run in nimbus_plan(a.mode, a.num_override, a.repeats_override):
        doc["nimbus_runs"].append(run)
        if tool_missing(run, a.nimbus, "memrep_nimbus_import"):
            continue
        run_nimbus(run, a.nimbus, tmp, a.timeout)
        save(doc, a.out)


def run_everything(a, argv):
    runs, db = plan(a.mode, a.num_override, a.repeats_override)
    doc = {"schema": 1, "mode": a.mode,
           "generated": datetime.datetime.now(datetime.timezone.utc).strftime(
               "%Y-%m-%d %H:%M UTC"),
           "report_command": shlex.join(["python3", "bench/report/report.py"] + argv),
           "machine": collect_machine(a.build_dir, None),
           "parts": a.parts, "rep_runs": [], "db_bench": dict(db, status="not run"),
           "nimbus_runs": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="memrep-report-") as tmp:
        for run in runs:
            if run["part"] not in a.parts:
                continue
            doc["rep_runs"].append(run)
            if tool_missing(run, a.memrep_bench, "memrep_bench"):
                continue
            run_memrep_bench(run, a.memrep_bench, tmp, a.timeout)
            save(doc, a.out)
        if "db_bench" in a.parts:
            run_db_bench(doc["db_bench"], a, tmp)
            save(doc, a.out)
        if "nimbus" in a.parts:
            run_nimbus_part(doc, a, tmp)
    doc["total_wall_s"] = round(time.monotonic() - t0, 1)
    doc["machine"]["loadavg_end"] = loadavg_words()
    return doc


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.from_json:
        with open(a.from_json) as f:
            doc = json.load(f)
    else:
        doc = run_everything(a, argv)
    doc["plots"] = report_plots.draw_plots(doc, os.path.join(a.out, "img"), a.no_plots)
    md, failures = report_render.render(doc)
    save(doc, a.out)
    md_path = os.path.join(a.out, "benchmarks.md")
    with open(md_path, "w") as f:
        f.write(md)
    print(report_render.terminal_summary(doc), flush=True)
    print(f"\nreport: {shown_path(md_path)}  (raw data: "
          f"{shown_path(os.path.join(a.out, 'benchmarks.json'))}, plots: "
          f"{shown_path(os.path.join(a.out, 'img'))})")
    if failures:
        print(f"report: {len(failures)} part(s) failed; see the 'Failures' section",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
