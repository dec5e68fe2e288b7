"""The main job's figures (compare.py): img/headline.png, each rep's ratio to
the base per workload class and thread count (compare_render's classes), and
img/scaling.png, ops/s by thread count where a workload ran at three or more.
Drawn with matplotlib (Agg); without it, none.
"""
import math
import os

from common import times
from compare_render import class_table, contenders, face_word, short

DPI = 110


def heat_colours():
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#d9d9d9")
    return cmap, TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0)


def plot_headline(plt, doc, path):
    """Reps x workload classes, each tile the class's ratio to the base."""
    table = class_table(doc)
    reps = contenders(doc)
    if any(r["reps"].get("ceiling") for r in table.values()):
        reps = reps + ["ceiling"]
    rows = list(table)
    if not rows or not reps:
        return False
    grid = [[table[k]["reps"].get(r) for r in reps] for k in rows]
    logs = [[float("nan") if v is None else max(-1.0, min(1.0, math.log10(max(v, 1e-3))))
             for v in row] for row in grid]
    cmap, norm = heat_colours()
    fig, ax = plt.subplots(figsize=(2.6 + 1.05 * len(reps), 1.3 + 0.42 * len(rows)),
                           constrained_layout=True)
    image = ax.imshow(logs, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            dark = v is not None and abs(logs[i][j]) > 0.6
            ax.text(j, i, times(v) if v is not None else "", ha="center", va="center",
                    fontsize=9, color="white" if dark else "black")
    ax.set_xticks(range(len(reps)))
    ax.set_xticklabels([short(r) for r in reps], rotation=20, ha="right", fontsize=9)
    ax.set_xlabel("rep (ceiling: a rep that stores nothing, db_bench write cells only)",
                  fontsize=9)
    for i in range(1, len(rows)):  # a line between the faces
        if rows[i][0] != rows[i - 1][0]:
            ax.axhline(i - 0.5, color="black", linewidth=1.5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{face_word(face)}: {cls}, {t} thread{'s' if t > 1 else ''}"
                        for face, cls, t in rows], fontsize=9)
    ax.set_ylabel("face: workload class, threads", fontsize=9)
    base = doc["names"].get(doc["matrix"]["bases"].get("rep", {}).get("rep", ""), "the base")
    ax.set_title(f"Which rep for which workload: ops/s over {base}'s\n(geometric mean of "
                 f"the class's cells; {doc['matrix']['machine']['cores']}"
                 f" cores, commit {str(doc['matrix'].get('git_commit'))[:10]})", fontsize=10)
    ticks = [-1, math.log10(0.2), math.log10(0.5), 0, math.log10(2), math.log10(5), 1]
    bar = fig.colorbar(image, ax=ax, ticks=ticks, shrink=0.8)
    bar.ax.set_yticklabels(["≤0.1x", "0.2x", "0.5x", "1x", "2x", "5x", "≥10x"], fontsize=8)
    bar.set_label("ratio to the base (log scale; grey: not run)", fontsize=8)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return True


def scaling_series(doc):
    """{(face, workload): {rep: [(threads, ops/s)]}} where a workload ran at
    three or more thread counts."""
    names, series = doc["names"], {}
    for c in doc["matrix"]["cells"]:
        for r, e in c["reps"].items():
            if e.get("ops_sec") and "@" not in r and names.get(r, r) != "ceiling":
                series.setdefault((c["face"], c["workload"]), {}).setdefault(
                    names.get(r, r), []).append((c["threads"], e["ops_sec"]))
    return {k: {r: sorted(p) for r, p in v.items()} for k, v in series.items()
            if len({t for p in v.values() for t, _ in p}) >= 3}


def plot_scaling(plt, doc, path):
    series = scaling_series(doc)
    if not series:
        return False
    keys = sorted(series)
    reps = []  # one colour per rep in every panel, one legend for all
    for k in keys:
        reps += [r for r in series[k] if r not in reps]
    palette = plt.get_cmap("tab10")
    colour = {r: palette(i % 10) for i, r in enumerate(reps)}
    cols = min(4, len(keys))
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows + 0.6), squeeze=False,
                             constrained_layout=True)
    threads = sorted({t for k in keys for p in series[k].values() for t, _ in p})
    for ax, key in zip([a for row in axes for a in row], keys):
        for rep, points in series[key].items():
            ax.plot([t for t, _ in points], [v / 1e6 for _, v in points], marker="o",
                    color=colour[rep], label=short(rep), linewidth=1.2, markersize=3)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.minorticks_off()
        ax.set_ylim(bottom=0)
        ax.set_title(f"{face_word(key[0])}: {key[1]}", fontsize=9)
        ax.set_xlabel("threads", fontsize=8)
        ax.set_ylabel("M ops/s", fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in [a for row in axes for a in row][len(keys):]:
        ax.set_visible(False)
    handles = [plt.Line2D([], [], color=colour[r], marker="o", label=short(r)) for r in reps]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(8, len(reps)), fontsize=8)
    fig.suptitle("Thread scaling: median ops/s by thread count (for the mixed workloads, "
                 "the readers')", fontsize=11)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return True


def draw(doc, img_dir):
    """{name: 'img/x.png'} of the figures drawn; {} without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    os.makedirs(img_dir, exist_ok=True)
    drawn = {}
    for name, fn in (("headline", plot_headline), ("scaling", plot_scaling)):
        path = os.path.join(img_dir, f"{name}.png")
        if fn(plt, doc, path):
            drawn[name] = f"img/{name}.png"
        elif os.path.exists(path):
            os.unlink(path)
    return drawn
