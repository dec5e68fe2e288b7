#!/usr/bin/env python3
"""Tests of db_bench_compare.py without a db_bench run: a plugin rep's
traits from a stand-in memrep_bench, --checks with a stand-in db_bench's
--help, and the found counts every rep must share.

Run: python3 -B bench/report/db_bench_compare_test.py   (ctest runs it as
report_db_bench_compare_test)
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import db_bench_compare  # noqa: E402


class DbBenchCompareTraits(unittest.TestCase):
    """A plugin rep's traits come from `memrep_bench --list_reps`, found beside
    the plugin as in a build tree (<build>/rocksdb/lib.so, <build>/bench/memrep_bench)."""

    LISTED = {"reps": [
        {"name": "serial", "canonical_name": "test.Serial", "aliases": ["test_serial"],
         "memrep": True, "description": "", "traits": {
             "concurrent_insert": False, "point_read_while_mutable": "constant"}},
        {"name": "parallel", "canonical_name": "test.Parallel", "aliases": [], "memrep": True,
         "description": "", "traits": {
             "concurrent_insert": True, "point_read_while_mutable": "constant"}}]}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        build = self.tmp.name
        os.makedirs(os.path.join(build, "rocksdb"))
        os.makedirs(os.path.join(build, "bench"))
        self.plugin = os.path.join(build, "rocksdb", "libplugin.so")
        open(self.plugin, "w").close()
        self.memrep_bench = os.path.join(build, "bench", "memrep_bench")
        with open(self.memrep_bench, "w") as f:
            f.write("#!/bin/sh\ntest \"$1\" = --list_reps || exit 2\ncat <<'EOF'\n" +
                    json.dumps(self.LISTED) + "\nEOF\n")
        os.chmod(self.memrep_bench, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def commands(self, reps, *extra):
        """{rep: its db_bench argv} and what the script printed on stderr."""
        a = db_bench_compare.parse_args(["--reps", reps, "--plugin", self.plugin,
                                         "--db-bench", sys.executable, *extra])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            db_bench_compare.validate(a)
        return ({r: db_bench_compare.build_command(a, "fillrandom", r, 0, "/tmp/db")[0]
                 for r in a.reps}, err.getvalue())

    def test_traits_from_list_reps_beside_the_plugin(self):
        cmds, err = self.commands("skip_list,prefix_hash,test.Serial,parallel,"
                                  "id=test_serial;x=1,test.Serial:4")
        no_concurrency = "--allow_concurrent_memtable_write=false"
        self.assertNotIn(no_concurrency, cmds["skip_list"])
        self.assertIn(no_concurrency, cmds["prefix_hash"])
        self.assertIn(no_concurrency, cmds["test.Serial"])
        self.assertIn(no_concurrency, cmds["id=test_serial;x=1"])
        self.assertIn(no_concurrency, cmds["test.Serial:4"])
        self.assertNotIn(no_concurrency, cmds["parallel"])
        self.assertNotIn("note:", err)

    def test_an_unlisted_rep_is_assumed_concurrent_with_a_note(self):
        cmds, err = self.commands("skip_list,other.Rep")
        self.assertNotIn("--allow_concurrent_memtable_write=false", cmds["other.Rep"])
        self.assertIn("note:", err)
        self.assertIn("other.Rep", err)

    def test_without_memrep_bench_plugin_reps_are_assumed_concurrent(self):
        os.remove(self.memrep_bench)
        cmds, err = self.commands("skip_list,test.Serial")
        self.assertNotIn("--allow_concurrent_memtable_write=false", cmds["test.Serial"])
        self.assertIn("note:", err)
        self.assertIn("--memrep-bench", err)

    def test_memrep_bench_flag(self):
        elsewhere = os.path.join(self.tmp.name, "memrep_bench_elsewhere")
        os.rename(self.memrep_bench, elsewhere)
        cmds, _ = self.commands("test.Serial", "--memrep-bench", elsewhere)
        self.assertIn("--allow_concurrent_memtable_write=false", cmds["test.Serial"])
        with self.assertRaises(db_bench_compare.BenchError):
            self.commands("test.Serial", "--memrep-bench", self.memrep_bench)  # gone

    def test_built_in_reps_are_not_preloaded(self):
        a = db_bench_compare.parse_args(["--reps", "skip_list,test.Serial", "--built-in",
                                         "--memrep-bench", self.memrep_bench,
                                         "--db-bench", sys.executable])
        db_bench_compare.validate(a)  # no --plugin needed
        cmd, env = db_bench_compare.build_command(a, "fillrandom", "test.Serial", 0, "/tmp/db")
        self.assertEqual(env, {})
        self.assertIn("--memtablerep=test.Serial", cmd)
        self.assertIn("--allow_concurrent_memtable_write=false", cmd)
        with self.assertRaises(db_bench_compare.BenchError):  # neither built in nor a plugin
            db_bench_compare.validate(db_bench_compare.parse_args(
                ["--reps", "test.Serial", "--db-bench", sys.executable]))


class DbBenchCompareChecks(unittest.TestCase):
    """--checks: every rep twice, alternating, the checked twin with the
    memtable check flags the db_bench lists in its --help."""

    def db_bench(self, flags):
        path = os.path.join(self.tmp.name, "db_bench")
        with open(path, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n" +
                    "".join(f"    -{flag} (some text) type: bool default: false\n"
                            for flag in flags) + "EOF\n")
        os.chmod(path, 0o755)
        return path

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def validate(self, flags):
        a = db_bench_compare.parse_args(["--reps", "skip_list,vector", "--checks",
                                         "--db-bench", self.db_bench(flags)])
        with contextlib.redirect_stderr(io.StringIO()):
            db_bench_compare.validate(a)
        return a

    def test_each_rep_runs_plain_and_with_the_checks_its_db_bench_has(self):
        a = self.validate(["paranoid_memory_checks", "memtable_veirfy_per_key_checksum_on_seek",
                           "memtable_verify_per_key_checksum_on_seek",
                           "memtable_protection_bytes_per_key", "other_flag"])
        self.assertEqual(a.reps, ["skip_list", "skip_list+checks", "vector", "vector+checks"])
        plain = db_bench_compare.build_command(a, "readrandom", "vector", 0, "/tmp/db")[0]
        checked = db_bench_compare.build_command(a, "readrandom", "vector+checks", 0, "/tmp/db")[0]
        added = [f for f in checked if f not in plain]
        self.assertEqual(added, ["--paranoid_memory_checks=true",
                                 "--memtable_verify_per_key_checksum_on_seek=true",
                                 "--memtable_protection_bytes_per_key=8"])
        self.assertIn("--memtablerep=vector", checked)
        self.assertIn("--allow_concurrent_memtable_write=false", checked)  # vector's traits

    def test_the_older_spelling_serves_where_the_newer_is_missing(self):
        a = self.validate(["memtable_veirfy_per_key_checksum_on_seek"])
        self.assertEqual(a.check_flags, [("memtable_veirfy_per_key_checksum_on_seek", "true")])

    def test_a_db_bench_without_any_check_is_refused(self):
        with self.assertRaises(db_bench_compare.BenchError):
            self.validate(["other_flag"])

    def test_the_report_gives_the_slowdowns_and_then_the_peak_rss(self):
        a = self.validate(["paranoid_memory_checks"])
        a.workloads = ["readrandom"]
        a.ceiling_rep = None
        speed = {"skip_list": 200.0, "skip_list+checks": 150.0, "vector": 400.0,
                 "vector+checks": 360.0}
        s = {"readrandom": {r: {"median_ops_sec": v, "median_rss_mb": 10.0 + v / 100}
                            for r, v in speed.items()}}
        runs = [{"workload": "readrandom", "rep": r, "command": f"db_bench {r}"} for r in speed]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            db_bench_compare.report(a, s, runs)
        text = out.getvalue()
        cost = text[text.index("### Slowdown"):text.index("### Peak RSS")]
        self.assertIn("| readrandom | 25.0% | 10.0% |", cost)
        rss = text[text.index("### Peak RSS"):text.index("### db_bench command")]
        self.assertIn("| workload | skip_list MB |", rss)
        self.assertIn("| readrandom | 12 | 12 | 14 | 14 |", rss)
        self.assertNotIn("slowdown", rss)

    def test_the_slowdown_is_each_rep_against_itself(self):
        self.assertEqual(db_bench_compare.slowdown(200.0, 150.0), "25.0%")
        self.assertEqual(db_bench_compare.slowdown(100.0, 110.0), "-10.0%")


class DbBenchCompareFound(unittest.TestCase):
    """Reads after a fill from the same seed find the same keys in every rep."""

    LINE = ("readrandom   :       1.000 micros/op 1000000 ops/sec 1.000 seconds "
            "1000 operations;   10.0 MB/s ({} of 1000 found)")

    def runs(self, counts):
        return [{"workload": "readrandom", "rep": rep, "repeat": r,
                 "found": int(db_bench_compare.FOUND_RE.search(self.LINE.format(n)).group(1))}
                for (rep, r), n in counts.items()]

    def test_equal_counts_pass_and_a_difference_is_named(self):
        a = db_bench_compare.parse_args(["--reps", "skip_list,memrep.Trie", "--repeats", "2",
                                         "--workloads", "readrandom,fillrandom"])
        a.ceiling_rep = None
        same = {("skip_list", 0): 632, ("memrep.Trie", 0): 632,
                ("skip_list", 1): 640, ("memrep.Trie", 1): 640}
        self.assertEqual(db_bench_compare.found_mismatches(a, self.runs(same)), [])
        differ = dict(same)
        differ[("memrep.Trie", 1)] = 639
        self.assertEqual(db_bench_compare.found_mismatches(a, self.runs(differ)),
                         ["readrandom repeat 2: memrep.Trie found 639, skip_list found 640"])


if __name__ == "__main__":
    unittest.main()
