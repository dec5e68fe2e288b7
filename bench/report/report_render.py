"""benchmarks.md from the document report.py writes (benchmarks.json).

render(doc) returns (markdown, failures). A part that failed or did not run
shows as a note where its tables would be; a section that cannot be drawn
says so and counts as a failure, so the report is always written.
"""
import report_data as data
from report_data import count, figure_text, ops_text, percent_text, ratio_text

MODE_NOTE = {
    "short": "**Short mode**: small sizes and one repetition, for a quick look on any "
             "machine (`scripts/report.sh --short`). The published numbers are in "
             "`docs/results/benchmarks.md`, made by `bash scripts/report.sh --full`.",
    "full": "Made by `bash scripts/report.sh --full`. Regenerate it with the same command; "
            "do not edit it by hand.",
}


def duration(seconds):
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def image(doc, name, alt):
    files = (doc.get("plots") or {}).get("files", [])
    return f"![{alt}](img/{name})\n" if f"img/{name}" in files else ""


# ---------------------------------------------------------------- sections

def section_targets(doc):
    rows = data.target_rows(doc)
    out = ["## Targets (issue #3) vs measured\n",
           f"`{data.CANDIDATE}` over `{data.BASELINE}` at the rep level (memrep_bench), "
           f"ratio of median ops/s. The targets are stated at {count(data.TARGET_NUM)} "
           "entries; each row says where it was measured (the biggest rep-level size run). "
           "The verdict is computed from the numbers below.\n"]
    off_size = sum(r["verdict"] == data.NOT_AT_TARGET_SIZE for r in rows)
    if off_size:
        out.append(f"**Not at {count(data.TARGET_NUM)} entries**: {off_size} of {len(rows)} "
                   "rows were measured on other sizes (column 'entries'). They have no "
                   "verdict: a smaller memtable's ratios are not the targets' (what they "
                   "would give is in brackets, for orientation only).\n")

    def verdict_text(r):
        if r["indication"]:
            return f"**{r['verdict']}** ({r['indication']} at {count(r['num'])})"
        return f"**{r['verdict']}**"

    body = [[f"{r['workload']} ({r['what']})", r["item_size"],
             count(r["num"]) if r["num"] else "-", ops_text(r["base_ops"]),
             ops_text(r["ops"]), ratio_text(r["ratio"], r["target"]),
             f">= {r['target']:g}x", verdict_text(r)] for r in rows]
    out.append(table(["workload", "item size", "entries", f"{data.BASELINE} ops/s",
                      f"{data.CANDIDATE} ops/s", "ratio", "target", "verdict"], body))
    met = sum(r["verdict"] == "met" for r in rows)
    at_size = sum(r["verdict"] in ("met", "missed") for r in rows)
    out.append(f"\n{met} of {at_size} targets measured at {count(data.TARGET_NUM)} entries met"
               f" ({len(rows)} targets in all).\n")
    return "\n".join(out)


def section_machine(doc):
    m = doc.get("machine", {})
    rocks = m.get("rocksdb_packages", {})
    rows = [
        ["date", doc.get("generated", "")],
        ["git commit", (m.get("git_commit") or "?") +
         (" (with uncommitted changes)" if m.get("git_dirty") else "")],
        ["CPU", m.get("cpu_model", "")],
        ["cores", f"{m.get('cpus_online', '?')} online, {m.get('cpus_usable', '?')} usable"],
        ["RAM", f"{m.get('ram_gib', '?')} GiB"],
        ["OS, kernel", f"{m.get('os', '')}, {m.get('kernel', '')}"],
        ["compiler", m.get("compiler", "")],
        ["build", m.get("build", "")],
        ["RocksDB (Debian)", ", ".join(f"{p} {v or 'not installed'}" for p, v in rocks.items())],
        ["load average (1/5/15 min) at start, end",
         f"{' '.join(m.get('loadavg_start', []))}; {' '.join(m.get('loadavg_end', []))}"],
        ["wall time of the runs", duration(doc.get("total_wall_s", 0))],
        ["python, matplotlib", f"{m.get('python', '')}, {m.get('matplotlib') or 'none'}"],
    ]
    return "## Machine\n\n" + table(["", ""], rows) + "\n"


