"""The matrix's runs: memrep_bench at the rep level, a group of cells per
invocation (the second build's alternating with it per repetition), and
db_bench through db_bench_compare.py's functions, one run per (cell, rep,
repetition) in a rotating order; each cell's medians go into the document.
"""
import contextlib
import io
import json
import os
import shlex
import statistics
import subprocess
import tempfile
import time

from matrix_grid import (CEILING_REP, CHOOSES_KEYS, DB_WORKLOADS, NDEBUG_PLUGIN_REP,
                         REP_WORKLOADS, ROOT, fmt_count, log, new_cell, rep_threads)
import db_bench_compare as dbc  # bench/report's, on the path matrix_grid sets
import db_bench_reps

# RocksDB's own reps: of them the rep level runs only skip_list (the base).
ROCKSDB_OWN = {"skip_list", "vector", "hash_skiplist", "hash_linkedlist"}


class Failure(Exception):
    """A benchmark that failed: recorded, and the exit status is 1."""


# ---------------------------------------------------------------- the rep level

def list_reps(bench):
    try:
        out = subprocess.run([bench, "--list_reps"], capture_output=True, text=True, timeout=60,
                             check=True, stdin=subprocess.DEVNULL).stdout
        return json.loads(out)["reps"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
        raise SystemExit(f"matrix: cannot list the reps of {bench} (--list_reps): {e}")


def wanted(a, rep):
    """Whether --reps keeps this rep (listed by any of its names)."""
    if a.reps is None:
        return True
    return bool({rep["name"], rep["canonical_name"], *rep["aliases"]} & set(a.reps))


def rep_level_reps(a, listed):
    """(base, [bench names in order]): the base, skip_list, memrep's reps, the peers."""
    names = {r["name"] for r in listed}
    base = "skip_list_ndebug" if "skip_list_ndebug" in names else "skip_list"
    order = [base] + (["skip_list"] if base != "skip_list" else [])
    order += [r["name"] for r in listed if r["memrep"] and wanted(a, r)]
    order += [r["name"] for r in listed if not r["memrep"] and r["name"] not in ROCKSDB_OWN
              and r["name"] not in order and wanted(a, r)]
    return base, order


def run_bench(a, doc, bench, reps, group, workloads, repeats, tag):
    """One memrep_bench invocation; returns its runs (each with "binary": tag)."""
    key_size, value_size, entries, dist, threads = group
    with tempfile.NamedTemporaryFile(prefix="matrix-", suffix=".json", delete=False) as f:
        json_path = f.name
    cmd = [bench, f"--benchmarks={','.join(workloads)}", f"--memtablerep={','.join(reps)}",
           f"--num_operations={entries}", f"--key_size={key_size}", f"--item_size={value_size}",
           f"--key_distribution={dist}", f"--num_threads={threads}", f"--repeats={repeats}",
           "--progress=false", f"--json={json_path}"]
    shown = shlex.join(cmd[:-1])
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout,
                              stdin=subprocess.DEVNULL)
        code, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        code, stderr = None, f"timed out after {a.timeout:g} s"
    wall = time.monotonic() - t0
    doc["commands"].append({"face": "rep", "command": shown, "wall_s": round(wall, 2),
                            "exit": code})
    try:
        if code != 0:
            tail = "\n".join(stderr.strip().splitlines()[-10:])
            raise Failure(f"memrep_bench {'timed out' if code is None else f'exit {code}'}: "
                          f"{shown}\n{tail}")
        with open(json_path) as f:
            runs = json.load(f)["runs"]
    finally:
        os.unlink(json_path)
    for r in runs:
        r["binary"] = tag
    return runs, wall


def rotated(xs, k):
    k %= len(xs)
    return xs[k:] + xs[:k]


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fold_rep_runs(cell, runs, label_of):
    """Median per rep of the runs of one cell into cell["reps"]."""
    by_rep = {}
    for r in runs:
        by_rep.setdefault(label_of(r), []).append(r)
    for label, mine in by_rep.items():
        done = [r for r in mine if not r["skipped"]]
        entry = {"runs": len(done)}
        if not done:
            entry.update(status="skipped", note=mine[0].get("note", ""), ops_sec=None)
        else:
            mixed = any(r.get("write_ops") for r in done)
            entry.update(
                status="ok",
                ops_sec=median_or_none([r["ops_per_sec"] for r in done]),
                runs_ops_sec=[r["ops_per_sec"] for r in done],
                p999_ns=median_or_none([r.get("p999_ns") or None for r in done]),
                bytes_per_entry=median_or_none([r.get("bytes_per_entry") for r in done]),
                create_us=median_or_none([r.get("create_us") for r in done]),
                destroy_us=median_or_none([r.get("destroy_us") for r in done]),
                seconds=median_or_none([r.get("seconds") for r in done]))
            if mixed:
                # The counted op of a mixed workload is the readers'; the writer apart.
                entry["read_ops_sec"] = entry["ops_sec"]
                entry["write_ops_sec"] = median_or_none([r.get("write_ops_per_sec")
                                                         for r in done])
            if done[0].get("note"):
                entry["note"] = done[0]["note"]
        cell["reps"][label] = entry


