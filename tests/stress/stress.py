#!/usr/bin/env python3
"""Runs RocksDB's db_stress and db_crashtest.py over every registered rep.

The matrix: the configurations of configs.py x every rep that memrep's
registry lists (learned from `memrep_bench --list_reps`, so a new rep joins by
registering) x skip_list, the control. Every run has the memrep plugin
loaded (LD_PRELOAD; none with --built-in, where db_stress was built with
memrep inside RocksDB), a time limit, and an outcome:
  PASS   db_stress ended with status 0 and verified its expected state
  FAIL   any other end; its log is kept
  HANG   past the time limit: a backtrace of every thread is saved beside
         the log (gdb), then the process is killed
Configurations marked `known` in configs.py are RocksDB 7.8.3's own failures:
their outcome shows as e.g. "HANG (known)" and does not fail the matrix.

Lanes: `--lane short` (scripts/test.sh) fits the short configurations of
every rep into --budget seconds; `--lane long` runs everything, the control
included. At the end a table is printed and written to <out>/results.md and
<out>/results.json. Exit status: 0 when every run that counts passed.
"""

import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402

CONTROL = "skip_list"



# The options memrep.Auto runs with under db_stress: policy=rotate makes each
# memtable take the next candidate. (The crash lane runs it by name, with the
# cost policy, since db_crashtest.py hands the flag on through a shell.)
AUTO_STRESS_SPEC = "id=memrep.Auto;policy=rotate"

def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db_stress", required=True, help="the db_stress binary")
    p.add_argument("--crashtest", required=True, help="the patched tools/db_crashtest.py")
    p.add_argument("--plugin", help="libmemrep_rocksdb.so, loaded into every run")
    p.add_argument("--built-in", action="store_true",
                   help="db_stress has memrep compiled in (RocksDB built with "
                        "ROCKSDB_PLUGINS=memrep): nothing is preloaded")
    p.add_argument("--release", action="store_true",
                   help="db_stress was built with NDEBUG (RocksDB's release build), which "
                        "refuses fault injection on reads: it stays off")
    p.add_argument("--memrep_bench", required=True, help="memrep_bench, whose --list_reps names the reps")
    p.add_argument("--out", required=True, help="folder for databases, logs, backtraces and results")
    p.add_argument("--lane", choices=["short", "long"], default="short")
    p.add_argument("--budget", type=float, default=300,
                   help="short lane: seconds of runs for all reps together (default 300)")
    p.add_argument("--reps", help="comma-separated rep names (default: every registered rep)")
    p.add_argument("--configs", help="comma-separated configuration names (default: the lane's)")
    p.add_argument("--control", action=argparse.BooleanOptionalAction, default=None,
                   help="also run skip_list (default: in the long lane only)")
    p.add_argument("--jobs", type=int, default=1,
                   help="runs at once (default 1). A crash round lasts its duration whatever "
                        "its share of the cores, so two at once halve the short lane's time")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies every run's operations")
    p.add_argument("--timeout", type=float,
                   help="seconds before a run is a HANG (default: per configuration, "
                        "4x its usual time and at least 120; crash rounds their duration + 900)")
    return p.parse_args()


def list_reps(memrep_bench):
    """[(canonical name, [other names], traits)] of memrep's registered reps."""
    out = subprocess.run([memrep_bench, "--list_reps"], capture_output=True, text=True, check=True,
                         timeout=60, stdin=subprocess.DEVNULL).stdout
    reps = []
    for rep in json.loads(out)["reps"]:
        if rep["memrep"]:
            names = [rep["name"]] + rep["aliases"]
            reps.append((rep["canonical_name"], [n for n in names if n != rep["canonical_name"]],
                         rep["traits"]))
    if not reps:
        raise SystemExit(f"stress: {memrep_bench} --list_reps listed no memrep rep")
    return reps


