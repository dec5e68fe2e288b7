#!/usr/bin/env python3
"""End-to-end test of matrix.py at tiny sizes (seconds): runs it with a
second build (the same binaries, so every rep has a REP@old twin), checks
its matrix.json against the rules it states (every cell has every rep, the
base's ratio is 1, each ratio is the rep's median over the base's, each rep's
worst cell is its smallest ratio, the counts), its matrix.md and summary,
the redraw from the JSON, and the exit status of bad flags (2) and of a
benchmark that fails its check (1).

    python3 bench/matrix/matrix_test.py --bench build/release/bench/memrep_bench \\
        --plugin build/release/rocksdb/libmemrep_rocksdb.so [--db-bench /usr/bin/db_bench] \\
        --out DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MATRIX = os.path.join(HERE, "matrix.py")
ARGS = None
TINY = ["--shapes", "16/100", "--entries", "2000", "--db-num", "2000", "--repeats", "2", "--threads", "2",
        "--db-threads", "1,2", "--workloads", "fillrandom,overwrite,readwrite,mix8020,"
        "readwhilewriting"]


def run(*argv):
    return subprocess.run([sys.executable, "-B", MATRIX, *argv], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


class MatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(ARGS.out, "run")
        shutil.rmtree(cls.out, ignore_errors=True)
        cls.faces = ["rep", "db_bench"] if ARGS.db_bench else ["rep"]
        argv = TINY + ["--out", cls.out, "--bench", ARGS.bench, "--plugin", ARGS.plugin,
                       "--faces", ",".join(cls.faces), "--compare-bench", ARGS.bench,
                       "--ndebug-plugin", "none"]
        if ARGS.db_bench:
            argv += ["--db-bench", ARGS.db_bench, "--compare-plugin", ARGS.plugin]
            if ARGS.ceiling:
                argv += ["--ceiling", ARGS.ceiling]
        cls.proc = run(*argv)
        if not os.path.isfile(os.path.join(cls.out, "matrix.json")):
            raise AssertionError(f"matrix.py wrote no matrix.json (exit {cls.proc.returncode}):\n"
                                 f"{cls.proc.stderr[-3000:]}")
        with open(os.path.join(cls.out, "matrix.json")) as f:
            cls.doc = json.load(f)

    def test_exit_and_summary(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])
        lines = self.proc.stdout.splitlines()
        self.assertLessEqual(len(lines), 30, self.proc.stdout)
        for face in self.faces:
            self.assertTrue(any(line.startswith(f"{face}: base ") for line in lines),
                            self.proc.stdout)
        self.assertIn("[rep ", self.proc.stderr)  # progress goes to stderr

    def test_run_facts(self):
        d = self.doc
        for key in ("machine", "load_start", "load_end", "git_commit", "wall_s", "commands",
                    "date", "command"):
            self.assertIn(key, d)
        self.assertEqual(d["machine"]["cores"], os.cpu_count())
        self.assertEqual(len(d["load_start"]), 3)
        self.assertGreater(d["wall_s"], 0)
        self.assertEqual(d["failures"], [])
        faces = {c["face"] for c in d["commands"]}
        self.assertEqual(faces, set(self.faces))
        self.assertTrue(all(c["exit"] == 0 for c in d["commands"]))

    def test_cells(self):
        d = self.doc
        for face in self.faces:
            base = d["bases"][face]["rep"]
            reps = d["reps"][face]
            self.assertIn("skip_list", reps)  # always shown
            self.assertEqual(reps[0], base)
            self.assertTrue(any(r.endswith("@old") for r in reps), reps)
            cells = [c for c in d["cells"] if c["face"] == face]
            self.assertTrue(cells)
            for c in cells:
                # The ceiling stores nothing: it runs in the write-only cells alone.
                want = set(reps)
                if face == "db_bench" and ARGS.ceiling:
                    self.assertIn("bench.Ceiling", reps)
                    if c["workload"] != "fillrandom":
                        want.discard("bench.Ceiling")
                self.assertEqual(set(c["reps"]), want, c["id"])
                self.assertEqual(c["base"], base)
                self.assertAlmostEqual(c["reps"][base]["ratio"], 1.0)
                for rep, e in c["reps"].items():
                    self.assertIn(e["status"], ("ok", "skipped", "timeout"), (c["id"], rep))
                    if e["status"] != "ok":
                        continue
                    self.assertEqual(e["runs"], 2, (c["id"], rep))
                    self.assertAlmostEqual(e["ratio"], e["ops_sec"] / c["base_ops_sec"])
                    old = c["reps"].get(f"{rep}@old")
                    if old and old["status"] == "ok":
                        self.assertAlmostEqual(e["vs_old"], e["ops_sec"] / old["ops_sec"])
                    if face == "rep" and c["workload"] == "readwrite":
                        self.assertGreater(e["write_ops_sec"], 0, rep)
                        self.assertEqual(e["read_ops_sec"], e["ops_sec"])
        rep_cells = {(c["workload"], c["threads"], c["distribution"])
                     for c in d["cells"] if c["face"] == "rep"}
        # Single writers at one thread, the others at --threads; zipfian only
        # where the workload chooses keys (not fillrandom).
        self.assertEqual(rep_cells, {("fillrandom", 1, "uniform")} |
                         {(w, t, dist) for w, t in (("overwrite", 1), ("readwrite", 2),
                                                    ("mix8020", 2))
                          for dist in ("uniform", "zipfian")})
        if "db_bench" in self.faces:
            db_cells = {(c["workload"], c["threads"]) for c in d["cells"]
                        if c["face"] == "db_bench"}
            self.assertEqual(db_cells, {(w, t) for w in ("fillrandom", "readwhilewriting")
                                        for t in (1, 2)})

    def test_worst(self):
        d = self.doc
        for face in self.faces:
            s = d["summary"][face]
            base = s["base"]
            worst = {}
            below1 = below08 = 0
            for c in (c for c in d["cells"] if c["face"] == face):
                ratios = {r: e["ratio"] for r, e in c["reps"].items()
                          if e.get("ratio") is not None and r not in (base, "bench.Ceiling")
                          and not r.endswith("@old")}
                below1 += any(x < 1.0 for x in ratios.values())
                below08 += any(x < 0.8 for x in ratios.values())
                for r, x in ratios.items():
                    if r not in worst or x < worst[r]:
                        worst[r] = x
            worst.pop("bench.Ceiling", None)  # a bound, not a contender
            self.assertEqual({r: w["ratio"] for r, w in s["worst"].items()}, worst)
            self.assertEqual(s["counts"]["below_1"], below1)
            self.assertEqual(s["counts"]["below_0.8"], below08)

    def test_tail_latency(self):
        # Each rep's p99.9 over the base's in the read-while-writing cells,
        # and its worst (the largest) in the summary.
        d = self.doc
        s = d["summary"]["rep"]
        base = s["base"]
        worst = {}
        for c in (c for c in d["cells"] if c["face"] == "rep"):
            for r, e in c["reps"].items():
                b = c["reps"].get(base, {}).get("p999_ns")
                if c["workload"] not in ("readwrite", "seekwhilewriting") or r == base:
                    self.assertNotIn("p999_ratio", e, f"{c['id']} {r}")
                    continue
                if not b or not e.get("p999_ns"):
                    continue
                self.assertAlmostEqual(e["p999_ratio"], e["p999_ns"] / b)
                if not r.endswith("@old") and e["p999_ratio"] > worst.get(r, 0):
                    worst[r] = e["p999_ratio"]
        self.assertEqual({r: w["ratio"] for r, w in s["tail"].items()}, worst)
        if worst:
            with open(os.path.join(self.out, "matrix.md")) as f:
                self.assertIn("### Tail latency while writing (rep)", f.read())

    def test_markdown_and_redraw(self):
        with open(os.path.join(self.out, "matrix.md")) as f:
            md = f.read()
        self.assertIn("## Rep level (memrep_bench)", md)
        self.assertIn("### Worst cell per rep (rep)", md)
        self.assertIn("### New over @old, per cell (rep)", md)
        if "db_bench" in self.faces:
            self.assertIn("## db_bench", md)
        again = os.path.join(ARGS.out, "redraw")
        shutil.rmtree(again, ignore_errors=True)
        proc = run("--from-json", os.path.join(self.out, "matrix.json"), "--out", again)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, self.proc.stdout)
        with open(os.path.join(again, "matrix.md")) as f:
            self.assertEqual(f.read(), md)
        self.assertNotIn("[rep ", proc.stderr)  # nothing ran

    def test_join(self):
        # The same run given twice: one document, every cell once, each
        # rep's runs doubled and its median unchanged (the median of a list
        # given twice is the list's), the commands twice. A file that is
        # not a matrix.json is refused with exit 2.
        with open(os.path.join(self.out, "matrix.json")) as f:
            one = json.load(f)
        twice = os.path.join(ARGS.out, "joined")
        shutil.rmtree(twice, ignore_errors=True)
        path = os.path.join(self.out, "matrix.json")
        proc = run("--from-json", path, path, "--out", twice, "--no-plot")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(twice, "matrix.json")) as f:
            both = json.load(f)
        self.assertEqual([c["id"] for c in both["cells"]], [c["id"] for c in one["cells"]])
        self.assertEqual(len(both["commands"]), 2 * len(one["commands"]))
        for a, b in zip(one["cells"], both["cells"]):
            for rep, e in a["reps"].items():
                if e["status"] != "ok":
                    continue
                got = b["reps"][rep]
                self.assertEqual(got["runs"], 2 * e["runs"], f"{a['id']} {rep}")
                self.assertEqual(sorted(got["runs_ops_sec"]), sorted(e["runs_ops_sec"] * 2))
                self.assertAlmostEqual(got["ops_sec"], e["ops_sec"], delta=1e-6 * e["ops_sec"])
        bad = os.path.join(ARGS.out, "not-a-matrix.json")
        with open(bad, "w") as f:
            f.write("{")
        proc = run("--from-json", path, bad, "--out", twice)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read", proc.stderr)
        with open(bad, "w") as f:
            f.write("{}")  # JSON, but no matrix
        proc = run("--from-json", path, bad, "--out", twice)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("cannot join", proc.stderr)

    @unittest.skipUnless(has_matplotlib(), "no matplotlib in this python")
    def test_heat_map(self):
        path = os.path.join(self.out, "matrix.png")
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(path), 10000)

    def test_bad_flags(self):
        for argv in (["--faces", "nope"], ["--threads", "0"], ["--shapes", "4/10"],
                     ["--workloads", "nosuch"], ["--distributions", "normal"],
                     ["--bench", "/nonexistent/memrep_bench", "--faces", "rep"]):
            proc = run(*argv, "--out", os.path.join(ARGS.out, "bad"))
            self.assertEqual(proc.returncode, 2, (argv, proc.stderr))

    def test_failed_check_is_exit_1(self):
        # A memrep_bench that lists the real reps and fails every run, as one
        # whose check fails does (exit 1).
        with tempfile.TemporaryDirectory() as tmp:
            stub = os.path.join(tmp, "memrep_bench")
            with open(stub, "w") as f:
                f.write(f"#!/bin/sh\nif [ \"$1\" = --list_reps ]; then exec {ARGS.bench} "
                        "--list_reps; fi\necho 'readwrite skip_list: wrong version' >&2\n"
                        "exit 1\n")
            os.chmod(stub, 0o755)
            out = os.path.join(ARGS.out, "failing")
            proc = run(*TINY, "--faces", "rep", "--bench", stub, "--out", out, "--no-plot")
            self.assertEqual(proc.returncode, 1, proc.stderr)
            with open(os.path.join(out, "matrix.json")) as f:
                doc = json.load(f)
            self.assertTrue(doc["failures"])
            self.assertIn("wrong version", doc["failures"][0])


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--bench", required=True)
    p.add_argument("--plugin", required=True)
    p.add_argument("--db-bench")
    p.add_argument("--ceiling", help="the ceiling's plugin: it joins the db_bench write cells")
    p.add_argument("--out", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.bench, ARGS.plugin = os.path.abspath(ARGS.bench), os.path.abspath(ARGS.plugin)
    os.makedirs(ARGS.out, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
