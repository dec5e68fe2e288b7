#!/usr/bin/env python3
"""Tests of the stress matrix's runner (stress.py) with a fake db_stress:
which runs the lanes choose, and how a run's end becomes its outcome."""

import os
import shutil
import stat
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import stress  # noqa: E402


def args(**kw):
    base = dict(lane="short", budget=300, configs=None, scale=1.0, timeout=None, control=None,
                plugin=None, built_in=False, release=False)
    base.update(kw)
    return types.SimpleNamespace(**base)


class PlanTest(unittest.TestCase):
    def test_short_lane_fits_its_budget_for_any_number_of_reps(self):
        for n in range(1, 9):
            reps = [f"rep{i}" for i in range(n)]
            runs = stress.plan(args(), reps)
            for rep in reps:
                mine = [c for r, c, _ in runs if r == rep]
                self.assertGreaterEqual(len(mine), 1, f"{n} reps: {rep} got no run")
                spent = sum(c["est_s"] for c in mine)
                self.assertTrue(spent <= 300 / n or len(mine) == 1,
                                f"{n} reps: {rep} got {spent} s of runs, over its share")
            self.assertTrue(all(c["short"] for _, c, _ in runs))

    def test_short_lane_runs_a_crash_round_first(self):
        runs = stress.plan(args(), ["a"])
        self.assertEqual(runs[0][2], "crash")

    def test_long_lane_runs_everything_for_every_rep(self):
        runs = stress.plan(args(lane="long"), ["a", "skip_list"])
        every = configs.CONFIGS + configs.KNOWN + configs.CRASH
        self.assertEqual(len(runs), 2 * len(every))

    def test_unknown_configuration_is_an_error(self):
        with self.assertRaises(SystemExit):
            stress.plan(args(configs="no_such_config"), ["a"])

    def test_configurations_are_well_formed(self):
        names = [c["name"] for c in configs.CONFIGS + configs.KNOWN + configs.CRASH]
        self.assertEqual(len(names), len(set(names)))
        for c in configs.CONFIGS + configs.KNOWN + configs.CRASH:
            self.assertTrue(c["doc"], c["name"])
            self.assertGreater(c["est_s"], 0, c["name"])
        for c in configs.KNOWN:
            self.assertTrue(c["known"], c["name"])

    def test_docs_list_every_configuration(self):
        docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "README.md")
        with open(docs) as f:
            text = f.read()
        for c in configs.CONFIGS + configs.KNOWN + configs.CRASH:
            self.assertIn(c["name"], text, "tests/stress/README.md does not describe this configuration")


