#!/usr/bin/env python3
"""Tests of what report.py runs: the plan of each mode (sizes, repetitions,
--num-override), its flags, and the nimbus part's invocations of a stand-in
memrep_nimbus_import that records its arguments (or fails).

Run: python3 -B bench/report/report_run_test.py   (ctest runs it as report_run_test)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import report  # noqa: E402
from report_test import canned_nimbus_runs, row_of  # noqa: E402


class Plan(unittest.TestCase):
    def test_full_plan_sizes(self):
        runs, db = report.plan("full")
        rep = [r for r in runs if r["part"] == "rep"]
        self.assertIn((10_000_000, 0), {(r["num"], r["item_size"]) for r in rep})
        self.assertIn((10_000_000, 100), {(r["num"], r["item_size"]) for r in rep})
        sizes = {r["num"] for r in runs}
        for n in (100_000, 300_000, 1_000_000, 3_000_000, 10_000_000):
            self.assertIn(n, sizes)
        self.assertEqual(db, {"num": 1_000_000, "repeats": 2})
        readseq = [r for r in runs if r["workloads"] == ["readseq"]]
        self.assertTrue(readseq and all(r["extra"] == ["--num_scans=1"] for r in readseq))

    def test_nimbus_plan(self):
        short = report.nimbus_plan("short")
        self.assertEqual([r["flags"] for r in short],
                         [{"records": 200_000, "runs": 1, "reads": 100}])
        self.assertEqual(short[0]["uses"], ["import", "reads"])
        full = {r["name"]: r for r in report.nimbus_plan("full")}
        self.assertEqual(full["nimbus_reads"]["flags"],
                         {"reps": "skip_list,memrep.Vector,memrep.SortedHash"})
        self.assertEqual(full["nimbus_reads"]["uses"], ["reads"])
        self.assertEqual(full["nimbus_import"]["flags"], {"reads": 0})  # every default rep
        self.assertEqual(full["nimbus_import"]["uses"], ["import"])
        tiny = report.nimbus_plan("short", num_override=2000, repeats_override=2)[0]["flags"]
        self.assertEqual(tiny, {"records": 2000, "runs": 2, "reads": 100, "batch": 50})

    def test_nimbus_flags(self):
        a = report.parse_args(["--short", "--build-dir", "/b"])
        self.assertIn("nimbus", a.parts)
        self.assertEqual(a.nimbus, "/b/bench/memrep_nimbus_import")
        a = report.parse_args(["--short", "--parts", "nimbus", "--nimbus", "/x/nim"])
        self.assertEqual((a.parts, a.nimbus), (["nimbus"], "/x/nim"))

    def test_num_override_shrinks_everything(self):
        runs, db = report.plan("short", num_override=2000, repeats_override=1)
        self.assertEqual(max(r["num"] for r in runs), 2000)
        self.assertEqual(db["num"], 2000)
        self.assertTrue(all(r["repeats"] == 1 for r in runs))


class NimbusRun(unittest.TestCase):
    """report.py --parts nimbus with a stand-in memrep_nimbus_import that
    records its arguments and writes canned JSON (or fails)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fake = os.path.join(self.tmp.name, "memrep_nimbus_import")
        data = canned_nimbus_runs()[1]["data"]
        with open(self.fake, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> \"$(dirname \"$0\")/args\"\n"
                    "test -n \"$FAIL\" && { echo 'memrep_nimbus_import: boom' >&2; exit 1; }\n"
                    "for a; do case $a in --json=*) json=${a#--json=};; esac; done\n"
                    "cat > \"$json\" <<'EOF'\n" + json.dumps(data) + "\nEOF\n")
        os.chmod(self.fake, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *flags, fail=False):
        out = os.path.join(self.tmp.name, "out")
        env = dict(os.environ, FAIL="1" if fail else "")
        p = subprocess.run([sys.executable, "-B", os.path.join(HERE, "report.py"), *flags,
                            "--parts", "nimbus", "--nimbus", self.fake, "--out", out,
                            "--no-plots"], capture_output=True, text=True, env=env)
        with open(os.path.join(out, "benchmarks.md")) as f:
            md = f.read()
        with open(os.path.join(self.tmp.name, "args")) as f:
            args = f.read().splitlines()
        return p, md, args

    def test_full_runs_two_invocations(self):
        p, md, args = self.report("--full")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(args), 2)
        self.assertTrue(args[0].startswith("--reps=skip_list,memrep.Vector,memrep.SortedHash "
                                           "--db="), args[0])
        self.assertTrue(args[1].startswith("--reads=0 --db="), args[1])
        self.assertIn("--json=", args[1])
        self.assertIn("**met** |", row_of(md, "| import time (import_s) over `skip_list`'s"))
        self.assertIn("import_s / vector", p.stdout)  # the terminal summary
        # The stand-in wrote the import run's JSON twice: no reads figures.
        self.assertIn("**not measured** |", row_of(md, "| recent reads/s"))

    def test_a_failing_program_is_a_failure(self):
        p, md, args = self.report("--short", fail=True)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(args[0][:len("--records=200000 --runs=1 --reads=100 --db=")],
                         "--records=200000 --runs=1 --reads=100 --db=")
        self.assertIn("memrep_nimbus_import: boom", md.split("## Failures")[1])
        self.assertIn("**not measured** |", row_of(md, "| persist p99 (persist_p99_ms)"))


if __name__ == "__main__":
    unittest.main()