def run_rep_face(a, doc, save):
    bench = a.bench
    listed = list_reps(bench)
    base, reps = rep_level_reps(a, listed)
    doc["bases"]["rep"] = {
        "rep": base, "binary": bench,
        "why": ("skip_list_ndebug: RocksDB's skip list without assertions (build/peers)"
                if base == "skip_list_ndebug" else
                "skip_list (Debian's librocksdb, with assertions): this memrep_bench has no "
                "skip_list_ndebug peer (bash scripts/peers.sh builds it)")}
    old_reps = []
    if a.compare_bench:
        old_names = {r["name"] for r in list_reps(a.compare_bench)}
        old_reps = [r for r in reps if r in old_names]
    label = a.compare_label
    doc["reps"]["rep"] = reps + [f"{r}@{label}" for r in old_reps]
    workloads = [w for w in REP_WORKLOADS if a.workloads is None or w in a.workloads]
    groups = []  # (key, value, entries, distribution, threads) -> workloads
    for key_size, value_size in a.shapes:
        for entries in a.entries:
            for dist in a.distributions:
                by_threads = {}
                for w in workloads:
                    if dist != "uniform" and w not in CHOOSES_KEYS:
                        continue
                    for t in rep_threads(a, w):
                        by_threads.setdefault(t, []).append(w)
                for t, ws in sorted(by_threads.items()):
                    groups.append(((key_size, value_size, entries, dist, t), ws))
    for i, (group, ws) in enumerate(groups, 1):
        key_size, value_size, entries, dist, t = group
        log(f"[rep {i}/{len(groups)}] {key_size}/{value_size} {fmt_count(entries)} {dist} "
            f"threads {t}: {','.join(ws)} ({len(reps)} reps"
            f"{f' + {len(old_reps)}@{label}' if old_reps else ''}, {a.repeats} repetitions)")
        runs = []
        try:
            if not old_reps:
                got, _ = run_bench(a, doc, bench, reps, group, ws, a.repeats, "new")
                runs += got
            else:
                # memrep_bench runs one binary: alternate the two per repetition,
                # the first binary and the first rep rotating.
                for r in range(a.repeats):
                    for tag in rotated(["new", "old"], r):
                        path, names = ((bench, reps) if tag == "new"
                                       else (a.compare_bench, old_reps))
                        got, _ = run_bench(a, doc, path, rotated(names, r), group, ws, 1, tag)
                        runs += got
        except Failure as e:
            doc["failures"].append(str(e))
            log(f"FAILED: {e}")
            save()
            continue
        for w in ws:
            mine = [r for r in runs if r["workload"] == w]
            threads = max((r["threads"] for r in mine if not r["skipped"]), default=t)
            cell = new_cell("rep", w, key_size, value_size, entries, threads, dist)
            fold_rep_runs(cell, mine, lambda r: r["rep"] if r["binary"] == "new"
                          else f"{r['rep']}@{label}")
            doc["cells"].append(cell)
        save()


# ---------------------------------------------------------------- db_bench

