#!/usr/bin/env python3
"""Side-by-side comparison of RocksDB memtable representations with db_bench.

Runs Debian's db_bench (RocksDB 7.8.3, package rocksdb-tools) once per
(workload, repeat, rep), alternating the reps inside every repeat (order
rotated each repeat) so that all reps see the same machine noise.  Reps that
are not RocksDB built-ins are loaded from a plugin via LD_PRELOAD.  Prints a
Markdown table of median ops/sec (and ratio to the first, baseline, rep), a
table of median peak RSS, and the db_bench command line used per workload.

A rep that cannot take concurrent inserts runs with
--allow_concurrent_memtable_write=false.  The script knows that of db_bench's
built-in reps; of a plugin rep it learns it from `memrep_bench --list_reps`
(--memrep-bench; by default <plugin dir>/../bench/memrep_bench, the build
layout), matching the rep by its name, canonical name or an alias (an options
string by its id).  Without memrep_bench it assumes the rep takes concurrent
inserts, and says so.

Usage (Python 3 standard library only):
    python3 bench/report/db_bench_compare.py --plugin build/libmemrep_plugin.so
    python3 bench/report/db_bench_compare.py --reps skip_list,vector --quick
    python3 bench/report/db_bench_compare.py --workloads fillrandom,readrandom \\
        --num 200000 --repeats 2 --json results.json
    python3 bench/report/db_bench_compare.py --plugin build/release/rocksdb/libmemrep_rocksdb.so \\
        --reps 'skip_list,id=memrep.SortedHash;max_runs=4'   # reps split on commas only
    python3 bench/report/db_bench_compare.py --plugin build/release/rocksdb/libmemrep_rocksdb.so \\
        --ceiling        # + bench.Ceiling, a rep that stores nothing, and each rep's share of it
    python3 bench/report/db_bench_compare.py --db-bench build/intree/rocksdb-11.8.1/db_bench \\
        --built-in --checks --workloads readrandom,seekrandom   # each rep with and without
                         # RocksDB's memtable checks, alternating, and each one's slowdown

Caveats: 'vector' is only usable for write workloads (reads sort the whole
mutable memtable per lookup).  With the hash reps, --prefix_size=8 makes
seekrandom a prefix seek (db_bench keys start with an 8-byte key number),
so their seek numbers are not comparable with total-order reps.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from db_bench_reps import (BUILTIN_REPS, CEILING, CHECK_FLAGS, CHECKED, PREFIX_REPS, BenchError,
                           check_flags, rep_traits, split_plugin, unchecked)

WRITE_ONLY_WORKLOADS = {"fillrandom", "fillrandom_2t", "overwrite", "fillbatch"}

# workload name -> (db_bench --benchmarks, measured benchmark, flag overrides)
WORKLOADS = {
    "fillrandom": ("fillrandom", "fillrandom", lambda a: {}),
    "fillrandom_2t": ("fillrandom", "fillrandom",
                      lambda a: {"threads": 2, "num": a.num // 2}),
    "overwrite": ("fillrandom,overwrite", "overwrite", lambda a: {}),
    # A bulk load: fillrandom in write batches of 1,000 entries.
    "fillbatch": ("fillrandom", "fillrandom", lambda a: {"batch_size": 1000}),
}
for _name in ("readrandom", "readwhilewriting", "seekrandom",
              "seekrandomwhilewriting", "readrandomwriterandom"):
    WORKLOADS[_name] = (f"fillrandom,{_name}", _name,
                        lambda a: {"reads": a.reads})

RESULT_RE = re.compile(r"^(\S+)\s+:\s+([\d.]+) micros/op ([\d.]+) ops/sec")
FOUND_RE = re.compile(r"\((\d+) of (\d+) found\)")
# Workloads whose found counts every rep must share with the first one: reads
# after a fill from the same seed. (With a writer running beside the readers
# the counts depend on timing.)
FOUND_CHECKED = {"readrandom", "seekrandom"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db-bench", default=shutil.which("db_bench") or "/usr/bin/db_bench")
    p.add_argument("--plugin", help="shared library LD_PRELOADed for non-built-in reps")
    p.add_argument("--built-in", action="store_true",
                   help="the db_bench has memrep compiled in (RocksDB built with "
                        "ROCKSDB_PLUGINS=memrep): every rep is built in, nothing is preloaded")
    p.add_argument("--memrep-bench", metavar="PATH",
                   help="memrep_bench, whose --list_reps gives the traits of the plugin's reps "
                   "(default: <plugin dir>/../bench/memrep_bench, if it exists)")
    p.add_argument("--reps", default="skip_list,memrep.SortedHash,memrep.Vector",
                   help="comma list (of names or options strings); the first is the baseline. "
                   "A word may end in @PLUGIN to load that build of the plugin for it, so that "
                   "two builds run side by side: memrep.SortedHash@old.so,memrep.SortedHash@new.so")
    p.add_argument("--ceiling", nargs="?", const="auto", metavar="PATH",
                   help="also run bench.Ceiling, a rep that stores nothing (what RocksDB itself "
                   "allows), from this plugin (default: <plugin dir>/../bench/"
                   "libmemrep_ceiling.so), and show every rep's share of it")
    p.add_argument("--checks", action="store_true",
                   help="run every rep twice, alternating: as it is and with RocksDB's memtable "
                   "integrity checks on (of --paranoid_memory_checks, "
                   "--memtable_verify_per_key_checksum_on_seek and "
                   "--memtable_protection_bytes_per_key=8, those the db_bench has), and print "
                   "each rep's slowdown with the checks")
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--num", type=int, help="keys (default 1000000; 100000 with --quick)")
    p.add_argument("--reads", type=int, help="reads per reader thread (default num/4)")
    p.add_argument("--repeats", type=int, help="default 3; 1 with --quick")
    p.add_argument("--threads", type=int, default=1,
                   help="db_bench --threads (default 1): the threads of every benchmark. With "
                   "N > 1 each thread of a fill writes num/N keys (--writes; the keys still range "
                   "over --num), so a fill writes as much as with one thread; readers read --reads "
                   "each, and readwhilewriting and seekrandomwhilewriting add their one writer. "
                   "readrandomwriterandom's threads then do max(num/N, reads) operations each. "
                   "fillrandom_2t keeps its own 2 threads")
    p.add_argument("--key-size", type=int, default=16)
    p.add_argument("--value-size", type=int, default=100)
    # 256 MiB holds 1M 16+100-byte entries in one memtable, and unlike 1 GiB it
    # does not make the hash index's bucket array (sized from the write
    # buffer) dominate RSS.
    p.add_argument("--write-buffer-size", type=int, default=256 << 20,
                   help="bytes (default 268435456 = 256 MiB: holds 1M 16+100-byte entries "
                   "in one memtable, and unlike 1 GiB it does not make the hash index's "
                   "bucket array dominate RSS)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run")
    p.add_argument("--json", help="write raw runs and summary here")
    p.add_argument("--quick", action="store_true", help="num=100000, repeats=1")
    p.add_argument("--tmpdir", help="parent of the db dirs (default: fresh mkdtemp)")
    p.add_argument("--extra", action="append", default=[],
                   help="extra db_bench flags, e.g. --extra=--arena_block_size=65536")
    a = p.parse_args(argv)
    a.num = a.num or (100000 if a.quick else 1000000)
    a.repeats = a.repeats or (1 if a.quick else 3)
    a.reads = a.reads or max(1, a.num // 4)
    a.reps = [r for r in a.reps.split(",") if r]
    a.workloads = [w for w in a.workloads.split(",") if w]
    return a


def validate(a):
    unknown = [w for w in a.workloads if w not in WORKLOADS]
    if unknown:
        raise BenchError(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    if not a.reps:
        raise BenchError("--reps is empty")
    if a.threads < 1:
        raise BenchError(f"--threads must be at least 1, not {a.threads}")
    if not (os.path.isfile(a.db_bench) and os.access(a.db_bench, os.X_OK)):
        raise BenchError(f"db_bench not found or not executable: {a.db_bench}")
    if len(set(a.reps)) != len(a.reps):
        raise BenchError(f"--reps names a rep twice: {a.reps}")
    a.ceiling_rep = None
    if a.ceiling:
        path = a.ceiling
        if path == "auto":
            if not a.plugin:
                raise BenchError("--ceiling without a path needs --plugin (the ceiling's plugin "
                                 "is found beside it): pass --ceiling PATH")
            path = os.path.join(os.path.dirname(os.path.realpath(a.plugin)), "..", "bench",
                                "libmemrep_ceiling.so")
        path = os.path.abspath(os.path.normpath(path))
        if not os.path.isfile(path):
            raise BenchError(f"the ceiling's plugin does not exist: {path} (it is built with "
                             "the benchmarks: cmake --build --preset release)")
        a.ceiling_rep = f"{CEILING}@{path}"
        a.reps.append(a.ceiling_rep)
    plugin_reps = [r for r in a.reps if r not in BUILTIN_REPS]
    missing = [r for r in plugin_reps if not split_plugin(r)[1]]
    if missing and not a.plugin and not a.built_in:
        raise BenchError(f"rep(s) {missing} are not RocksDB built-ins "
                         f"({sorted(BUILTIN_REPS)}): pass --plugin PATH, or REP@PLUGIN")
    if a.plugin:
        a.plugin = os.path.abspath(a.plugin)
        if not os.path.isfile(a.plugin):
            raise BenchError(f"--plugin file does not exist: {a.plugin}")
    for r in plugin_reps:
        path = split_plugin(r)[1]
        if path and not os.path.isfile(path):
            raise BenchError(f"the plugin of '{r}' does not exist: {path}")
    a.rep_traits = rep_traits(a, plugin_reps)
    a.check_flags = []
    if a.checks:
        a.check_flags = check_flags(a.db_bench)
        if not a.check_flags:
            raise BenchError(f"{a.db_bench} has none of RocksDB's memtable checks "
                             f"({', '.join(f for f, _ in CHECK_FLAGS)}): --checks needs one")
        if a.ceiling_rep:
            raise BenchError("--checks and --ceiling do not go together")
        # Each rep and its checked twin, side by side in every rotation.
        words = []
        for r in a.reps:
            words += [r, r + CHECKED]
            a.rep_traits[r + CHECKED] = a.rep_traits[r]
        a.reps = words
    for rep in a.reps:
        if (a.rep_traits[rep].get("point_read_while_mutable") == "linear" and
                set(a.workloads) - WRITE_ONLY_WORKLOADS):
            print(f"warning: every read of the mutable memtable costs '{rep}' a scan or sort "
                  "of the whole memtable; read workloads will be extremely slow or time out "
                  "(readwhilewriting never finishes)", file=sys.stderr)


def build_command(a, workload, rep, repeat, db_dir):
    """Return (argv, env_overrides) for one db_bench run."""
    benchmarks, _, overrides = WORKLOADS[workload]
    flags = {"benchmarks": benchmarks, "key_size": a.key_size,
             "value_size": a.value_size, "num": a.num, "disable_wal": 1,
             "compression_type": "none", "write_buffer_size": a.write_buffer_size,
             "max_write_buffer_number": 4, "seed": 1000 + repeat, "statistics": 0,
             "histogram": 0, "db": db_dir, "threads": 1,
             "memtablerep": split_plugin(rep)[0]}
    own = overrides(a)
    if a.threads > 1 and "threads" not in own:
        # db_bench's fills write --writes per thread (--num when unset) over
        # keys in [0, num): num/N each keeps the total a one-thread fill's.
        flags.update(threads=a.threads, writes=max(1, a.num // a.threads))
    flags.update(own)
    if not a.rep_traits[rep]["concurrent_insert"]:
        flags["allow_concurrent_memtable_write"] = "false"
    base, checked = unchecked(rep)
    if base in PREFIX_REPS:
        flags["prefix_size"] = 8
    if checked:
        flags.update(a.check_flags)
    cmd = [a.db_bench] + [f"--{k}={v}" for k, v in flags.items()]
    for e in a.extra:
        cmd += shlex.split(e)
    preload = base not in BUILTIN_REPS and (split_plugin(rep)[1] or not a.built_in)
    env = {"LD_PRELOAD": split_plugin(rep)[1] or a.plugin} if preload else {}
    return cmd, env


def run_child(cmd, env_over, timeout, out_f, err_f):
    """Run cmd; return (exit code, ru_maxrss KiB) of exactly that child."""
    env = dict(os.environ, **env_over)
    proc = subprocess.Popen(cmd, env=env, stdout=out_f, stderr=err_f,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.send_signal(signal.SIGKILL)
            os.wait4(proc.pid, 0)
            proc.returncode = -signal.SIGKILL
            raise BenchError(f"timed out after {timeout:g} s: {shlex.join(cmd)}")
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not reap
    return proc.returncode, usage.ru_maxrss


def tail(text, lines=15):
    text = re.sub(r"(\.\.\. finished \d+ ops\s*)+", "", text)  # progress noise
    return "\n".join(text.strip().splitlines()[-lines:])


def parse_ops(stdout, bench):
    """ops/sec of the result line of benchmark `bench`, or None."""
    for line in stdout.splitlines():
        m = RESULT_RE.match(line)
        if m and m.group(1) == bench:
            return float(m.group(3)), line.strip()
    return None, None


def run_once(a, workload, rep, repeat, parent):
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", rep)[:60]
    db_dir = tempfile.mkdtemp(prefix=f"{workload}-{safe}-{repeat}-", dir=parent)
    cmd, env = build_command(a, workload, rep, repeat, db_dir)
    try:
        with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f:
            t0 = time.monotonic()
            code, maxrss = run_child(cmd, env, a.timeout, out_f, err_f)
            wall = time.monotonic() - t0
            out_f.seek(0), err_f.seek(0)
            stdout, stderr = out_f.read(), err_f.read()
    finally:
        shutil.rmtree(db_dir, ignore_errors=True)
    shown = shlex.join([f"{k}={v}" for k, v in env.items()] + cmd)
    bench = WORKLOADS[workload][1]
    ops, line = parse_ops(stdout, bench) if code == 0 else (None, None)
    if ops is None:
        why = (f"killed by signal {-code}" if code < 0 else f"exit status {code}"
               if code else f"no '{bench} :' result line")
        raise BenchError(f"{workload} / {rep} failed ({why}).\ncommand: {shown}\n"
                         f"--- stderr tail ---\n{tail(stderr)}\n"
                         f"--- stdout tail ---\n{tail(stdout, 5)}")
    factory = re.search(r"^Memtablerep: (.*)$", stdout, re.M)
    found = FOUND_RE.search(line)
    return {"workload": workload, "rep": rep, "repeat": repeat, "ops_sec": ops,
            "found": int(found.group(1)) if found else None,
            "maxrss_kib": maxrss, "wall_s": round(wall, 3), "result_line": line,
            "factory": factory.group(1) if factory else None, "command": shown}


def run_all(a, parent):
    runs, total = [], len(a.workloads) * a.repeats * len(a.reps)
    for workload in a.workloads:
        for r in range(a.repeats):
            k = r % len(a.reps)
            for rep in a.reps[k:] + a.reps[:k]:
                res = run_once(a, workload, rep, r, parent)
                runs.append(res)
                print(f"[{len(runs)}/{total}] {workload} {rep} rep {r + 1}: "
                      f"{res['ops_sec']:.0f} ops/s, {res['maxrss_kib'] / 1024:.0f} MB",
                      file=sys.stderr, flush=True)
    return runs


def summarize(a, runs):
    """Per workload and rep: median ops/sec and median peak RSS (MB)."""
    s = {}
    for w in a.workloads:
        s[w] = {}
        for rep in a.reps:
            mine = [x for x in runs if x["workload"] == w and x["rep"] == rep]
            s[w][rep] = {"median_ops_sec": statistics.median(x["ops_sec"] for x in mine),
                         "median_rss_mb": statistics.median(x["maxrss_kib"] for x in mine) / 1024,
                         "factory": mine[0]["factory"]}
    return s


def found_mismatches(a, runs):
    """Runs of FOUND_CHECKED workloads whose found count differs from the
    first rep's in the same repeat (same seed), as lines; [] if none. The
    ceiling stores nothing, and a prefix rep's seeks stay in their prefix:
    neither is compared."""
    out = []
    for w in sorted(FOUND_CHECKED & set(a.workloads)):
        for r in range(a.repeats):
            mine = {x["rep"]: x["found"] for x in runs
                    if x["workload"] == w and x["repeat"] == r and x["rep"] != a.ceiling_rep
                    and unchecked(x["rep"])[0] not in PREFIX_REPS}
            base = mine.get(a.reps[0])
            if base is None:  # the first rep is one of those not compared
                continue
            out += [f"{w} repeat {r + 1}: {rep} found {n}, {a.reps[0]} found {base}"
                    for rep, n in mine.items() if n != base]
    return out


def slowdown(plain, checked):
    """How much slower `checked` runs than `plain`, in percent."""
    return f"{100 * (1 - checked / plain):.1f}%" if plain else "n/a"


def ratio(x, base):
    return f"{x / base:.2f}x" if base else "n/a"


def share(x, ceiling):
    return f"{100 * x / ceiling:.0f}%" if ceiling else "n/a"


def markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def report(a, s, runs):
    base, others = a.reps[0], a.reps[1:]
    def label(r):
        return CEILING if r == a.ceiling_rep else r

    hdr = (["workload"] + [f"{label(r)} ops/s" for r in a.reps] +
           [f"{label(r)} / {base}" for r in others])
    rows = []
    for w in a.workloads:
        m = {r: s[w][r]["median_ops_sec"] for r in a.reps}
        rows.append([w] + [f"{m[r]:,.0f}" for r in a.reps] + [ratio(m[r], m[base]) for r in others])
    threads = f", threads={a.threads}" if a.threads > 1 else ""
    print(f"### Throughput (median of {a.repeats}, num={a.num}, reads={a.reads}{threads})\n")
    print(markdown(hdr, rows))
    real = [r for r in a.reps if r != a.ceiling_rep]
    if a.ceiling_rep:
        # What RocksDB itself allows: a rep's share of the ceiling's rate.
        c = a.ceiling_rep
        hdr = ["workload", f"{CEILING} ops/s"] + [f"{r} share" for r in real]
        rows = [[w, f"{s[w][c]['median_ops_sec']:,.0f}"] +
                [share(s[w][r]["median_ops_sec"], s[w][c]["median_ops_sec"]) for r in real]
                for w in a.workloads]
        print(f"\n### Share of the ceiling ({CEILING}: a rep that stores nothing, the rest of "
              "RocksDB's path)\n")
        print(markdown(hdr, rows))
    hdr = (["workload"] + [f"{label(r)} MB" for r in a.reps] +
           [f"{label(r)} / {base}" for r in others])
    rss = {w: {r: s[w][r]["median_rss_mb"] for r in a.reps} for w in a.workloads}
    if others:
        # The workload where the last rep's RSS ratio is highest (a memory
        # target is held to it; a column's maximum could hide it).
        worst = max(a.workloads, key=lambda w: rss[w][real[-1]] / (rss[w][base] or 1))
        rss[f"**highest ratio**: {worst}"] = rss[worst]
    rows = [[w] + [f"{m[r]:.0f}" for r in a.reps] + [ratio(m[r], m[base]) for r in others]
            for w, m in rss.items()]
    if a.checks:
        # Each rep's own cost of the checks: its checked twin against it.
        plain = [r for r in a.reps if not unchecked(r)[1]]
        flags = " ".join(f"--{f}={v}" for f, v in a.check_flags)
        cost_hdr = ["workload"] + [f"{r} slowdown" for r in plain]
        cost = [[w] + [slowdown(s[w][r]["median_ops_sec"], s[w][r + CHECKED]["median_ops_sec"])
                       for r in plain] for w in a.workloads]
        print(f"\n### Slowdown with the memtable checks ({flags}; median ops/s with them "
              "against without, each rep against itself)\n")
        print(markdown(cost_hdr, cost))
    print("\n### Peak RSS of the db_bench process (median, MB)\n")
    print(markdown(hdr, rows))
    print("\n### db_bench command lines (one run per workload)\n")
    for w in a.workloads:
        pick = [x for x in runs if x["workload"] == w and x["rep"] == real[-1]][0]
        print(f"- {w}: `{pick['command']}`")


def main(argv=None):
    a = parse_args(argv)
    own_tmp = a.tmpdir is None
    parent = tempfile.mkdtemp(prefix="memrep-dbbench-") if own_tmp else a.tmpdir
    try:
        validate(a)
        os.makedirs(parent, exist_ok=True)
        runs = run_all(a, parent)
        s = summarize(a, runs)
        report(a, s, runs)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"config": vars(a),
                           "runs": runs, "summary": s}, f, indent=2)
        checked = sorted(FOUND_CHECKED & set(a.workloads))
        if checked:
            bad = found_mismatches(a, runs)
            if bad:
                raise BenchError(f"found counts differ from {a.reps[0]}'s:\n" + "\n".join(bad))
            print(f"\nFound counts of {', '.join(checked)}: every rep's equal {a.reps[0]}'s "
                  "in every repeat.")
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if own_tmp:
            shutil.rmtree(parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
