#!/usr/bin/env python3
"""Runs RocksDB's own DB tests with each memrep rep in place of the default memtable.

Every test binary (built by scripts/rocksdb-tests.sh from the installed
librocksdb's source, with tests/rocksdb_tests/patches/) runs once with the skip
list, the control (MEMREP_TEST_MEMTABLE unset), and once per rep
(MEMREP_TEST_MEMTABLE=<rep>), always with the plugin preloaded. The reps come
from `memrep_bench --list_reps`, so a new rep joins by registering.

A binary's tests are listed (--gtest_list_tests), cut into shards of at most
--shard tests, and each shard runs as one process (--gtest_filter naming its
tests) with its own TEST_TMPDIR and a time limit; --jobs processes at a time.
Each test ends as
  PASS     gtest printed OK
  FAIL     gtest printed FAILED; its first failure lines are kept
  CRASH    the process died inside it (an assertion, a signal); the rest of
           the shard runs again in a new process
  TIMEOUT  it ran past --test_timeout seconds without a gtest line (or the
           process past --timeout): every thread's stack is saved beside
           the log, the process killed, and the rest runs again
A test counts against a rep when it passes with the skip list and not with
the rep, unless the refusals file lists it (`rep test reason`, a test name
or an fnmatch pattern). Results: <out>/results.md, <out>/results.json, and
the log of every shard that did not pass under <out>/logs/. Exit status 0
when nothing counts against a rep.
"""

import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suites  # noqa: E402

CONTROL = "skip_list"
NOTICE = re.compile(r"^memrep: (\S+) replaces the default skip list$", re.M)
HARNESS_ABORT = "memrep: MEMREP_TEST_MEMTABLE="
SOURCE_PREFIX = re.compile(r"\S*/rocksdb-[^/\s]+/(?=\S)")  # .../rocksdb-7.8.3-2/db/x.cc -> db/x.cc


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin_dir", required=True, help="the folder of the built test binaries")
    p.add_argument("--plugin", required=True, help="libmemrep_rocksdb.so, preloaded into every run")
    p.add_argument("--memrep_bench", required=True, help="memrep_bench, whose --list_reps names the reps")
    p.add_argument("--out", required=True, help="folder for logs, databases and results")
    p.add_argument("--long", action="store_true", help="every test of every binary in suites.LONG")
    p.add_argument("--reps", help="comma-separated reps (names or aliases; default: every registered "
                                  "rep); skip_list among them is the control")
    p.add_argument("--control", action=argparse.BooleanOptionalAction, default=True,
                   help="run skip_list too (default); without it every failure counts")
    p.add_argument("--tests", help="comma-separated binaries (default: the mode's)")
    p.add_argument("--filter", help="a gtest filter, applied within the mode's tests "
                                    "(with --tests: within all of those binaries' tests)")
    p.add_argument("--refusals", help="file of `rep test reason` lines that do not count")
    p.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    p.add_argument("--shard", type=int, default=40, help="tests per process at most (default 40)")
    p.add_argument("--test_timeout", type=float, default=120,
                   help="seconds a test may run before it is a TIMEOUT (default 120; the longest "
                        "test of the long set takes about 25 s)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds a process may run (default 1800)")
    p.add_argument("--tmp", help="TEST_TMPDIR's parent (default: <out>/tmp)")
    return p.parse_args()


def list_reps(memrep_bench, wanted):
    """The canonical names of the reps to run, in the registry's order."""
    out = subprocess.run([memrep_bench, "--list_reps"], capture_output=True, text=True, check=True,
                         timeout=60, stdin=subprocess.DEVNULL).stdout
    reps = [r for r in json.loads(out)["reps"] if r["memrep"]]
    if not reps:
        sys.exit(f"rocksdb-tests: {memrep_bench} --list_reps listed no memrep rep")
    if wanted is None:
        return [r["canonical_name"] for r in reps]
    chosen = []
    for name in wanted:
        if name == CONTROL:
            continue
        match = [r for r in reps if name in [r["canonical_name"], r["name"], *r["aliases"]]]
        if not match:
            sys.exit(f"rocksdb-tests: no registered rep is named {name!r}; reps: "
                     + ", ".join(r["canonical_name"] for r in reps))
        chosen.append(match[0]["canonical_name"])
    return chosen