def throughput_table(s):
    reps = s.reps
    others = [r for r in reps if r != data.BASELINE]
    header = ["workload"] + [f"{r} ops/s" for r in reps] + [f"{r} / {data.BASELINE}"
                                                            for r in others]
    rows = []
    for w in s.workloads:
        cells = [w]
        for r in reps:
            cells.append(ops_text(s.ops(w, r)) if s.entry(w, r) else
                         ("skipped" if s.skipped_note(w, r) else "-"))
        cells += [ratio_text(s.ratio(w, r)) if data.BASELINE in reps else "-" for r in others]
        rows.append(cells)
    return table(header, rows)


def latency_table(s):
    header = ["workload"] + [f"{r} p50 / p99 / p99.9 ns" for r in s.reps]
    rows = []
    for w in s.workloads:
        cells = [w]
        for r in s.reps:
            e = s.entry(w, r)
            if not e or not e.get("latency_samples"):
                cells.append("-")
            else:
                cells.append(" / ".join(f"{e.get(k, 0):,.0f}" for k in ("p50_ns", "p99_ns",
                                                                      "p999_ns")))
        rows.append(cells)
    return table(header, rows)


def number(x, fmt, divisor=1):
    return "-" if x is None else fmt.format(x / divisor)


def memory_table(s):
    rows = []
    for r in s.reps:
        fill, rw = s.entry("fillrandom", r), s.entry("readwrite", r)
        fill, rw = fill or {}, rw or {}
        rows.append([r, number(fill.get("bytes_per_entry"), "{:.1f}"),
                     number(rw.get("bytes_per_entry"), "{:.1f}"),
                     number(fill.get("arena_reserved_bytes"), "{:,.0f}", 1 << 20),
                     number(fill.get("create_us"), "{:,.1f}"),
                     number(fill.get("destroy_us"), "{:,.0f}")])
    return table(["rep", "B/entry (fillrandom)", "B/entry (readwrite, 2n entries)",
                  "arena reserved MiB (fillrandom)", "create us", "destroy us (fillrandom)"],
                 rows)


def skipped_notes(s):
    notes = sorted({f"`{r}` in {w}: {s.skipped_note(w, r)}" for w in s.workloads
                    for r in s.reps if s.skipped_note(w, r)})
    return "".join(f"- {n}\n" for n in notes)


def repeats_text(s):
    reps = s.repeats
    return (f"median of {reps[0]}" if reps == [3] or (len(reps) == 1 and reps[0] > 1)
            else "one repetition" if reps == [1] else f"repetitions {reps}")


def section_rep_level(doc):
    out = ["## Rep level (memrep_bench)\n",
           "Every rep through `rocksdb::MemTableRep` in one process, on the same keys, reps "
           "alternating within every repetition; 16-byte keys, values of the item size, one "
           "thread (two for concurrentfill, readwrite, seekwhilewriting: a writer and a "
           "reader). Workloads, checks and metrics: [bench/README.md](../../bench/README.md). "
           "readseq runs with `--num_scans=1` (one full scan per iterator; its op is one "
           "entry, so this only shortens the run). Ratios are to `skip_list` in the same "
           "run.\n"]
    failed = [r for r in doc.get("rep_runs", []) if r.get("part") == "rep"
              and r.get("status") != "ok"]
    for r in failed:
        out.append(f"**Run `{r['name']}` failed** ({count(r['num'])} entries, item size "
                   f"{r['item_size']}): see Failures. Its workloads have no numbers below.\n")
    sets = data.rep_sets(doc, "rep")
    if not sets:
        out.append("No rep-level numbers: " + ("the part was not run (`--parts`).\n"
                   if "rep" not in doc.get("parts", []) else "every run failed.\n"))
    for s in sets:
        tag = f"{s.num}_item{s.item_size}"
        out.append(f"### {s.label()} ({repeats_text(s)})\n")
        out.append("Throughput, median ops/s, and ratio to skip_list:\n")
        out.append(throughput_table(s) + "\n")
        out.append(image(doc, f"throughput_{tag}.png", f"throughput, {s.label()}"))
        out.append("Latency of single operations (sampled; `-`: too few ops to sample):\n")
        out.append(latency_table(s) + "\n")
        out.append("Memory per entry and the rep's creation and destruction:\n")
        out.append(memory_table(s) + "\n")
        notes = skipped_notes(s)
        if notes:
            out.append("Not run (by design of the harness):\n\n" + notes)
    lat = image(doc, "latency.png", "latency percentiles")
    if lat:
        out.append("### Latency distribution\n\n" + lat)
    return "\n".join(out)


