#!/usr/bin/env python3
"""Tests of report.py on canned, tiny documents: the tables, the target
verdicts computed from the numbers, partial data, exit status, plots. What
report.py runs is tested in report_run_test.py, db_bench_compare.py in
db_bench_compare_test.py.

Run: python3 -B bench/report/report_test.py   (ctest runs it as report_test)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import report_data  # noqa: E402
import report_plots  # noqa: E402
import report_render  # noqa: E402


def summary_entry(workload, rep, ops, runs=1, note=""):
    return {"workload": workload, "rep": rep, "runs": runs, "note": note,
            "ops_per_sec": ops, "threads": 1, "p50_ns": 100, "p99_ns": 900, "p999_ns": 5000,
            "latency_samples": 50 if runs else 0, "bytes_per_entry": 150.0,
            "arena_reserved_bytes": 2 << 20, "create_us": 10.0, "destroy_us": 20.0}


def rep_run(name, num, item_size, ops, part="rep"):
    """A memrep_bench run: ops is {(workload, rep): ops/s or None (skipped)}."""
    summary = [summary_entry(w, r, x) if x is not None else
               summary_entry(w, r, 0, runs=0, note="skipped: by design")
               for (w, r), x in ops.items()]
    return {"name": name, "part": part, "num": num, "item_size": item_size,
            "reps": sorted({r for _, r in ops}), "workloads": sorted({w for w, _ in ops}),
            "repeats": 1, "extra": [], "command": f"memrep_bench {name}", "wall_s": 1.0,
            "status": "ok", "error": None, "data": {"summary": summary}}


NIMBUS_FIGURES = ["import_s", "import_flush_s", "persist_p50_ms", "persist_p99_ms",
                  "persist_max_ms", "flushes", "flush_s", "stall_s", "recent_reads_per_s",
                  "first_read_ms"]


def nimbus_run(name, uses, records, medians):
    """A memrep_nimbus_import invocation: medians is {rep: {figure: value}};
    figures not given are 1.0, reads figures None (null: no reads)."""
    rows = []
    for rep, given in medians.items():
        row = {"rep": rep}
        for f in NIMBUS_FIGURES:
            row[f] = given.get(f, None if f in report_data.NIMBUS_READ_FIGURES else 1.0)
        rows.append(row)
    return {"name": name, "uses": uses, "flags": {}, "command": f"memrep_nimbus_import {name}",
            "wall_s": 2.0, "status": "ok", "error": None, "table": "",
            "data": {"params": {"records": records, "batch": 5000, "runs": 3},
                     "loadavg_start": "1.00 1.00 1.00", "loadavg_end": "2.00 2.00 2.00",
                     "runs": [], "medians": rows}}


def canned_nimbus_runs():
    """--full's two invocations. Reads: memrep.Vector 0.8x skip_list's (missed);
    its import figures (0.1x) must not count. Import (--reads=0): import time
    exactly 0.6x skip_list's (met) and 12/11 of vector's (missed), persist p99
    0.8x (met), persist max 1.001x (missed: 1.00x when rounded)."""
    reads = nimbus_run("nimbus_reads", ["reads"], 5_000_000, {
        "skip_list": {"import_s": 10.0, "recent_reads_per_s": 100_000.0,
                      "first_read_ms": 0.05},
        "memrep.Vector": {"import_s": 1.0, "recent_reads_per_s": 80_000.0,
                          "first_read_ms": 1.234},
        "memrep.SortedHash": {"recent_reads_per_s": 150_000.0, "first_read_ms": 0.5}})
    imports = nimbus_run("nimbus_import", ["import"], 5_000_000, {
        "skip_list": {"import_s": 20.0, "persist_p99_ms": 50.0, "persist_max_ms": 300.0,
                      "flushes": 12.0},
        "vector": {"import_s": 11.0, "persist_p99_ms": 30.0, "persist_max_ms": 200.0},
        "memrep.Vector": {"import_s": 12.0, "persist_p99_ms": 40.0, "persist_max_ms": 300.3},
        "memrep.SortedHash": {"import_s": 14.0}})
    return [reads, imports]


def canned_doc():
    """At 10M, item 100: fillrandom 9x (met), readrandom 5x (missed), seekrandom
    exactly 1.15x (met), readwrite 5.999x (missed: 6.00x when rounded). Item
    size 0 only at 1M, without readwrite (no data). A smaller 1M item-100 run
    with a 20x readrandom must not be picked over the 10M one."""
    big = {("fillrandom", "skip_list"): 100_000, ("fillrandom", "sorted_hash"): 900_000,
           ("readrandom", "skip_list"): 200_000, ("readrandom", "sorted_hash"): 1_000_000,
           ("seekrandom", "skip_list"): 100_000, ("seekrandom", "sorted_hash"): 115_000,
           ("readwrite", "skip_list"): 1_000_000, ("readwrite", "sorted_hash"): 5_999_000,
           ("readwrite", "vector"): None}
    small = {("readrandom", "skip_list"): 100_000, ("readrandom", "sorted_hash"): 2_000_000}
    item0 = {("fillrandom", "skip_list"): 100_000, ("fillrandom", "sorted_hash"): 700_000,
             ("readrandom", "skip_list"): 100_000, ("readrandom", "sorted_hash"): 1_100_000,
             ("seekrandom", "skip_list"): 100_000, ("seekrandom", "sorted_hash"): 100_000}
    scaling = {("fillrandom", "skip_list"): 300_000, ("fillrandom", "sorted_hash"): 3_000_000}
    db_summary = {w: {"skip_list": {"median_ops_sec": 100_000.0, "median_rss_mb": 300.0},
                      "memrep.SortedHash": {"median_ops_sec": x, "median_rss_mb": m}}
                  for w, x, m in (("fillrandom", 150_000.0, 330.0),
                                  ("readrandom", 320_000.0, 390.0))}
    return {
        "schema": 1, "mode": "full", "generated": "2024-01-01 00:00 UTC",
        "report_command": "python3 bench/report/report.py --full",
        "machine": {"cpu_model": "Test CPU", "cpus_online": 2, "cpus_usable": 2,
                    "ram_gib": 24, "kernel": "Linux 6 x86_64", "compiler": "g++ 12",
                    "rocksdb_packages": {"librocksdb-dev": "7.8.3-2",
                                         "rocksdb-tools": "7.8.3-2"},
                    "git_commit": "abc123", "git_dirty": False},
        "parts": ["rep", "scaling", "db_bench", "nimbus"],
        "rep_runs": [rep_run("rep_10M_item100", 10_000_000, 100, big),
                     rep_run("rep_1M_item100", 1_000_000, 100, small),
                     rep_run("rep_1M_item0", 1_000_000, 0, item0),
                     rep_run("scaling_100000", 100_000, 100, scaling, part="scaling")],
        "db_bench": {"status": "ok", "command": "python3 bench/report/db_bench_compare.py",
                     "wall_s": 5, "data": {
                         "config": {"num": 1_000_000, "repeats": 2, "reads": 250_000,
                                    "write_buffer_size": 268435456,
                                    "reps": ["skip_list", "memrep.SortedHash"],
                                    "workloads": ["fillrandom", "readrandom"]},
                         "summary": db_summary, "runs": []}},
        "nimbus_runs": canned_nimbus_runs(),
        "plots": {"status": "skipped", "error": "--no-plots was given", "files": []},
    }


def row_of(md, start):
    """The table row of md starting with `start`."""
    rows = [line for line in md.splitlines() if line.startswith(start)]
    if not rows:
        raise AssertionError(f"no row starting with {start!r}")
    return rows[0]


class TargetVerdicts(unittest.TestCase):
    def setUp(self):
        self.rows = {(r["workload"], r["item_size"]): r
                     for r in report_data.target_rows(canned_doc())}

    def test_met_and_missed_from_the_numbers(self):
        self.assertEqual(self.rows[("fillrandom", 100)]["verdict"], "met")
        self.assertAlmostEqual(self.rows[("fillrandom", 100)]["ratio"], 9.0)
        self.assertEqual(self.rows[("readrandom", 100)]["verdict"], "missed")
        self.assertEqual(self.rows[("seekrandom", 100)]["verdict"], "met")  # exactly 1.15

    def test_a_miss_that_rounds_up_to_the_target_is_still_missed(self):
        row = self.rows[("readwrite", 100)]
        self.assertEqual(row["verdict"], "missed")
        self.assertEqual(report_data.ratio_text(row["ratio"], row["target"]), "5.9990x")

    def test_measured_at_the_biggest_size(self):
        # The 1M run's 20x readrandom must not replace the 10M run's 5x.
        self.assertEqual(self.rows[("readrandom", 100)]["num"], 10_000_000)
        self.assertAlmostEqual(self.rows[("readrandom", 100)]["ratio"], 5.0)

    def test_item_size_zero_and_missing_workload(self):
        # Measured at 1M only: no verdict (the targets are for 10M), an
        # indication of what the ratio would give.
        for workload, indication in (("fillrandom", "missed"),  # 7x < 8x
                                     ("readrandom", "met"),  # 11x
                                     ("seekrandom", "missed")):  # 1x
            self.assertEqual(self.rows[(workload, 0)]["verdict"], "not at 10M")
            self.assertEqual(self.rows[(workload, 0)]["indication"], indication)
        self.assertIsNone(self.rows[("fillrandom", 100)]["indication"])
        self.assertEqual(self.rows[("readwrite", 0)]["verdict"], "no data")
        self.assertEqual(self.rows[("readwrite", 0)]["num"], None)


class NimbusTargets(unittest.TestCase):
    def rows(self, doc=None):
        return {(r["figure"], r["base"]): r
                for r in report_data.nimbus_target_rows(doc or canned_doc())}

    def test_verdicts_from_the_numbers(self):
        rows = self.rows()
        row = rows[("import_s", "skip_list")]
        self.assertEqual(row["run"], "nimbus_import")  # not the reads run's 0.1x
        self.assertAlmostEqual(row["ratio"], 0.6)
        self.assertEqual(row["verdict"], "met")  # exactly at most 0.6
        self.assertAlmostEqual(rows[("import_s", "vector")]["ratio"], 12 / 11)
        self.assertEqual(rows[("import_s", "vector")]["verdict"], "missed")
        self.assertEqual(rows[("persist_p99_ms", "skip_list")]["verdict"], "met")
        self.assertEqual(rows[("persist_max_ms", "skip_list")]["verdict"], "missed")
        row = rows[("recent_reads_per_s", "skip_list")]
        self.assertEqual(row["run"], "nimbus_reads")
        self.assertAlmostEqual(row["ratio"], 0.8)
        self.assertEqual(row["verdict"], "missed")

    def test_at_most_targets_show_the_digits_that_decide(self):
        row = self.rows()[("persist_max_ms", "skip_list")]
        self.assertEqual(report_data.ratio_text(row["ratio"], 1.0, False), "1.0010x")
        self.assertEqual(report_data.ratio_text(0.5999, 0.6, False), "0.60x")  # met either way
        self.assertEqual(report_data.ratio_text(0.6004, 0.6, False), "0.6004x")

    def test_a_missing_rep_is_not_measured(self):
        doc = canned_doc()
        imports = doc["nimbus_runs"][1]["data"]
        imports["medians"] = [m for m in imports["medians"] if m["rep"] != "vector"]
        rows = self.rows(doc)
        self.assertEqual(rows[("import_s", "vector")]["verdict"], "not measured")
        self.assertIsNone(rows[("import_s", "vector")]["ratio"])
        self.assertEqual(rows[("import_s", "skip_list")]["verdict"], "met")

    def test_a_failed_invocation_is_not_measured_and_a_failure(self):
        doc = canned_doc()
        doc["nimbus_runs"][0].update(status="failed", data=None, error="exit status 1\nGet")
        rows = self.rows(doc)
        self.assertEqual(rows[("recent_reads_per_s", "skip_list")]["verdict"], "not measured")
        self.assertEqual(rows[("persist_p99_ms", "skip_list")]["verdict"], "met")
        md, failures = report_render.render(doc)
        self.assertEqual([w for w, _ in failures], ["memrep_nimbus_import run `nimbus_reads`"])
        self.assertIn("| recent reads/s (recent_reads_per_s) over `skip_list`'s | - | - | - | "
                      "- | - | >= 1x | **not measured** |", md)
        self.assertIn("**Failed**: no numbers; see Failures.", md)

    def test_one_invocation_serves_every_figure(self):
        doc = canned_doc()
        short = nimbus_run("nimbus", ["import", "reads"], 200_000, {
            "skip_list": {"import_s": 2.0, "recent_reads_per_s": 1000.0},
            "vector": {"import_s": 1.0, "recent_reads_per_s": 70.0},
            "memrep.Vector": {"import_s": 1.0, "recent_reads_per_s": 1500.0}})
        doc["nimbus_runs"] = [short]
        rows = self.rows(doc)
        self.assertEqual(rows[("import_s", "skip_list")]["verdict"], "met")  # 0.5x
        self.assertEqual(rows[("import_s", "vector")]["verdict"], "met")  # 1.0x
        self.assertEqual(rows[("recent_reads_per_s", "skip_list")]["verdict"], "met")  # 1.5x
        md, _ = report_render.render(doc)
        self.assertIn("**Not the full scenario**: measured with 200K records", md)
        self.assertIn("### `nimbus`: every figure", md)


class Markdown(unittest.TestCase):
    def setUp(self):
        self.md, self.failures = report_render.render(canned_doc())

    def test_share_of_the_ceiling(self):
        # db_bench_compare.py --ceiling: its word names the plugin's path; the
        # report shows it by name, and each rep's share of it.
        doc = canned_doc()
        data = doc["db_bench"]["data"]
        word = "bench.Ceiling@/build/bench/libmemrep_ceiling.so"
        data["config"]["reps"].append(word)
        for w, x in (("fillrandom", 600_000.0), ("readrandom", 1_280_000.0)):
            data["summary"][w][word] = {"median_ops_sec": x, "median_rss_mb": 250.0}
        md, _ = report_render.render(doc)
        section = md.split("## DB level")[1].split("## The Nimbus")[0]
        self.assertIn("| workload | bench.Ceiling ops/s | skip_list share | "
                      "memrep.SortedHash share |", section)
        self.assertIn("| fillrandom | 600,000 | 17% | 25% |", section)
        self.assertIn("| readrandom | 1,280,000 | 8% | 25% |", section)
        self.assertNotIn("libmemrep_ceiling.so ops/s", section)
        # The RSS table's highest ratio is the last real rep's, not the ceiling's.
        self.assertIn("| **highest ratio**: readrandom |", section)
        self.assertNotIn("## Share of the ceiling", self.md)  # not run: no table
        self.assertNotIn("share |", self.md)

    def test_sections(self):
        for heading in ("## Targets (issue #3) vs measured", "## Machine",
                        "## Rep level (memrep_bench)", "### 10M entries, item size 100",
                        "### 1M entries, item size 0", "## Throughput vs entry count",
                        "## DB level (Debian's db_bench)",
                        "## The Nimbus scenario (memrep_nimbus_import)", "## Commands"):
            self.assertIn(heading, self.md)
        self.assertEqual(self.failures, [])
        self.assertNotIn("## Failures", self.md)

    def test_target_table_rows(self):
        self.assertIn("| 10M | 100.0K | 900.0K | 9.00x | >= 8x | **met** |",
                      row_of(self.md, "| fillrandom (write) | 100 |"))
        self.assertIn("5.00x | >= 10x | **missed** |", row_of(self.md, "| readrandom (read) | 100 |"))
        self.assertIn("**no data** |", row_of(self.md, "| readwrite (read while writing) | 0 |"))
        self.assertIn("2 of 4 targets measured at 10M entries met (8 targets in all).", self.md)
        # Item size 0 was measured at 1M only: three rows, said so, no verdict.
        self.assertIn("**Not at 10M entries**: 3 of 8 rows", self.md)
        self.assertIn("| 1M | 100.0K | 700.0K | 7.00x | >= 8x | **not at 10M** (missed at 1M) |",
                      row_of(self.md, "| fillrandom (write) | 0 |"))

    def test_throughput_table_has_ops_and_ratio(self):
        rep10m = self.md.split("### 10M entries, item size 100")[1].split("###")[0]
        self.assertIn("| workload | skip_list ops/s | vector ops/s | sorted_hash ops/s |", rep10m)
        self.assertIn("| fillrandom | 100.0K | - | 900.0K | - | 9.00x |", rep10m)
        self.assertIn("| readwrite | 1.00M | skipped | 6.00M | - | 6.00x |", rep10m)
        self.assertIn("p50 / p99 / p99.9 ns", rep10m)
        self.assertIn("| sorted_hash | 150.0 |", rep10m)  # bytes per entry
        self.assertIn("`vector` in readwrite: skipped: by design", rep10m)

    def test_db_bench_tables(self):
        self.assertIn("| fillrandom | 100,000 | 150,000 | 1.50x |", self.md)
        self.assertIn("| readrandom | 100,000 | 320,000 | 3.20x |", self.md)
        self.assertIn("| **highest ratio**: readrandom | 300 | 390 | 1.30x |", self.md)

    def test_nimbus_section(self):
        section = self.md.split("## The Nimbus scenario")[1].split("## Commands")[0]
        self.assertIn("| import time (import_s) over `skip_list`'s | `nimbus_import` | 5M | "
                      "20.00 | 12.00 | 0.60x | <= 0.6x | **met** |", section)
        self.assertIn("| import time (import_s) over `vector`'s | `nimbus_import` | 5M | "
                      "11.00 | 12.00 | 1.09x | <= 1x | **missed** |", section)
        self.assertIn("| 300.00 | 300.30 | 1.0010x | <= 1x | **missed** |",
                      row_of(section, "| persist max (persist_max_ms)"))
        self.assertIn("| 100,000 | 80,000 | 0.80x | >= 1x | **missed** |",
                      row_of(section, "| recent reads/s (recent_reads_per_s)"))
        self.assertIn("2 of 5 targets met.", section)
        self.assertNotIn("Not the full scenario", section)
        # The medians, with the program's columns; null reads figures are '-'.
        self.assertIn("| rep | import s | import+flush s | persist p50 ms | p99 ms | max ms | "
                      "flushes | flush s (sum) | stall s | recent reads/s | first read ms |",
                      section)
        imports = section.split("### `nimbus_import`")[1]
        self.assertIn("| skip_list | 20.00 | 1.00 | 1.00 | 50.00 | 300.00 | 12 | 1.00 | 1.00 "
                      "| - | - |", imports)
        reads = section.split("### `nimbus_reads`")[1].split("### `nimbus_import`")[0]
        self.assertIn("| memrep.Vector | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1 | 1.00 | 1.00 | "
                      "80,000 | 1.234 |", reads)
        self.assertIn("```sh\nmemrep_nimbus_import nimbus_reads\n```", reads)
        self.assertIn("records=5000000, batch=5000, runs=3; load average 1.00 1.00 1.00", reads)
        self.assertIn("memrep_nimbus_import nimbus_import    # 2 s, ok", self.md)  # Commands

    def test_nimbus_in_the_terminal_summary(self):
        text = report_render.terminal_summary(canned_doc())
        self.assertIn("persist_max_ms / skip_list", text)
        self.assertIn("1.0010x  (target <= 1x)  missed", text)

    def test_nimbus_not_run(self):
        doc = canned_doc()
        doc["parts"] = ["rep", "scaling", "db_bench"]
        del doc["nimbus_runs"]
        md, failures = report_render.render(doc)
        self.assertEqual(failures, [])
        self.assertIn("Not run (`--parts`).",
                      md.split("## The Nimbus scenario")[1].split("## Commands")[0])

    def test_machine_facts(self):
        self.assertIn("| CPU | Test CPU |", self.md)
        self.assertIn("| git commit | abc123 |", self.md)
        self.assertIn("librocksdb-dev 7.8.3-2", self.md)

    def test_scaling_table(self):
        section = self.md.split("## Throughput vs entry count")[1].split("## DB level")[0]
        self.assertIn("| 100K | 300.0K (1) | 3.00M (1) | 10.00x |", section)
        self.assertIn("| 10M | 100.0K (1) | 900.0K (1) | 9.00x |", section)


class PartialData(unittest.TestCase):
    def test_failed_parts_are_reported_not_fatal(self):
        doc = canned_doc()
        doc["rep_runs"][0].update(status="failed", data=None, error="exit status 1\ncheck failed")
        doc["db_bench"] = {"status": "failed", "error": "db_bench not found", "data": None,
                           "command": "python3 bench/report/db_bench_compare.py"}
        md, failures = report_render.render(doc)
        self.assertEqual(len(failures), 2)
        self.assertIn("## Failures", md)
        self.assertIn("db_bench not found", md)
        self.assertIn("**Run `rep_10M_item100` failed**", md)
        # The targets fall back to the next biggest size, and say so.
        self.assertIn("**Not at 10M entries**: 4 of 8 rows", md)
        self.assertIn("| fillrandom (write) | 100 | - |", md)  # no data at any size

    def test_garbage_document_still_renders(self):
        doc = {"rep_runs": [{"status": "ok", "part": "rep", "num": 5, "item_size": 0,
                             "data": {"summary": [{"workload": "fillrandom"}]}}],
               "db_bench": {"status": "ok", "data": {"summary": {"w": {}}}}}
        md, failures = report_render.render(doc)
        self.assertIn("# memrep benchmarks", md)
        self.assertTrue(failures)  # the db_bench section could not be drawn
        self.assertIn("could not be drawn", md)

    def test_exit_status_of_the_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            good = os.path.join(tmp, "good.json")
            with open(good, "w") as f:
                json.dump(canned_doc(), f)
            bad_doc = canned_doc()
            bad_doc["db_bench"] = {"status": "failed", "error": "boom", "data": None}
            bad = os.path.join(tmp, "bad.json")
            with open(bad, "w") as f:
                json.dump(bad_doc, f)
            for path, want in ((good, 0), (bad, 1)):
                out = os.path.join(tmp, f"out{want}")
                p = subprocess.run([sys.executable, "-B", os.path.join(HERE, "report.py"),
                                    "--from-json", path, "--out", out, "--no-plots"],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, want, p.stderr)
                with open(os.path.join(out, "benchmarks.md")) as f:
                    md = f.read()
                self.assertIn("## Targets (issue #3) vs measured", md)
                self.assertIn("db_bench", p.stdout)  # the terminal summary
            p = subprocess.run([sys.executable, "-B", os.path.join(HERE, "report.py"), "--short",
                                "--parts", "rep,nope"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)


class Plots(unittest.TestCase):
    def test_every_plot_is_a_png(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed for this python3")
        with tempfile.TemporaryDirectory() as tmp:
            doc = copy.deepcopy(canned_doc())
            result = report_plots.draw_plots(doc, os.path.join(tmp, "img"))
            self.assertEqual(result["status"], "ok", result["error"])
            for name in ("headline.png", "throughput_10000000_item100.png", "scaling.png",
                         "latency.png", "db_bench.png"):
                self.assertIn(f"img/{name}", result["files"])
                with open(os.path.join(tmp, "img", name), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            doc["plots"] = result
            md, _ = report_render.render(doc)
            self.assertIn("![headline: sorted_hash vs skip_list](img/headline.png)", md)


if __name__ == "__main__":
    unittest.main()