def list_tests(binary, gtest_filter):
    """The test names a gtest filter selects in a binary, DISABLED_ ones left out."""
    out = subprocess.run([binary, "--gtest_list_tests", f"--gtest_filter={gtest_filter}"],
                         capture_output=True, text=True, check=True, timeout=120,
                         stdin=subprocess.DEVNULL).stdout
    tests, suite = [], ""
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            name = suite + line.split("#")[0].strip()
            if "DISABLED_" not in name:
                tests.append(name)
    return tests


def read_refusals(path):
    refusals = []
    if path and os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split(None, 2)
                if len(parts) < 3:
                    sys.exit(f"rocksdb-tests: {path}:{n}: want `rep test reason`, got {line!r}")
                refusals.append(dict(rep=parts[0], test=parts[1], reason=parts[2]))
    return refusals


def refused(refusals, rep, test):
    for r in refusals:
        if r["rep"] in (rep, "*") and fnmatch.fnmatchcase(test, r["test"]):
            return r
    return None


def excerpt(lines, outcome):
    """The first lines that say what went wrong in a test's output."""
    lines = [x for x in lines if not NOTICE.match(x)]
    out = []
    for i, line in enumerate(lines):
        if re.search(r":\d+: Failure$", line):  # gtest's first failed assertion
            out = [line] + [x for x in lines[i + 1:i + 6] if not x.startswith("[")][:4]
            break
    if outcome == "FAIL":
        return out
    keys = ("Assertion", "Received signal", "terminate called", "what():", "AddressSanitizer",
            "Segmentation", "Aborted", "invalid pointer", "double free", "memrep:")
    out += [x for x in lines if any(k in x for k in keys) and not x.startswith("#")][:3]
    return out or lines[-5:]


def ending(code):
    if code is not None and code < 0:
        try:
            return f"the process died of {signal.Signals(-code).name}"
        except ValueError:
            return f"the process died of signal {-code}"
    return f"the process exited with status {code}"