def section_scaling(doc):
    out = ["## Throughput vs entry count\n",
           "Item size 100, ops/s by entries in the memtable (rep level; every run of "
           "that size, this part's and the rep-level tables'). `(n)`: repetitions.\n"]
    any_data = False
    for w in ("fillrandom", "readrandom", "seekrandom"):
        series = data.scaling_series(doc, w)
        if not series:
            continue
        any_data = True
        sizes = sorted({n for pts in series.values() for n, _, _ in pts})
        reps = [r for r in data.REP_ORDER if r in series] + sorted(set(series) -
                                                                   set(data.REP_ORDER))
        rows = []
        for n in sizes:
            row = [count(n)]
            for r in reps:
                pt = next((p for p in series[r] if p[0] == n), None)
                row.append(f"{ops_text(pt[1])} ({pt[2]})" if pt else "-")
            base = next((p for p in series.get(data.BASELINE, []) if p[0] == n), None)
            cand = next((p for p in series.get(data.CANDIDATE, []) if p[0] == n), None)
            row.append(ratio_text(cand[1] / base[1]) if base and cand else "-")
            rows.append(row)
        out.append(f"**{w}**\n")
        out.append(table(["entries"] + reps + [f"{data.CANDIDATE} / {data.BASELINE}"], rows)
                   + "\n")
    if not any_data:
        out.append("No numbers: " + ("the part was not run.\n" if "scaling" not in
                   doc.get("parts", []) else "every run failed.\n"))
    out.append(image(doc, "scaling.png", "throughput vs entry count"))
    failed = [r for r in doc.get("rep_runs", []) if r.get("part") == "scaling"
              and r.get("status") != "ok"]
    out += [f"**Run `{r['name']}` failed**: see Failures.\n" for r in failed]
    return "\n".join(out)


