"""The PNG plots of report.py, drawn with matplotlib (Agg, no display).

draw_plots(doc, img_dir, disabled) draws every plot it has numbers for and
returns {"status": ok | skipped | failed, "error": ..., "files": ["img/x.png"]}.
A plot without numbers is left out; a plot that raises is a failure, the
others are still drawn.
"""
import os

import report_data as data
from common import times
from report_data import count

COLORS = {"skip_list": "#4c72b0", "vector": "#8c8c8c", "hash_skiplist": "#dd8452",
          "hash_linkedlist": "#937860", "sorted_hash": "#55a868",
          "memrep.SortedHash": "#55a868"}
DPI = 110


def color(rep):
    return COLORS.get(rep, "#c44e52")


def saved(plt, fig, path, title=None):
    """Titles fig (when a title is given), lays it out, writes it to path
    and closes it; True: the plot is drawn."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def ratio_axis(ax, values):
    """Log scale when the ratios span more than 20x, a line at 1x."""
    vals = [v for v in values if v and v > 0]
    log = bool(vals) and max(vals) / min(vals) > 20
    if log:
        ax.set_yscale("log")
    if vals:  # room above the tallest bar for its label and the legend
        ax.set_ylim(top=max(vals) * (4 if log else 1.25))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.grid(axis="y", alpha=0.3, which="both")


def label_bars(ax, bars, values):
    for b, v in zip(bars, values):
        if v:
            ax.annotate(times(v),
                        (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=7, xytext=(0, 1),
                        textcoords="offset points")


def plot_headline(plt, doc, path):
    """sorted_hash / skip_list per workload at the biggest rep-level size
    (both item sizes), with the targets; db_bench ratios beside it."""
    sets = data.rep_sets(doc, "rep")
    top = {}
    for s in sets:  # biggest first: keep the biggest size of each item size
        if data.CANDIDATE in s.reps and data.BASELINE in s.reps:
            top.setdefault(s.item_size, s)
    if not top:
        return False
    db = data.db_summary(doc)
    fig, axes = plt.subplots(1, 2 if db else 1, figsize=(13 if db else 8, 4.6),
                             gridspec_kw={"width_ratios": [3, 2]} if db else None,
                             squeeze=False)
    ax = axes[0][0]
    workloads = [w for w in data.WORKLOAD_ORDER if any(s.ratio(w, data.CANDIDATE)
                                                       for s in top.values())]
    items = sorted(top)
    width = 0.8 / len(items)
    targets = {w: t for w, _, t in data.TARGETS}
    allv = []
    for i, item in enumerate(items):
        s = top[item]
        vals = [s.ratio(w, data.CANDIDATE) or 0 for w in workloads]
        allv += vals
        xs = [x + (i - (len(items) - 1) / 2) * width for x in range(len(workloads))]
        bars = ax.bar(xs, vals, width, label=f"item size {item} ({count(s.num)} entries)",
                      color=["#55a868", "#2d6a3e"][i % 2])
        label_bars(ax, bars, vals)
    labelled = False
    for x, w in enumerate(workloads):
        if w in targets:
            ax.hlines(targets[w], x - 0.45, x + 0.45, colors="#c44e52", linestyles="--",
                      linewidth=1.2, label=None if labelled else "target (issue #3)")
            labelled = True
    ratio_axis(ax, allv + list(targets.values()))
    ax.set_xticks(range(len(workloads)), workloads, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("ops/s ratio to skip_list")
    ax.set_title("rep level (memrep_bench): sorted_hash / skip_list", fontsize=10)
    ax.legend(fontsize=7)
    if db:
        config, summary, workloads, reps = db
        ax = axes[0][1]
        vals = [data.db_ratio(summary, w, data.DB_CANDIDATE, reps[0]) or 0 for w in workloads]
        bars = ax.bar(range(len(workloads)), vals, 0.6, color=color(data.DB_CANDIDATE))
        label_bars(ax, bars, vals)
        ratio_axis(ax, vals)
        ax.set_xticks(range(len(workloads)), workloads, rotation=30, ha="right", fontsize=8)
        ax.set_title(f"db_bench, {count(config.get('num', 0))} keys: "
                     f"{data.DB_CANDIDATE} / {reps[0]}", fontsize=10)
    return saved(plt, fig, path,
                 "memrep.SortedHash vs RocksDB's skip_list memtable (higher is better)")


def plot_throughput(plt, s, path):
    """Grouped bars: every rep's ops/s ratio to skip_list, per workload."""
    reps = [r for r in s.reps if r != data.BASELINE]
    if data.BASELINE not in s.reps or not reps:
        return False
    fig, ax = plt.subplots(figsize=(11, 4.6))
    width = 0.8 / len(reps)
    allv = []
    for i, rep in enumerate(reps):
        vals = [s.ratio(w, rep) or 0 for w in s.workloads]
        allv += vals
        xs = [x + (i - (len(reps) - 1) / 2) * width for x in range(len(s.workloads))]
        bars = ax.bar(xs, vals, width, label=rep, color=color(rep))
        if len(reps) <= 2:
            label_bars(ax, bars, vals)
    ratio_axis(ax, allv)
    ax.set_xticks(range(len(s.workloads)), s.workloads, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("ops/s ratio to skip_list (missing bar: skipped)")
    ax.set_title(f"memrep_bench, {s.label()}: throughput relative to skip_list")
    ax.legend(fontsize=8)
    return saved(plt, fig, path)


def plot_scaling(plt, doc, path):
    workloads = [w for w in ("fillrandom", "readrandom", "seekrandom")
                 if data.scaling_series(doc, w)]
    if not workloads:
        return False
    fig, axes = plt.subplots(1, len(workloads), figsize=(4.4 * len(workloads), 4),
                             squeeze=False)
    for ax, w in zip(axes[0], workloads):
        for rep, pts in data.scaling_series(doc, w).items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=rep,
                    color=color(rep))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("entries in the memtable")
        ax.set_title(w)
        ax.grid(alpha=0.3, which="both")
    axes[0][0].set_ylabel("ops/s (item size 100)")
    axes[0][0].legend(fontsize=8)
    return saved(plt, fig, path, "memrep_bench: throughput vs entry count")