class Runner:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ, LD_PRELOAD=os.path.abspath(a.plugin), GTEST_COLOR="no")
        self.env.pop("MEMREP_TEST_MEMTABLE", None)
        self.logs = os.path.join(a.out, "logs")
        # Only this folder is removed (--tmp may name a shared one such as /dev/shm).
        self.tmp = os.path.join(os.path.abspath(a.tmp), "memrep-rocksdb-tests") if a.tmp \
            else os.path.join(a.out, "tmp")
        self.substituted = {}  # rep -> names the harness said it substituted

    def run_shard(self, rep, binary, index, tests):
        """{test: result} for one shard, rerunning what a crash or a timeout left."""
        results, left, attempt = {}, list(tests), 0
        name = os.path.basename(binary)
        env = dict(self.env)
        if rep != CONTROL:
            env["MEMREP_TEST_MEMTABLE"] = rep
        tmp = os.path.join(self.tmp, rep, f"{name}.{index}")
        while left:
            log = os.path.join(self.logs, rep, f"{name}.{index}" + (f".{attempt}" if attempt else "") + ".log")
            os.makedirs(os.path.dirname(log), exist_ok=True)
            subprocess.run(["rm", "-rf", tmp], check=True)
            os.makedirs(tmp)
            env["TEST_TMPDIR"] = tmp
            cmd = [binary, "--gtest_filter=" + ":".join(left)]
            start = time.monotonic()
            timed_out = False
            with open(log, "w") as f:
                f.write(f"$ MEMREP_TEST_MEMTABLE={env.get('MEMREP_TEST_MEMTABLE', '')} "
                        f"TEST_TMPDIR={tmp} {binary} --gtest_filter=...  ({len(left)} tests)\n")
                f.flush()
                proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
                code, timed_out = self.wait(proc, log, start)
            with open(log, errors="replace") as f:
                text = f.read()
            if rep != CONTROL:
                self.substituted.setdefault(rep, set()).update(NOTICE.findall(text))
            done = self.parse(text, rep, log, code, timed_out)
            if not done and HARNESS_ABORT in text:
                raise SystemExit(f"rocksdb-tests: the harness could not make {rep!r}'s factory "
                                 f"(is the plugin loaded?); see {log}")
            results.update(done)
            if code != 0 and not timed_out and all(r["outcome"] == "PASS" for r in done.values()):
                # Died between tests or at exit: a result of the shard's own.
                results[f"{name}(shard {index}) exit"] = dict(
                    outcome="CRASH", seconds=0.0, log=log,
                    excerpt=[f"{ending(code)} after its tests passed"]
                    + excerpt(text.splitlines()[-40:], "CRASH"))
            if code == 0 and not timed_out:
                missing = [t for t in left if t not in results]
                for t in missing:  # gtest ran fewer tests than it was given
                    results[t] = dict(outcome="FAIL", seconds=0.0, log=log,
                                      excerpt=["not run by the binary (no such test?)"])
                break
            ran = [t for t in left if t in results]
            if not ran:  # died before its first test: every one counts as such
                for t in left:
                    results[t] = dict(outcome="CRASH", seconds=0.0, log=log,
                                      excerpt=excerpt(text.splitlines(), "CRASH") + [ending(code)])
                break
            left = [t for t in left if t not in results]
            attempt += 1
            if left:
                    print(f"  {rep:<18} {name}.{index}: ended {'by the time limit' if timed_out else f'with {code}'}"
                      f" after {time.monotonic() - start:.0f} s; {len(left)} tests left", flush=True)
        if all(r["outcome"] == "PASS" for r in results.values()):
            subprocess.run(["rm", "-rf", tmp], check=True)
            for f in os.listdir(os.path.dirname(log)):
                if f.startswith(f"{name}.{index}.") and f.endswith(".log"):
                    os.remove(os.path.join(os.path.dirname(log), f))
        return results

    def wait(self, proc, log, start):
        """(exit code, timed out): waits for proc while its tests make progress."""
        progress, pos = start, 0
        while True:
            try:
                return proc.wait(timeout=1), False
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            with open(log, "rb") as f:  # a gtest line ([ RUN ], [ OK ], [ FAILED ]) is progress
                f.seek(pos)
                chunk = f.read()
            pos += len(chunk)
            if b"\n[ " in chunk:
                progress = now
            if now - progress > self.a.test_timeout or now - start > self.a.timeout:
                break
        with open(log + ".bt", "w") as bt:
            subprocess.run(["gdb", "-p", str(proc.pid), "-batch", "-ex", "thread apply all bt"],
                           stdout=bt, stderr=subprocess.STDOUT, timeout=120)
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(), True

    def parse(self, text, rep, log, code, timed_out):
        """{test: result} from one process's gtest output."""
        results, current, lines = {}, None, []
        for line in text.splitlines():
            m = re.match(r"^\[ RUN      \] (\S+)$", line)
            if m:
                current, lines = m.group(1), []
                continue
            m = re.match(r"^\[ +(OK|FAILED) +\] ([^\s,]+)(?:, where .*)? \((\d+) ms\)$", line)
            if m and m.group(2) == current:
                outcome = "PASS" if m.group(1) == "OK" else "FAIL"
                results[current] = dict(outcome=outcome, seconds=int(m.group(3)) / 1000, log=log,
                                        excerpt=excerpt(lines, outcome) if outcome == "FAIL" else [])
                current = None
                continue
            if current:
                lines.append(line)
        if current:  # the process ended inside it
            outcome = "TIMEOUT" if timed_out else "CRASH"
            ex = excerpt(lines, outcome) + [ending(code)] if not timed_out else \
                [f"no progress for {self.a.test_timeout:.0f} s (or the process past {self.a.timeout:.0f} s); "
                 f"every thread's stack: {os.path.relpath(log, self.a.out)}.bt"] + \
                (excerpt(lines, "FAIL") if any(re.search(r":\d+: Failure$", x) for x in lines) else [])
            results[current] = dict(outcome=outcome, seconds=None, log=log, excerpt=ex)
        return results


def table(a, reps, tests, outcomes, counted, refusals_hit, seconds):
    lines = ["# RocksDB's DB tests with memrep's reps", "",
             f"Mode: {'--long' if a.long else 'CI subset'}; binaries: "
             + ", ".join(sorted({b for b, _ in tests})) + f"; {len(tests)} tests; {seconds:.0f} s.", "",
             "| rep | passed | failed | against the skip list | refused | failing tests |",
             "|---|---:|---:|---:|---:|---|"]
    for rep in reps:
        res = outcomes[rep]
        bad = sorted(t for t, r in res.items() if r["outcome"] != "PASS")
        lines.append(f"| {rep} | {len(res) - len(bad)} | {len(bad)} | {len(counted[rep])} | "
                     f"{len(refusals_hit[rep])} | {', '.join(bad) if bad else '-'} |")
    for rep in reps:
        bad = sorted(t for t, r in outcomes[rep].items() if r["outcome"] != "PASS")
        if not bad:
            continue
        lines += ["", f"## {rep}", ""]
        for t in bad:
            r = outcomes[rep][t]
            why = " (fails with the skip list too)" if rep != CONTROL and t not in counted[rep] \
                and t not in refusals_hit[rep] else ""
            if t in refusals_hit[rep]:
                why = f" (refused: {refusals_hit[rep][t]})"
            lines.append(f"- `{t}` {r['outcome']}{why}")
            for x in r["excerpt"]:
                x = SOURCE_PREFIX.sub("", x.strip())[:300]
                lines.append(f"  `{x}`")
    return "\n".join(lines) + "\n"


