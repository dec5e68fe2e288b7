#!/usr/bin/env python3
"""How many entries a full memtable holds, per rep and write buffer size.

RocksDB switches a memtable when its memory (the arena plus the rep's
ApproximateMemoryUsage) reaches write_buffer_size, so a rep that costs more
bytes per entry flushes smaller tables, more often: more L0 files, more
compaction. This runs Debian's db_bench fillrandom once per (size, rep),
alternating the reps, with automatic compactions off (nothing stalls the
writes), and reads the `num_entries` of every flush event in the database's
LOG. It prints, per size, each rep's flush count and average entries per
flushed memtable, and each rep's ratio to the first rep's average.

Usage (Python 3 standard library only):
    python3 bench/report/flush_entries.py --plugin build/release/rocksdb/libmemrep_rocksdb.so \\
        --reps skip_list,memrep.SortedHash --sizes 65536,1048576,16777216,268435456

A size gets enough keys for about --flushes flushes of the first rep's
memtables (estimated at --entry-bytes bytes per entry); the last, partial
memtable (flushed at close) is left out of the average.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FLUSH_EVENT = re.compile(r'EVENT_LOG_v1 (\{.*"event": "flush_started".*\})')


def flush_entries(log_path):
    """num_entries of every flush_started event in a LOG, in order."""
    entries = []
    with open(log_path, errors="replace") as log:
        for line in log:
            m = FLUSH_EVENT.search(line)
            if m:
                entries.append(json.loads(m.group(1))["num_entries"])
    return entries


def run(db_bench, plugin, rep, size, num, key_size, value_size, workdir):
    db = tempfile.mkdtemp(prefix="flush-", dir=workdir)
    env = dict(os.environ)
    name, _, own_plugin = rep.partition("@")  # name@PLUGIN: that build of the plugin
    if own_plugin or (plugin and name != "skip_list"):
        env["LD_PRELOAD"] = own_plugin or plugin
    cmd = [db_bench, "--benchmarks=fillrandom", f"--num={num}", f"--key_size={key_size}",
           f"--value_size={value_size}", f"--write_buffer_size={size}",
           "--max_write_buffer_number=4", "--disable_wal=1", "--compression_type=none",
           "--disable_auto_compactions=1", "--level0_slowdown_writes_trigger=100000",
           "--level0_stop_writes_trigger=100000", "--seed=1000", f"--db={db}",
           f"--memtablerep={name}"]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=1800)
    counts = flush_entries(os.path.join(db, "LOG"))
    shutil.rmtree(db, ignore_errors=True)
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db-bench", default="/usr/bin/db_bench")
    p.add_argument("--plugin", help="shared library LD_PRELOADed for reps other than skip_list")
    p.add_argument("--reps", default="skip_list,memrep.SortedHash",
                   help="comma list; the first is the baseline; a rep may end in @PLUGIN "
                   "to load that build of the plugin for it")
    p.add_argument("--sizes", default="65536,1048576,16777216,268435456",
                   help="write_buffer_size values, bytes")
    p.add_argument("--flushes", type=int, default=12, help="flushes wanted per size (about)")
    p.add_argument("--entry-bytes", type=int, default=145,
                   help="bytes per entry the key count is estimated with")
    p.add_argument("--key-size", type=int, default=16)
    p.add_argument("--value-size", type=int, default=100)
    p.add_argument("--tmpdir", default=None)
    args = p.parse_args()
    reps = args.reps.split(",")
    print("| write_buffer_size | keys | " +
          " | ".join(f"{r} flushes | {r} entries/flush" for r in reps) + " | " +
          " | ".join(f"{r} / {reps[0]}" for r in reps[1:]) + " |")
    print("|---" * (2 + 2 * len(reps) + len(reps) - 1) + "|")
    for size in (int(s) for s in args.sizes.split(",")):
        num = (args.flushes + 1) * size // args.entry_bytes
        averages = []
        cells = []
        for rep in reps:
            counts = run(args.db_bench, args.plugin, rep, size, num, args.key_size,
                         args.value_size, args.tmpdir)
            full = counts[:-1] if len(counts) > 1 else counts  # the last flush is at close
            avg = sum(full) / len(full) if full else 0.0
            averages.append(avg)
            cells.append(f"{len(full)} | {avg:,.0f}")
            if len(full) < 10:
                print(f"note: {rep} at {size} made {len(full)} full flushes (fewer than 10)",
                      file=sys.stderr)
        ratios = [f"{a / averages[0]:.3f}x" if averages[0] else "-" for a in averages[1:]]
        print(f"| {size} | {num} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |",
              flush=True)


if __name__ == "__main__":
    main()