def section_db_bench(doc):
    db = doc.get("db_bench") or {}
    out = ["## DB level (Debian's db_bench)\n",
           "`bench/report/db_bench_compare.py`: Debian's `db_bench` (RocksDB "
           f"{doc.get('machine', {}).get('rocksdb_packages', {}).get('rocksdb-tools') or '?'}),"
           f" `{data.DB_BASELINE}` vs `{data.DB_CANDIDATE}` (the plugin, `LD_PRELOAD`), one "
           "db_bench process per (workload, rep, repetition), reps alternating. WAL off, no "
           "compression, 16-byte keys, 100-byte values, a write buffer that keeps every "
           "entry of a run in one memtable (see write_buffer_size below). Each read "
           "workload fills the DB first (fillrandom).\n"]
    got = data.db_summary(doc)
    if got is None:
        if db.get("status") == "failed":
            out.append("**Failed**: no db_bench numbers; see Failures.\n")
        else:
            out.append("Not run (`--parts`).\n")
        return "\n".join(out)
    config, summary, workloads, reps = got
    base, others = reps[0], reps[1:]
    real = [r for r in reps if r != data.CEILING]  # the reps that store what they get
    out.append(f"num={config.get('num')}, reads={config.get('reads')}, "
               f"write_buffer_size={config.get('write_buffer_size')}, median of "
               f"{config.get('repeats')}.\n")
    rows = []
    for w in workloads:
        m = summary[w]
        rows.append([w] + [f"{m[r]['median_ops_sec']:,.0f}" for r in reps] +
                    [ratio_text(data.db_ratio(summary, w, r, base)) for r in others])
    out.append(table(["workload"] + [f"{r} ops/s" for r in reps] +
                     [f"{r} / {base}" for r in others], rows) + "\n")
    out.append(image(doc, "db_bench.png", "db_bench ratios"))
    if len(real) < len(reps):
        out.append(f"**Share of the ceiling**: `{data.CEILING}` stores nothing (its own plugin, "
                   "`libmemrep_ceiling.so`), so its rate is what the rest of RocksDB's path "
                   "allows; each rep's median ops/s over its.\n")
        rows = [[w, f"{summary[w][data.CEILING]['median_ops_sec']:,.0f}"] +
                [percent_text(data.db_ceiling_share(summary, w, r)) for r in real]
                for w in workloads]
        out.append(table(["workload", f"{data.CEILING} ops/s"] + [f"{r} share" for r in real],
                         rows) + "\n")
    rows = []
    for w in workloads:
        m = summary[w]
        rows.append([w] + [f"{m[r]['median_rss_mb']:,.0f}" for r in reps] +
                    [ratio_text(data.db_ratio(summary, w, r, base, "median_rss_mb"))
                     for r in others])
    # The workload where the last rep's RSS ratio is highest: the figure a
    # memory target is held to (a column's maximum could hide it).
    rss_ratio = {w: data.db_ratio(summary, w, real[-1], base, "median_rss_mb") for w in workloads}
    known = [w for w in workloads if rss_ratio[w] is not None]
    if others and known:
        w = max(known, key=lambda k: rss_ratio[k])
        rows.append([f"**highest ratio**: {w}"] +
                    [f"{summary[w][r]['median_rss_mb']:,.0f}" for r in reps] +
                    [ratio_text(data.db_ratio(summary, w, r, base, "median_rss_mb"))
                     for r in others])
    out.append("Peak RSS of the db_bench process (median, MB):\n")
    out.append(table(["workload"] + [f"{r} MB" for r in reps] +
                     [f"{r} / {base}" for r in others], rows) + "\n")
    runs = (db.get("data") or {}).get("runs", [])
    lines = []
    for w in workloads:
        pick = next((x for x in runs if x.get("workload") == w and x.get("rep") == real[-1]),
                    None)
        if pick:
            lines.append(f"- {w}: `{pick['command']}`")
    if lines:
        out.append("db_bench command lines (one per workload; `--db` is a fresh temporary "
                   "directory):\n\n" + "\n".join(lines) + "\n")
    return "\n".join(out)


def nimbus_targets_table(rows):
    """The Nimbus targets as the report's other targets: measured, ratio, target, verdict."""
    body = []
    for r in rows:
        decimals = next(d for f, _, d in data.NIMBUS_COLUMNS if f == r["figure"])
        body.append([f"{r['what']} ({r['figure']}) over `{r['base']}`'s",
                     f"`{r['run']}`" if r["run"] else "-",
                     count(r["records"]) if r["records"] else "-",
                     figure_text(r["base_value"], decimals), figure_text(r["value"], decimals),
                     ratio_text(r["ratio"], r["target"], r["higher_is_better"]),
                     f"{'>=' if r['higher_is_better'] else '<='} {r['target']:g}x",
                     f"**{r['verdict']}**"])
    return table(["ratio of", "measured in", "records", "base rep's",
                  f"{data.NIMBUS_CANDIDATE}'s", "ratio", "target", "verdict"], body)


def nimbus_medians_table(run):
    """Every rep's medians, with memrep_nimbus_import's own columns."""
    rows = [[m.get("rep", "?")] + [figure_text(data.number_or_none(m.get(f)), d)
                                   for f, _, d in data.NIMBUS_COLUMNS]
            for m in run["data"].get("medians", [])]
    return table(["rep"] + [h for _, h, _ in data.NIMBUS_COLUMNS], rows)


NIMBUS_USES = {
    ("import", "reads"): "every figure",
    ("reads",): "the read figures (recent reads/s, first read ms)",
    ("import",): "the import figures (import, persist, flush and stall; no read phases)",
}


