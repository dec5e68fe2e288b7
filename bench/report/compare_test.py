#!/usr/bin/env python3
"""Tests of the main job's report (compare.py, compare_render.py, compare_plots.py).

On canned documents (no benchmark runs): the workload classes and their
geometric means, the best fixed rep, where each rep loses, Auto's choices,
the 40-line limit of the summary on a machine with many cores and peers, the
Markdown's sections, and the figures (when matplotlib is there). With
--bench, --plugin, --phased (and --db-bench), also an end-to-end run of
compare.py at tiny sizes and its redraw from compare.json.

    python3 bench/report/compare_test.py [--bench B --plugin P --phased PH
        --ceiling C --db-bench D --out DIR]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_plots  # noqa: E402
import compare_render as render  # noqa: E402

ARGS = None


def listed(names):
    reps = []
    for name, canonical, memrep in names:
        reps.append({"name": name, "canonical_name": canonical, "aliases": [], "memrep": memrep,
                     "traits": {"concurrent_insert": True, "duplicates": "all",
                                "comparators": "any", "point_read_while_mutable": "logarithmic",
                                "max_memtable_bytes": 0}})
    return reps


REPS = [("skip_list", "SkipListFactory", False), ("skip_list_ndebug", "skip_list_ndebug", False),
        ("sorted_hash", "memrep.SortedHash", True), ("trie", "memrep.Trie", True),
        ("auto", "memrep.Auto", True)]


def cell(face, workload, threads, ratios, base):
    reps = {base: {"status": "ok", "ops_sec": 1e6, "ratio": 1.0, "bytes_per_entry": 50.0,
                   "create_us": 10.0, "destroy_us": 100.0, "rss_mb": 30.0}}
    for r, x in ratios.items():
        reps[r] = ({"status": "timeout", "ops_sec": None, "ratio": 0.0} if x == "t/o" else
                   {"status": "ok", "ops_sec": 1e6 * x, "ratio": x, "bytes_per_entry": 40.0,
                    "create_us": 5.0, "destroy_us": 50.0, "rss_mb": 28.0})
    return {"face": face, "workload": workload, "threads": threads, "entries": 1000,
            "key_size": 16, "value_size": 100, "distribution": "uniform", "base": base,
            "id": f"{workload} t{threads}", "reps": reps}


def canned(threads=(1, 2), peers=()):
    """A matrix document: both faces, the ceiling in db_bench's fills."""
    rep_names = ["skip_list_ndebug", "skip_list", "sorted_hash", "trie", "auto", *peers]
    db_names = ["bench.SkipListNDebug", "skip_list", "memrep.SortedHash", "memrep.Trie",
                "memrep.Auto", "bench.Ceiling"]
    cells = []
    for t in threads:
        cells.append(cell("rep", "fillrandom" if t == 1 else "concurrentfill", t,
                          {"skip_list": 0.5, "sorted_hash": 4.0, "trie": 2.0, "auto": 2.0,
                           **{p: 1.5 for p in peers}}, "skip_list_ndebug"))
        cells.append(cell("rep", "readrandom", t, {"skip_list": 0.5, "sorted_hash": 2.0,
                                                   "trie": 6.0, "auto": 9.0,
                                                   **{p: 0.7 for p in peers}},
                          "skip_list_ndebug"))
        cells.append(cell("rep", "multiget", t, {"skip_list": 0.5, "sorted_hash": 8.0,
                                                 "trie": 1.5, "auto": 2.0,
                                                 **{p: 1.1 for p in peers}},
                          "skip_list_ndebug"))
        cells.append(cell("db_bench", "fillrandom", t, {"skip_list": 0.6,
                                                        "memrep.SortedHash": 1.5,
                                                        "memrep.Trie": 0.9, "memrep.Auto": 1.0,
                                                        "bench.Ceiling": 3.0},
                          "bench.SkipListNDebug"))
        cells.append(cell("db_bench", "readwhilewriting", t, {"skip_list": 0.6,
                                                              "memrep.SortedHash": "t/o",
                                                              "memrep.Trie": 2.0,
                                                              "memrep.Auto": 2.0},
                          "bench.SkipListNDebug"))
    matrix = {"machine": {"cores": max(threads), "cpu": "test cpu"}, "git_commit": "abc123",
              "date": "2026-11-26", "load_start": [1, 1, 1], "load_end": [2, 2, 2],
              "command": "matrix.py --quick", "failures": [],
              "bases": {"rep": {"rep": "skip_list_ndebug"},
                        "db_bench": {"rep": "bench.SkipListNDebug"}},
              "reps": {"rep": rep_names, "db_bench": db_names}, "cells": cells}
    reps = listed(REPS + [(p, p, False) for p in peers])
    phased = {"runs": [{"rep": "memrep.Auto", "total_s": 1.0, "auto": {
        "bulk": {"sequence": [{"rep": "memrep.Trie", "memtables": 1},
                              {"rep": "memrep.Vector", "memtables": 6}], "settled_after": 1},
        "readwrite": {"sequence": [{"rep": "memrep.Trie", "memtables": 8}],
                      "settled_after": 0}}},
        {"rep": "skip_list", "total_s": 3.0}, {"rep": "memrep.Trie", "total_s": 1.2}]}
    return {"matrix": matrix, "listed": reps, "names": render.display_names(reps),
            "phased": phased, "phased_command": "memrep_phased --reps=...",
            "phased_flags": {"write_buffer_size": 1 << 20}, "wall_s": 120.0}


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