def run_db_face(a, doc, save, tmp_parent):
    plugin = os.path.abspath(a.plugin)
    if not os.path.isfile(plugin):
        raise SystemExit(f"matrix: the plugin {plugin} is not built "
                         "(cmake --build --preset release --target memrep_rocksdb)")
    listed = list_reps(a.bench)
    memrep = [r for r in listed if r["memrep"] and wanted(a, r)]
    words = {"skip_list": "skip_list"}  # label -> db_bench_compare --reps word
    ndebug = a.ndebug_plugin
    if ndebug is None:
        guess = os.path.join(ROOT, "build", "peers", "bench", "libmemrep_skip_list_ndebug.so")
        ndebug = guess if os.path.isfile(guess) else "none"
    if ndebug != "none":
        ndebug = os.path.abspath(ndebug)
        if not os.path.isfile(ndebug):
            raise SystemExit(f"matrix: --ndebug-plugin {ndebug} does not exist")
        base = NDEBUG_PLUGIN_REP
        words = {base: f"{base}@{ndebug}", **words}
        why = f"{base}: RocksDB's skip list without assertions, preloaded from {ndebug}"
    else:
        base = "skip_list"
        why = ("skip_list: Debian's librocksdb, with assertions (no no-assertion skip-list "
               "plugin is built: bash scripts/peers.sh configures build/peers, then "
               "scripts/matrix.sh builds it)")
    for r in memrep:
        words[r["canonical_name"]] = r["canonical_name"]
    label = a.compare_label
    old = []
    if a.compare_plugin:
        cp = os.path.abspath(a.compare_plugin)
        if not os.path.isfile(cp):
            raise SystemExit(f"matrix: --compare-plugin {cp} does not exist")
        old_names = None
        if a.compare_bench:
            old_names = {r["canonical_name"] for r in list_reps(a.compare_bench)}
        for r in memrep:
            if old_names is None or r["canonical_name"] in old_names:
                words[f"{r['canonical_name']}@{label}"] = f"{r['canonical_name']}@{cp}"
                old.append(f"{r['canonical_name']}@{label}")
    ceiling_word = None
    if a.ceiling:
        ceiling_path = os.path.abspath(a.ceiling)
        if not os.path.isfile(ceiling_path):
            raise SystemExit(f"matrix: --ceiling {ceiling_path} does not exist")
        ceiling_word = f"{CEILING_REP}@{ceiling_path}"
    labels = list(words) + ([CEILING_REP] if ceiling_word else [])
    doc["bases"]["db_bench"] = {"rep": base, "why": why}
    doc["reps"]["db_bench"] = labels
    by_word = {w: l for l, w in words.items()}
    if ceiling_word:
        by_word[ceiling_word] = CEILING_REP
    threads = sorted(set(a.db_threads or [1, a.cores]))
    cells = [(w, t) for w in DB_WORKLOADS if a.workloads is None or w in a.workloads
             for t in threads]
    def cell_words(workload):
        write_only = ceiling_word and workload in dbc.WRITE_ONLY_WORKLOADS
        return list(words.values()) + ([ceiling_word] if write_only else [])

    total = sum(len(cell_words(DB_WORKLOADS[name][0])) for name, _ in cells) * a.repeats
    n = 0
    for name, t in cells:
        workload, extra = DB_WORKLOADS[name]
        argv = ["--reps", ",".join(words.values()), "--plugin", plugin,
                "--memrep-bench", a.bench, "--num", str(a.db_num), "--repeats", str(a.repeats),
                "--threads", str(t), "--timeout", str(a.timeout), "--workloads", workload]
        if a.db_bench:
            argv += ["--db-bench", a.db_bench]
        if ceiling_word and workload in dbc.WRITE_ONLY_WORKLOADS:
            argv += ["--ceiling", os.path.abspath(a.ceiling)]
        da = dbc.parse_args(argv)
        da.extra = list(extra)
        notes = io.StringIO()
        try:
            with contextlib.redirect_stderr(notes):
                dbc.validate(da)
        except dbc.BenchError as e:
            raise SystemExit(f"matrix: db_bench: {e}")
        for line in notes.getvalue().splitlines():
            # The no-assertion skip list is not memrep's: memrep_bench does not
            # list it, and it takes concurrent inserts as RocksDB's does.
            if NDEBUG_PLUGIN_REP not in line:
                log(line)
        if a.compare_bench:
            old_traits = db_bench_reps.list_reps(os.path.abspath(a.compare_bench))
            for l in old:
                rep = db_bench_reps.rep_name(words[l])
                if rep in old_traits:
                    da.rep_traits[words[l]] = dict(old_traits[rep], source="--compare-bench")
        cell = new_cell("db_bench", name, da.key_size, da.value_size, da.num, t, "uniform")
        mine = cell_words(workload)
        results = {by_word[w]: [] for w in mine}
        failed = False
        for r in range(a.repeats):
            for word in rotated(mine, r):
                n += 1
                l = by_word[word]
                try:
                    res = dbc.run_once(da, workload, word, r, tmp_parent)
                except dbc.BenchError as e:
                    if str(e).startswith("timed out"):
                        results[l].append(None)
                        log(f"[db {n}/{total}] {cell['id']} {l}: timed out ({a.timeout:g} s)")
                        continue
                    doc["failures"].append(f"db_bench {cell['id']} {l}: {e}")
                    log(f"FAILED: db_bench {cell['id']} {l}: {e}")
                    failed = True
                    continue
                results[l].append(res)
                doc["commands"].append({"face": "db_bench", "command": res["command"],
                                        "wall_s": res["wall_s"], "exit": 0})
                log(f"[db {n}/{total}] {cell['id']} {l}: {res['ops_sec']:,.0f} ops/s")
        for l, got in results.items():
            done = [x for x in got if x is not None]
            entry = {"runs": len(done)}
            if got and len(done) < len(got):
                entry.update(status="timeout", ops_sec=None,
                             note=f"{len(got) - len(done)} of {len(got)} runs past "
                             f"{a.timeout:g} s")
            elif not done:
                entry.update(status="failed", ops_sec=None)
            else:
                entry.update(status="ok", ops_sec=statistics.median(x["ops_sec"] for x in done),
                             runs_ops_sec=[x["ops_sec"] for x in done],
                             rss_mb=statistics.median(x["maxrss_kib"] for x in done) / 1024,
                             factory=done[0]["factory"])
            cell["reps"][l] = entry
        cell["failed"] = failed
        doc["cells"].append(cell)
        save()