def plot_latency(plt, doc, path):
    """p50/p99/p99.9 per rep, for a few workloads, at the biggest item-100 set."""
    sets = [s for s in data.rep_sets(doc, "rep") if s.item_size == 100] or \
        data.rep_sets(doc, "rep")
    if not sets:
        return False
    s = max(sets, key=lambda x: (len(x.reps), x.num))  # the set with every rep
    workloads = [w for w in ("fillrandom", "readrandom", "seekrandom", "readwrite")
                 if any(s.entry(w, r) and s.entry(w, r).get("latency_samples") for r in s.reps)]
    if not workloads:
        return False
    fig, axes = plt.subplots(1, len(workloads), figsize=(3.6 * len(workloads), 4),
                             squeeze=False, sharey=True)
    pcts = [("p50_ns", "p50", 1.0), ("p99_ns", "p99", 0.65), ("p999_ns", "p99.9", 0.35)]
    for ax, w in zip(axes[0], workloads):
        reps = [r for r in s.reps if s.entry(w, r) and s.entry(w, r).get("latency_samples")]
        width = 0.8 / len(pcts)
        for i, (key, name, alpha) in enumerate(pcts):
            xs = [x + (i - 1) * width for x in range(len(reps))]
            ax.bar(xs, [s.entry(w, r)[key] for r in reps], width, alpha=alpha,
                   color=[color(r) for r in reps], edgecolor="black", linewidth=0.3,
                   label=name)
        ax.set_yscale("log")
        ax.set_xticks(range(len(reps)), reps, rotation=30, ha="right", fontsize=8)
        ax.set_title(w)
        ax.grid(axis="y", alpha=0.3, which="both")
    axes[0][0].set_ylabel("latency of one op, ns (log)")
    from matplotlib.patches import Patch
    axes[0][0].legend(handles=[Patch(facecolor="#555555", alpha=a, edgecolor="black",
                                     label=name) for _, name, a in pcts],
                      fontsize=7, title="bars, left to right", title_fontsize=7)
    return saved(plt, fig, path, f"memrep_bench, {s.label()}: sampled latency percentiles")


def plot_db_bench(plt, doc, path):
    db = data.db_summary(doc)
    if db is None:
        return False
    config, summary, workloads, reps = db
    others = reps[1:]
    if not others:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for ax, key, what in ((axes[0], "median_ops_sec", "ops/s"),
                          (axes[1], "median_rss_mb", "peak RSS")):
        width = 0.8 / len(others)
        allv = []
        for i, rep in enumerate(others):
            vals = [data.db_ratio(summary, w, rep, reps[0], key) or 0 for w in workloads]
            allv += vals
            xs = [x + (i - (len(others) - 1) / 2) * width for x in range(len(workloads))]
            bars = ax.bar(xs, vals, width, label=rep, color=color(rep))
            label_bars(ax, bars, vals)
        ratio_axis(ax, allv)
        ax.set_xticks(range(len(workloads)), workloads, rotation=30, ha="right", fontsize=8)
        ax.set_title(f"{what}: ratio to {reps[0]}")
    axes[0].legend(fontsize=8)
    return saved(plt, fig, path, f"db_bench, {count(config.get('num', 0))} keys, median of "
                                 f"{config.get('repeats')}")


def draw_plots(doc, img_dir, disabled=False):
    if disabled:
        return {"status": "skipped", "error": "--no-plots was given", "files": []}
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return {"status": "failed", "files": [],
                "error": f"matplotlib cannot be imported ({e}); install Debian's "
                         "python3-matplotlib (scripts/report.sh does) and run with a "
                         "python3 that sees it, or pass --no-plots"}
    os.makedirs(img_dir, exist_ok=True)
    jobs = [("headline.png", lambda p: plot_headline(plt, doc, p))]
    for s in data.rep_sets(doc, "rep"):
        jobs.append((f"throughput_{s.num}_item{s.item_size}.png",
                     lambda p, s=s: plot_throughput(plt, s, p)))
    jobs += [("scaling.png", lambda p: plot_scaling(plt, doc, p)),
             ("latency.png", lambda p: plot_latency(plt, doc, p)),
             ("db_bench.png", lambda p: plot_db_bench(plt, doc, p))]
    files, errors = [], []
    for name, draw in jobs:
        path = os.path.join(img_dir, name)
        try:
            if draw(path):
                files.append(f"img/{name}")
        except Exception as e:  # one broken plot must not cost the others
            plt.close("all")
            errors.append(f"{name}: {type(e).__name__}: {e}")
    return {"status": "failed" if errors else "ok", "error": "; ".join(errors) or None,
            "files": files}