def section_nimbus(doc):
    out = ["## The Nimbus scenario (memrep_nimbus_import)\n",
           "`bench/nimbus_import/`: one writer persists big `WriteBatch`es of random "
           "32-byte keys (100-byte values) into a real RocksDB database, per memtable rep, "
           "and reads recent keys between persists (every `Get` checked); WAL on, "
           "64 MiB write buffers, 2 of them, RocksDB's default compaction. Figures: medians "
           "over the runs, reps alternating ([bench/README.md](../../bench/README.md), \"The "
           "Nimbus scenario\"). `--db` is a temporary directory.\n"]
    runs = doc.get("nimbus_runs", [])
    if not runs:
        out.append("Not run (`--parts`).\n" if "nimbus" not in doc.get("parts", []) else
                   "**Failed**: no invocation ran; see Failures.\n")
        return "\n".join(out)
    rows = data.nimbus_target_rows(doc)
    out.append(f"### Targets: `{data.NIMBUS_CANDIDATE}` vs RocksDB's memtables\n")
    out.append(f"`{data.NIMBUS_CANDIDATE}`'s median over the base rep's, from the same "
               "invocation. The verdict is computed from the numbers below; \"not "
               "measured\": a rep or its invocation is missing.\n")
    small = sorted({r["records"] for r in rows
                    if r["records"] and r["records"] < data.NIMBUS_RECORDS})
    if small:
        out.append(f"**Not the full scenario**: measured with "
                   f"{', '.join(count(n) for n in small)} records (the program's default "
                   f"is {count(data.NIMBUS_RECORDS)}), so the verdicts only indicate.\n")
    out.append(nimbus_targets_table(rows))
    met = sum(r["verdict"] == "met" for r in rows)
    out.append(f"\n{met} of {len(rows)} targets met.\n")
    for run in runs:
        uses = NIMBUS_USES.get(tuple(data.nimbus_uses(run)), "?")
        out.append(f"### `{run.get('name')}`: {uses}\n")
        out.append(f"```sh\n{run.get('command', '?')}\n```\n")
        if run.get("status") != "ok" or not (run.get("data") or {}).get("medians"):
            out.append("**Failed**: no numbers; see Failures.\n")
            continue
        d = run["data"]
        params = d.get("params", {})
        out.append(", ".join(f"{k}={v}" for k, v in params.items()) +
                   f"; load average {d.get('loadavg_start', '?')} at start, "
                   f"{d.get('loadavg_end', '?')} at end.\n")
        out.append(nimbus_medians_table(run) + "\n")
    return "\n".join(out)


def section_commands(doc):
    out = ["## Commands\n", "The report (`scripts/report.sh` runs it, after installing what "
           "is missing and building the release preset's `memrep_bench`, "
           "`memrep_nimbus_import` and `memrep_rocksdb`):\n", "```sh", doc.get("report_command", "?"), "```\n",
           "What it ran, in order, with the wall time of each:\n", "```sh"]
    for r in doc.get("rep_runs", []):
        out.append(f"{r.get('command', '?')}    # {r.get('wall_s', 0):g} s, {r.get('status')}")
    db = doc.get("db_bench") or {}
    if db.get("command"):
        out.append(f"{db['command']}    # {db.get('wall_s', 0):g} s, {db.get('status')}")
    for r in doc.get("nimbus_runs", []):
        out.append(f"{r.get('command', '?')}    # {r.get('wall_s', 0):g} s, {r.get('status')}")
    out.append("```\n")
    return "\n".join(out)


def failures(doc):
    """[(what, message)] of every part that should have run and did not."""
    out = []
    for r in doc.get("rep_runs", []):
        if r.get("status") != "ok":
            out.append((f"memrep_bench run `{r.get('name')}`", r.get("error") or "no data"))
    db = doc.get("db_bench") or {}
    if "db_bench" in doc.get("parts", []) and db.get("status") != "ok":
        out.append(("db_bench_compare.py", db.get("error") or "did not run"))
    for r in doc.get("nimbus_runs", []):
        if r.get("status") != "ok":
            out.append((f"memrep_nimbus_import run `{r.get('name')}`",
                        r.get("error") or "no data"))
    if "nimbus" in doc.get("parts", []) and not doc.get("nimbus_runs"):
        out.append(("memrep_nimbus_import", "did not run"))
    plots = doc.get("plots") or {}
    if plots.get("status") == "failed":
        out.append(("plots", plots.get("error") or "?"))
    return out