class OutcomeTest(unittest.TestCase):
    """A fake db_stress whose behaviour the test picks through FAKE_MODE."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.fake = os.path.join(self.dir, "db_stress")
        with open(self.fake, "w") as f:
            f.write("#!/bin/sh\n"
                    "if [ \"$1\" = --help ]; then\n"
                    "  [ -n \"$FAKE_METADATA\" ] && echo '    -metadata_read_fault_one_in (x)'\n"
                    "  exit 1\n"
                    "fi\n"
                    "case \"$FAKE_MODE\" in\n"
                    "  pass) echo 'Verification successful'; exit 0 ;;\n"
                    "  args) echo \"$@\"; echo 'Verification successful'; exit 0 ;;\n"
                    "  exit1) echo 'error : inconsistent values'; exit 1 ;;\n"
                    "  printed) echo 'Verification failed :('; exit 0 ;;\n"
                    "  hang) sleep 60 ;;\n"
                    "esac\n")
        os.chmod(self.fake, os.stat(self.fake).st_mode | stat.S_IEXEC)
        plugin = os.path.join(self.dir, "plugin.so")
        open(plugin, "w").close()
        a = args(db_stress=self.fake, crashtest="unused", plugin=plugin, memrep_bench="unused",
                 out=os.path.join(self.dir, "out"), timeout=None)
        self.runner = stress.Runner(a)
        self.config = dict(name="fake", est_s=1, doc="a fake", flags={"ops_per_thread": 100})

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_fake(self, mode, **config):
        os.environ["FAKE_MODE"] = mode
        self.runner.env["FAKE_MODE"] = mode
        return self.runner.db_stress("memrep.Fake", dict(self.config, **config))

    def test_the_plugin_is_preloaded_unless_built_in(self):
        with open(self.runner.wrapper) as f:
            self.assertIn("LD_PRELOAD=", f.read())
        self.assertIn("LD_PRELOAD", self.runner.env)
        built_in = stress.Runner(args(db_stress=self.fake, crashtest="unused", built_in=True,
                                      memrep_bench="unused", out=os.path.join(self.dir, "in")))
        with open(built_in.wrapper) as f:
            self.assertNotIn("LD_PRELOAD", f.read())
        self.assertEqual(built_in.env.get("LD_PRELOAD"), os.environ.get("LD_PRELOAD"))
        with self.assertRaises(SystemExit):  # neither a plugin nor built in
            stress.Runner(args(db_stress=self.fake, crashtest="unused", memrep_bench="unused",
                               out=os.path.join(self.dir, "neither")))

    def test_a_release_db_stress_runs_without_fault_injection_on_reads(self):
        for release, want in ((False, False), (True, True)):
            self.runner.a.release = release
            r = self.run_fake("args")
            self.assertEqual(r["outcome"], "PASS")
            with open(os.path.join(self.dir, "out", "fake.memrep.Fake.log")) as f:
                text = f.read()
            self.assertEqual("--read_fault_one_in=0" in text, want)
            self.assertNotIn("--metadata_read_fault_one_in", text)  # this db_stress lacks it

    def test_a_release_db_stress_that_has_metadata_read_faults_runs_without_them(self):
        self.runner.env["FAKE_METADATA"] = "1"
        self.runner.a.release = True
        r = self.run_fake("args")
        self.assertEqual(r["outcome"], "PASS")
        with open(os.path.join(self.dir, "out", "fake.memrep.Fake.log")) as f:
            text = f.read()
        self.assertIn("--read_fault_one_in=0", text)
        self.assertIn("--metadata_read_fault_one_in=0", text)

    def test_a_release_crash_round_tells_the_driver_no_read_faults(self):
        # A fake driver that prints its arguments and passes its final check.
        driver = os.path.join(self.dir, "db_crashtest.py")
        with open(driver, "w") as f:
            f.write("import sys\nprint(' '.join(sys.argv[1:]))\n"
                    "print('Final verification run passed')\n")
        self.runner.a.crashtest = driver
        self.runner.env["FAKE_METADATA"] = "1"
        config = dict(self.config, mode="blackbox", flags={"ops_per_thread": 100, "duration": 1})
        for release in (False, True):
            self.runner.a.release = release
            r = self.runner.crash("memrep.Fake", config)
            self.assertEqual(r["outcome"], "PASS")
            with open(os.path.join(self.dir, "out", "fake.memrep.Fake.log")) as f:
                text = f.read()
            self.assertEqual("--metadata_read_fault_one_in=0" in text, release)
            self.assertEqual("--read_fault_one_in=0" in text, release)

    def test_clean_exit_passes_and_leaves_nothing(self):
        r = self.run_fake("pass")
        self.assertEqual(r["outcome"], "PASS")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out", "fake.memrep.Fake")))

    def test_nonzero_exit_fails_and_keeps_the_log(self):
        r = self.run_fake("exit1")
        self.assertEqual(r["outcome"], "FAIL")
        self.assertEqual(r["exit_code"], 1)
        with open(r["log"]) as f:
            self.assertIn("inconsistent values", f.read())

    def test_a_printed_verification_failure_fails_despite_exit_0(self):
        self.assertEqual(self.run_fake("printed")["outcome"], "FAIL")

    def test_past_the_time_limit_is_a_hang_with_a_backtrace(self):
        r = self.run_fake("hang", timeout_s=1)
        self.assertEqual(r["outcome"], "HANG")
        self.assertTrue(os.path.exists(r["log"] + ".bt"))

    def test_the_command_names_the_rep(self):
        r = self.run_fake("exit1")
        with open(r["log"]) as f:
            self.assertIn("--memtablerep=memrep.Fake", f.readline())

    def test_auto_runs_every_candidate_in_turn(self):
        os.environ["FAKE_MODE"] = "exit1"
        self.runner.env["FAKE_MODE"] = "exit1"
        r = self.runner.db_stress("memrep.Auto", dict(self.config))
        with open(r["log"]) as f:
            self.assertIn("--memtablerep=id=memrep.Auto;policy=rotate", f.readline())


if __name__ == "__main__":
    unittest.main()