class RenderTest(unittest.TestCase):
    def test_classes_are_geometric_means_per_face(self):
        table = render.class_table(canned())
        row = table[("rep", "point read", 1)]
        self.assertEqual(row["cells"], 2)
        self.assertAlmostEqual(row["reps"]["memrep.SortedHash"], 4.0)  # sqrt(2 * 8)
        self.assertAlmostEqual(row["reps"]["memrep.Trie"], 3.0)  # sqrt(6 * 1.5)
        db = table[("db_bench", "write", 2)]
        self.assertAlmostEqual(db["reps"]["ceiling"], 3.0)
        self.assertNotIn("ceiling", table[("rep", "write", 1)]["reps"])
        # A timeout counts as far below anything measured.
        self.assertLess(table[("db_bench", "read + write", 1)]["reps"]["memrep.SortedHash"], 0.01)

    def test_best_is_a_fixed_rep(self):
        table = render.class_table(canned())
        row = table[("rep", "point read", 1)]
        reps = render.contenders(canned())
        self.assertIn("memrep.Auto", reps)
        # Auto's 9x readrandom would win the geometric mean (sqrt(18) > 4): it is not a candidate.
        self.assertAlmostEqual(row["reps"]["memrep.Auto"], math.sqrt(18))
        self.assertEqual(render.best_of(row, reps), (4.0, "memrep.SortedHash"))

    def test_losses(self):
        lost = render.losses(canned())
        below, judged = lost["memrep.Trie"]
        self.assertEqual(judged, 10)
        self.assertEqual([w for _, w in below], ["db_bench fillrandom t1", "db_bench fillrandom t2"])
        self.assertEqual(lost["memrep.SortedHash"][0][0][0], 0.0)  # the timeout, worst
        self.assertNotIn("ceiling", lost)
        self.assertNotIn("skip_list_ndebug", lost)

    def test_summary(self):
        lines = render.summary(canned(), "build/report/benchmarks.md")
        text = "\n".join(lines)
        self.assertLessEqual(len(lines), render.SUMMARY_LIMIT)
        self.assertIn("rep point read t1", text)
        self.assertIn("db  write t2", text)
        self.assertIn("bulk       Trie -> Vector x6", text)
        self.assertIn("all phases: Auto 1.00 s, best fixed rep Trie 1.20 s, skip_list 3.00 s", text)
        self.assertTrue(lines[-1].startswith("Report: build/report/benchmarks.md"))
        self.assertNotIn("not at 10M", text)

    def test_a_phase_that_never_settled_says_so(self):
        doc = canned()
        for run in doc["phased"]["runs"]:
            for phase in (run.get("auto") or {}).values():
                phase["settled_after"] = None
        text = "\n".join(render.summary(doc, "build/report/benchmarks.md"))
        self.assertIn("(never settled)", text)
        self.assertNotIn("None", text)

    def test_summary_says_the_phased_totals_are_medians_of_its_rounds(self):
        doc = canned()
        doc["phased_flags"]["rounds"] = 3
        text = "\n".join(render.summary(doc, "build/report/benchmarks.md"))
        self.assertIn("all phases (median of 3 rounds): Auto 1.00 s, best fixed rep Trie 1.20 s",
                      text)

    def test_summary_limit_with_many_cores_and_peers(self):
        doc = canned(threads=(1, 2, 4, 64), peers=("topling_cspp", "columnar_memtable"))
        extra = []  # many classes: more rep-level workloads
        for w in ("seekrandom", "readseq", "readwrite", "seekwhilewriting", "fillbatch"):
            for t in (1, 64):
                extra.append(cell("rep", w, t, {"sorted_hash": 1.2, "trie": 1.3},
                                  "skip_list_ndebug"))
        doc["matrix"]["cells"] += extra
        lines = render.summary(doc, "r.md")
        self.assertLessEqual(len(lines), render.SUMMARY_LIMIT, "\n".join(lines))
        self.assertTrue(lines[-1].startswith("Report: r.md"))
        self.assertTrue(any("t64" in line for line in lines))
        rows = [line for line in lines if line.startswith(("rep ", "db  "))]
        self.assertTrue(rows)
        self.assertFalse(any(" t4 " in line for line in rows))  # first and last counts only

    def test_markdown(self):
        doc = canned()
        with tempfile.TemporaryDirectory() as tmp:
            doc["out"] = tmp
            md = render.render(doc, {"headline": "img/headline.png"}, "matrix/matrix.md")
        for section in ("# memrep: which rep for which workload", "![reps x workload classes]",
                        "## Choosing a rep", "**Where each rep loses**", "**What Auto chose.**",
                        "**Memory and lifetime.**", "**Traits**", "## Every cell",
                        "## Thread scaling", "## Peers", "## Commands"):
            self.assertIn(section, md)
        self.assertIn("| rep | point read | 1 | 2 |", md)
        self.assertIn("| memrep.Trie | 40.0 | 5 | 50 | 28 |", md)
        self.assertIn("Not drawn: this machine has 2 cores", md)
        self.assertIn("base is RocksDB's own skip list compiled without assertions", md)

    @unittest.skipUnless(has_matplotlib(), "no matplotlib in this python")
    def test_figures(self):
        with tempfile.TemporaryDirectory() as tmp:
            got = compare_plots.draw(canned(), tmp)
            self.assertEqual(got, {"headline": "img/headline.png"})  # two thread counts
            got = compare_plots.draw(canned(threads=(1, 2, 4)), tmp)
            self.assertEqual(set(got), {"headline", "scaling"})
            for name in got:
                with open(os.path.join(tmp, f"{name}.png"), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class EndToEndTest(unittest.TestCase):
    def test_tiny_run_and_redraw(self):
        if not (ARGS.bench and ARGS.plugin and ARGS.phased):
            self.skipTest("no --bench, --plugin and --phased: no end-to-end run")
        out = os.path.join(ARGS.out, "run")
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-B", os.path.join(HERE, "compare.py"), "--out", out,
               "--bench", ARGS.bench, "--plugin", ARGS.plugin, "--phased", ARGS.phased,
               "--phased-switches", "1", "--entries", "2000", "--db-num", "2000",
               "--workloads", "fillrandom,readrandom,readwhilewriting"]
        if ARGS.db_bench:
            cmd += ["--db-bench", ARGS.db_bench] + (["--ceiling", ARGS.ceiling]
                                                    if ARGS.ceiling else [])
        else:
            cmd += ["--faces", "rep"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        lines = proc.stdout.splitlines()
        self.assertLessEqual(len(lines), render.SUMMARY_LIMIT, proc.stdout)
        self.assertIn("rep point read t1", proc.stdout)
        self.assertIn("What Auto chose", proc.stdout)
        self.assertIn("[rep ", proc.stderr)  # progress on stderr
        with open(os.path.join(out, "compare.json")) as f:
            doc = json.load(f)
        names = {doc["names"].get(r, r) for c in doc["matrix"]["cells"] for r in c["reps"]}
        for r in doc["listed"]:  # every registered rep of memrep is in the run
            if r["memrep"]:
                self.assertIn(r["canonical_name"], names)
        with open(os.path.join(out, "benchmarks.md")) as f:
            md = f.read()
        self.assertIn("## Choosing a rep", md)
        again = subprocess.run([sys.executable, "-B", os.path.join(HERE, "compare.py"),
                                "--from-json", os.path.join(out, "compare.json"), "--out", out],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stdout, proc.stdout)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    for flag in ("--bench", "--plugin", "--phased", "--ceiling", "--db-bench"):
        p.add_argument(flag)
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "memrep-compare-test"))
    ARGS, rest = p.parse_known_args()
    os.makedirs(ARGS.out, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