def main():
    a = parse_args()
    a.out = os.path.abspath(a.out)
    wanted = a.reps.split(",") if a.reps else None
    reps = list_reps(a.memrep_bench, wanted)
    control = a.control
    names = ([CONTROL] if control else []) + reps
    if a.tests:
        binaries = {b: "*" for b in a.tests.split(",")}
    else:
        binaries = {b: "*" for b in suites.LONG} if a.long else dict(suites.CI)
    tests = []  # (binary, test)
    for b, f in binaries.items():
        path = os.path.join(a.bin_dir, b)
        if not os.access(path, os.X_OK):
            sys.exit(f"rocksdb-tests: no test binary {path} (scripts/rocksdb-tests.sh builds it)")
        chosen = list_tests(path, f)
        if a.filter:
            also = set(list_tests(path, a.filter))
            chosen = [t for t in chosen if t in also]
        tests += [(b, t) for t in chosen]
    if not tests:
        sys.exit("rocksdb-tests: the filters select no test")
    refusals = read_refusals(a.refusals)
    runner = Runner(a)
    subprocess.run(["rm", "-rf", runner.logs, runner.tmp], check=True)
    shards = []  # (rep, binary path, index, tests)
    for b in binaries:
        mine = [t for bb, t in tests if bb == b]
        for i in range(0, len(mine), max(1, a.shard)):
            for rep in names:
                shards.append((rep, os.path.join(a.bin_dir, b), i // a.shard, mine[i:i + a.shard]))
    print(f"rocksdb-tests: {len(tests)} tests in {len(binaries)} binaries, for {', '.join(names)}: "
          f"{len(shards)} processes, {a.jobs} at a time", flush=True)
    start = time.monotonic()
    outcomes = {rep: {} for rep in names}
    pool = concurrent.futures.ThreadPoolExecutor(max(1, a.jobs))
    futures = {pool.submit(runner.run_shard, *s): s for s in shards}
    for fut in concurrent.futures.as_completed(futures):
        rep, binary, index, _ = futures[fut]
        try:
            res = fut.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        outcomes[rep].update(res)
        bad = [t for t, r in res.items() if r["outcome"] != "PASS"]
        print(f"  {rep:<18} {os.path.basename(binary)}.{index}: {len(res) - len(bad)} passed"
              + (f", not passed: {' '.join(bad)}" if bad else ""), flush=True)
    pool.shutdown()
    seconds = time.monotonic() - start
    counted = {rep: [] for rep in names}
    refusals_hit = {rep: {} for rep in names}
    for rep in reps:
        for t, r in outcomes[rep].items():
            if r["outcome"] == "PASS":
                continue
            if control and outcomes[CONTROL].get(t, {}).get("outcome") != "PASS":
                continue  # RocksDB's own failure here
            hit = refused(refusals, rep, t)
            if hit:
                refusals_hit[rep][t] = hit["reason"]
            else:
                counted[rep].append(t)
    never = [rep for rep in reps if not runner.substituted.get(rep)]
    wrong = {rep: sorted(s) for rep, s in runner.substituted.items() if s - {rep}}
    md = table(a, names, tests, outcomes, counted, refusals_hit, seconds)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(dict(long=a.long, seconds=round(seconds, 1), reps=names,
                       results={rep: outcomes[rep] for rep in names},
                       counted=counted, refused=refusals_hit), f, indent=1)
    print("\n" + md)
    total = sum(len(c) for c in counted.values())
    print(f"rocksdb-tests: {len(tests)} tests x {len(names)} in {seconds:.0f} s; "
          f"{total} failures with a rep where the skip list passes; results in {a.out}/results.md")
    for rep in never:
        print(f"rocksdb-tests: the harness never substituted {rep} (no 'replaces the default skip "
              f"list' notice in any run)", file=sys.stderr)
    for rep, got in wrong.items():
        print(f"rocksdb-tests: asked for {rep}, the harness substituted {got}", file=sys.stderr)
    return 0 if total == 0 and not never and not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