def render(doc):
    """(markdown text, [(what, message)] failures)."""
    fails = failures(doc)
    head = ["# memrep benchmarks\n", MODE_NOTE.get(doc.get("mode"), "Redrawn from "
            "benchmarks.json.") + f" Raw numbers: [benchmarks.json](benchmarks.json).\n"]
    plots = doc.get("plots") or {}
    if plots.get("status") == "skipped":
        head.append(f"No plots: {plots.get('error')}.\n")
    if fails:
        head.append(f"**{len(fails)} part(s) failed**; their numbers are missing. "
                    "See [Failures](#failures).\n")
    head.append(image(doc, "headline.png", "headline: sorted_hash vs skip_list"))
    body = []
    for section in (section_targets, section_machine, section_rep_level, section_scaling,
                    section_db_bench, section_nimbus, section_commands):
        try:
            body.append(section(doc))
        except Exception as e:  # a malformed document must not cost the whole report
            title = section.__name__.replace("section_", "")
            body.append(f"## {title}\n\n**This section could not be drawn**: "
                        f"{type(e).__name__}: {e}\n")
            fails.append((f"section {title}", f"{type(e).__name__}: {e}"))
    if fails:
        tail = ["## Failures\n"]
        for what, msg in fails:
            tail.append(f"- **{what}**:\n\n```\n{msg.strip()}\n```\n")
        body.append("\n".join(tail))
    return "\n".join(head) + "\n" + "\n".join(body), fails


def terminal_summary(doc):
    """The target tables and the db_bench ratio table, for the terminal."""
    lines = ["", "== targets: sorted_hash / skip_list (rep level) =="]
    for r in data.target_rows(doc):
        where = f"{count(r['num'])}" if r["num"] else "-"
        lines.append(f"  {r['workload']:<12} item {r['item_size']:<3} @ {where:<5} "
                     f"{ratio_text(r['ratio'], r['target']):>9}  (target >= "
                     f"{r['target']:g}x)  {r['verdict']}")
    got = data.db_summary(doc)
    lines.append("\n== db_bench (median ops/s) ==")
    if got is None:
        lines.append("  no db_bench numbers (" + ((doc.get("db_bench") or {}).get("status")
                                                  or "not run") + ")")
    else:
        config, summary, workloads, reps = got
        base = reps[0]
        lines.append(f"  num={config.get('num')} repeats={config.get('repeats')} "
                     f"write_buffer_size={config.get('write_buffer_size')}")
        lines.append("  " + f"{'workload':<24}" + "".join(f"{r:>20}" for r in reps) +
                     "".join(f"{r + ' / ' + base:>34}" for r in reps[1:]))
        for w in workloads:
            lines.append("  " + f"{w:<24}" + "".join(
                f"{summary[w][r]['median_ops_sec']:>20,.0f}" for r in reps) + "".join(
                f"{ratio_text(data.db_ratio(summary, w, r, base)):>34}" for r in reps[1:]))
    if "nimbus" in doc.get("parts", []) or doc.get("nimbus_runs"):
        lines.append(f"\n== Nimbus scenario: {data.NIMBUS_CANDIDATE} / RocksDB's memtables ==")
        for r in data.nimbus_target_rows(doc):
            where = count(r["records"]) if r["records"] else "-"
            sign = ">=" if r["higher_is_better"] else "<="
            lines.append(f"  {r['figure'] + ' / ' + r['base']:<32} @ {where:<5} "
                         f"{ratio_text(r['ratio'], r['target'], r['higher_is_better']):>9}  "
                         f"(target {sign} {r['target']:g}x)  {r['verdict']}")
    return "\n".join(lines)