class Runner:
    def __init__(self, a):
        a.out = os.path.abspath(a.out)  # db_stress and the crash driver run elsewhere too
        self.a = a
        if (a.plugin is None) == (not a.built_in):
            sys.exit("stress.py: give --plugin, or --built-in for a db_stress with memrep inside")
        preload = {} if a.built_in else {"LD_PRELOAD": os.path.abspath(a.plugin)}
        self.env = dict(os.environ, **preload)
        self.results = []  # main() fills it, in the plan's order
        os.makedirs(a.out, exist_ok=True)
        # db_crashtest.py runs whatever --stress_cmd names with the flags it
        # draws: a wrapper that loads the plugin (exec: the killed process is
        # db_stress itself).
        self.wrapper = os.path.join(a.out, "db_stress_with_plugin")
        with open(self.wrapper, "w") as f:
            f.write("#!/bin/sh\nexec env %s'%s' \"$@\"\n"
                    % ("".join(f"{k}='{v}' " for k, v in preload.items()),
                       os.path.abspath(a.db_stress)))
        os.chmod(self.wrapper, 0o755)

    def release_flags(self):
        """What a release db_stress (NDEBUG) needs: no fault injection on reads,
        which it cannot tell from real errors and refuses (RocksDB 11.8 refuses
        its default --metadata_read_fault_one_in=1000 too, where it has it)."""
        if not hasattr(self, "_release_flags"):
            self._release_flags = {"read_fault_one_in": 0}
            try:
                p = subprocess.run([os.path.abspath(self.a.db_stress), "--help"],
                                   capture_output=True, text=True, env=self.env, timeout=60,
                                   stdin=subprocess.DEVNULL)
                if re.search(r"^\s*-metadata_read_fault_one_in \(", p.stdout + p.stderr, re.M):
                    self._release_flags["metadata_read_fault_one_in"] = 0
            except (OSError, subprocess.SubprocessError):
                pass
        return self._release_flags

    def dirs(self, run_id):
        base = os.path.join(self.a.out, run_id)
        # A previous run's database, log and backtrace must not pass for this one's.
        subprocess.run(["rm", "-rf", base, base + ".log", base + ".log.bt"], check=True)
        os.makedirs(os.path.join(base, "expected"))
        return base

    def execute(self, cmd, log_path, timeout, cwd=None, env=None):
        """(outcome, seconds, exit code): runs cmd, its output to log_path."""
        start = time.monotonic()
        with open(log_path, "w") as log:
            log.write("$ " + " ".join(cmd) + "\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                                    env=env or self.env, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.backtrace(proc.pid, log_path + ".bt")
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return "HANG", time.monotonic() - start, None
        return ("PASS" if code == 0 else "FAIL"), time.monotonic() - start, code

    @staticmethod
    def backtrace(pid, path):
        """Every thread's stack of pid and of its descendants (db_crashtest's db_stress)."""
        pids = [pid]
        i = 0
        while i < len(pids):
            try:
                with open(f"/proc/{pids[i]}/task/{pids[i]}/children") as f:
                    pids += [int(c) for c in f.read().split()]
            except OSError:
                pass
            i += 1
        with open(path, "w") as out:
            for p in pids:
                out.write(f"=== pid {p}\n")
                out.flush()
                try:
                    subprocess.run(["gdb", "-p", str(p), "-batch", "-ex", "thread apply all bt"],
                                   stdout=out, stderr=subprocess.STDOUT, timeout=120)
                except (OSError, subprocess.SubprocessError) as e:
                    out.write(f"gdb failed: {e}\n")

    def db_stress(self, rep, config):
        # memrep.Auto under db_stress takes every candidate in turn, one per
        # memtable, so that the stress runs cross every switch of reps.
        spec = AUTO_STRESS_SPEC if rep == "memrep.Auto" else rep
        run_id = f"{config['name']}.{rep}"
        base = self.dirs(run_id)
        flags = dict(configs.BASE, **config["flags"])
        flags["ops_per_thread"] = max(100, int(flags["ops_per_thread"] * self.a.scale))
        flags = dict(dict(db=os.path.join(base, "db"), expected_values_dir=os.path.join(base, "expected")),
                     **flags, memtablerep=spec)
        if self.a.release:
            flags.update(self.release_flags())
        cmd = [os.path.abspath(self.a.db_stress)] + \
              [f"--{k}={v}" for k, v in flags.items() if v is not None]
        timeout = self.a.timeout or config.get("timeout_s", max(120, 4 * config["est_s"]))
        outcome, secs, code = self.execute(cmd, base + ".log", timeout)
        if outcome == "PASS":
            with open(base + ".log", errors="replace") as f:
                text = f.read()
            if "verification failed" in text or "Verification failed" in text:
                outcome = "FAIL"
        flushes = count_flushes(os.path.join(base, "db"))
        if outcome == "PASS":
            subprocess.run(["rm", "-rf", base], check=True)  # keep what failed
        return self.record(rep, config, outcome, secs, code, f"{flushes} flushes", base + ".log")

    def crash(self, rep, config):
        run_id = f"{config['name']}.{rep}"
        base = self.dirs(run_id)
        flags = dict(configs.CRASH_BASE, **config["flags"])
        flags["ops_per_thread"] = max(100, int(flags["ops_per_thread"] * self.a.scale))
        flags.update(memtablerep=rep, stress_cmd=self.wrapper)
        env = dict(os.environ, TEST_TMPDIR=base)  # the driver's databases go here
        if self.a.release:
            # DEBUG_LEVEL=0 makes db_crashtest.py draw no --read_fault_one_in;
            # RocksDB 10.4's driver still draws --metadata_read_fault_one_in,
            # which its release db_stress refuses, so the flags say it too.
            env["DEBUG_LEVEL"] = "0"
            flags.update(self.release_flags())
        cmd = [sys.executable, os.path.abspath(self.a.crashtest), config["mode"]] + \
              [f"--{k}={v}" for k, v in flags.items()]
        # db_crashtest.py's own limit: a round may run past its duration by
        # one db_stress run, and whitebox's FIFO check run verifies through
        # many files slowly (a skip_list round took over 420 s).
        timeout = self.a.timeout or flags["duration"] + 900
        outcome, secs, code = self.execute(cmd, base + ".log", timeout, env=env)
        with open(base + ".log", errors="replace") as f:
            text = f.read()
        # RocksDB 11.8's driver stops a run with SIGTERM first ("TERMINATED").
        kills = len(re.findall(r"^(?:KILLED|TERMINATED) \d+", text, re.M)) + \
            len(re.findall(r"kill option=\d+, exitcode=-", text))
        if outcome == "PASS" and config["mode"] == "blackbox" and "Final verification run passed" not in text:
            outcome = "FAIL"
        if outcome == "PASS":
            subprocess.run(["rm", "-rf", base], check=True)
        return self.record(rep, config, outcome, secs, code, f"{kills} kills", base + ".log")

    def record(self, rep, config, outcome, secs, code, detail, log):
        r = dict(config=config["name"], rep=rep, outcome=outcome, seconds=round(secs, 1),
                 exit_code=code, detail=detail, known=config.get("known"),
                 log=None if outcome == "PASS" else log)
        shown = outcome + (" (known)" if r["known"] and outcome != "PASS" else "")
        print(f"  {config['name']:<24} {rep:<20} {shown:<14} {secs:6.1f} s  {detail}"
              + ("" if outcome == "PASS" else f"  log: {log}"), flush=True)
        return r

    def check_names(self, reps):
        """Every name of every rep reaches db_stress; a bad one is an error."""
        print("names: every name and alias through db_stress --memtablerep", flush=True)
        ok = True
        cases = []
        for canonical, others, _ in reps:
            for name in [canonical, *others, f"id={canonical}"]:
                cases.append((name, canonical, True))
        cases.append(("memrep.NoSuchRep", None, False))
        for name, canonical, good in cases:
            base = self.dirs("names")
            # An expected-state folder, as every run has: RocksDB 10.4's
            # db_stress dereferences a null persisted sequence without one.
            os.makedirs(f"{base}/expected", exist_ok=True)
            cmd = [os.path.abspath(self.a.db_stress), f"--db={base}/db", f"--memtablerep={name}",
                   "--ops_per_thread=50", "--threads=1", "--max_key=1000", "--reopen=0",
                   "--column_families=1", "--destroy_db_initially=1",
                   f"--expected_values_dir={base}/expected", "--clear_column_family_one_in=0"]
            if self.a.release:
                cmd += [f"--{k}={v}" for k, v in self.release_flags().items()]
            p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=120,
                               stdin=subprocess.DEVNULL)
            used = ""
            for opt in sorted(os.listdir(f"{base}/db")) if os.path.isdir(f"{base}/db") else []:
                if opt.startswith("OPTIONS-"):
                    with open(f"{base}/db/{opt}") as f:
                        m = re.search(r"memtable_factory=\{id=([^;}]+)", f.read())
                        used = m.group(1) if m else used
            if good and (p.returncode != 0 or used != canonical):
                print(f"  FAIL {name!r}: exit {p.returncode}, memtable_factory id {used!r}, "
                      f"expected {canonical!r}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
                ok = False
            elif not good and (p.returncode == 0 or "Cannot create memtablerep" not in p.stderr):
                print(f"  FAIL {name!r}: a bad name must be an error, got exit {p.returncode}")
                ok = False
            else:
                print(f"  ok   {name!r}" + (f" -> {canonical}" if good else ": refused"))
        subprocess.run(["rm", "-rf", os.path.join(self.a.out, "names")], check=True)
        return ok


def count_flushes(db):
    n = 0
    if os.path.isdir(db):
        for name in os.listdir(db):
            if name.startswith("LOG"):
                with open(os.path.join(db, name), errors="replace") as f:
                    n += f.read().count('"event": "flush_finished"')
    return n


def plan(a, rep_names):
    """[(rep, config, kind)] in run order."""
    all_configs = [(c, "stress") for c in configs.CONFIGS + configs.KNOWN] + \
                  [(c, "crash") for c in configs.CRASH]
    if a.configs:
        wanted = a.configs.split(",")
        unknown = set(wanted) - {c["name"] for c, _ in all_configs}
        if unknown:
            raise SystemExit(f"stress: unknown configuration(s) {sorted(unknown)}; known: "
                             + ", ".join(c["name"] for c, _ in all_configs))
        chosen = [(c, k) for c, k in all_configs if c["name"] in wanted]
    elif a.lane == "long":
        chosen = all_configs
    else:
        # The short ones, in priority order, while the rep's share of the budget lasts.
        share = a.budget / max(1, len(rep_names))
        short = [(c, k) for c, k in all_configs if c["short"]]
        short.sort(key=lambda ck: 0 if ck[1] == "crash" else 1)  # a crash round first
        chosen, spent = [], 0.0
        for c, k in short:
            if spent + c["est_s"] * a.scale <= share or not chosen:
                chosen.append((c, k))
                spent += c["est_s"] * a.scale
    return [(rep, c, k) for c, k in chosen for rep in rep_names]


def table(results):
    lines = ["| configuration | rep | outcome | seconds | flushes / kills |",
             "|---|---|---|---:|---|"]
    for r in results:
        shown = r["outcome"] + (" (known)" if r["known"] and r["outcome"] != "PASS" else "")
        lines.append(f"| {r['config']} | {r['rep']} | {shown} | {r['seconds']} | {r['detail']} |")
    return "\n".join(lines)


def main():
    a = parse_args()
    reps = list_reps(a.memrep_bench)
    if a.reps:
        wanted = a.reps.split(",")
        reps = [r for r in reps if r[0] in wanted or set(r[1]) & set(wanted)]
        if CONTROL in wanted:
            a.control = True
        if not reps and not a.control:
            raise SystemExit(f"stress: no registered rep is named in --reps={a.reps}")
    runner = Runner(a)
    start = time.monotonic()
    ok = runner.check_names(reps) if reps else True
    rep_names = [r[0] for r in reps]
    if a.control if a.control is not None else a.lane == "long":
        rep_names.append(CONTROL)
    runs = plan(a, rep_names)
    print(f"{a.lane} lane: {len(runs)} runs ({', '.join(sorted({c['name'] for _, c, _ in runs}))})",
          flush=True)
    def run(r):
        rep, config, kind = r
        return (runner.crash if kind == "crash" else runner.db_stress)(rep, config)
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        runner.results = list(pool.map(run, runs))  # in the plan's order
    bad = [r for r in runner.results if r["outcome"] != "PASS" and not r["known"]]
    md = table(runner.results)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(md + "\n")
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(dict(lane=a.lane, seconds=round(time.monotonic() - start, 1),
                       results=runner.results), f, indent=1)
    print("\n" + md)
    print(f"\n{len(runner.results)} runs in {time.monotonic() - start:.0f} s; "
          f"{len(bad)} failed or hung" + ("" if ok else "; a rep's name did not reach db_stress"))
    for r in bad:
        print(f"  {r['outcome']}: {r['config']} with {r['rep']}: {r['log']}")
    return 0 if ok and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
