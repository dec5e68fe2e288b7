"""The matrix's outputs from an analysed document: matrix.md (a table per
face, each rep's worst cell, the tail latency, new over old), the short
summary on stdout, and matrix.png (the heat map, when matplotlib is there).
"""
import math
import os

from matrix_grid import log
import common  # bench/report's, on the path matrix_grid sets
import report_data
from matrix_analysis import FLAG_CLIFF, FLAG_LOW, TAIL_LIMIT, TAIL_WORKLOADS, analyse


def fmt_ratio(r, status="ok"):
    if status == "timeout":
        return "t/o"
    if r is None or r >= 0.01:
        return common.times(r, whole_from=100)
    return f"{r:.1g}x" if r > 0 else "0x"


def flagged(r, status="ok"):
    text = fmt_ratio(r, status)
    if r is None:
        return text
    if 0.995 <= r < FLAG_LOW:
        text = f"{r:.3f}x"  # not "1.00x" beside a flag
    if r < FLAG_CLIFF:
        return f"**{text}** !!"
    if r < FLAG_LOW:
        return f"{text} !"
    return text


FACE_TITLE = {"rep": "Rep level (memrep_bench)",
              "db_bench": "db_bench (Debian's db_bench, memrep's plugin preloaded)"}


def markdown(doc):
    m = doc["machine"]
    out = ["# memrep matrix", "",
           f"Mode `{doc['mode']}`, commit `{doc.get('git_commit')}`, {m['cores']} cores "
           f"({m['cpu']}), load average {doc.get('load_start')} at the start and "
           f"{doc.get('load_end')} at the end, {doc.get('wall_s', 0) / 60:.1f} min, median of "
           f"{doc['repeats']} repetition(s). Command: `{doc.get('command', '')}`.", "",
           "Each entry is the rep's median ops/s over the base's in the same cell "
           f"(for mixed workloads the readers' ops). **bold !!**: below {FLAG_CLIFF}x; `!`: "
           f"below {FLAG_LOW}x; `t/o`: a db_bench run past the timeout; `-`: skipped "
           "(memrep_bench's reason in matrix.json) or not run.", ""]
    label = doc.get("compare_label", "old")
    for face, s in doc["summary"].items():
        reps = doc["reps"][face]
        cells = [c for c in doc["cells"] if c["face"] == face]
        out += [f"## {FACE_TITLE[face]}", "", f"Base: {doc['bases'][face]['why']}.", ""]
        out.append("| cell | base ops/s | " + " | ".join(reps) + " |")
        out.append("|---|---|" + "---|" * len(reps))
        for c in cells:
            row = [c["id"], report_data.ops_text(c.get("base_ops_sec"))]
            for r in reps:
                e = c["reps"].get(r)
                row.append("-" if e is None else flagged(e.get("ratio"), e["status"]))
            out.append("| " + " | ".join(row) + " |")
        out += ["", f"### Worst cell per rep ({face})", "",
                "| rep | worst cell | ratio to base | flag |", "|---|---|---|---|"]
        for r, w in s["worst"].items():
            flag = ("below 0.8x" if w["ratio"] < FLAG_CLIFF else
                    "below 1.0x" if w["ratio"] < FLAG_LOW else "")
            out.append(f"| {r} | {w['cell']} | {fmt_ratio(w['ratio'], w['status'])} | {flag} |")
        k = s["counts"]
        out += ["", f"{k['cells']} cells; {k['below_1']} where some rep is below 1.0x, "
                f"{k['below_0.8']} below 0.8x.", ""]
        if s.get("tail"):
            tail_cells = [c for c in cells if c["workload"] in TAIL_WORKLOADS]
            out += [f"### Tail latency while writing ({face})", "",
                    "p99.9 of the readers' op (a Get in readwrite, a new iterator's Seek and "
                    "Nexts in seekwhilewriting; memrep_bench times about one op in 64) over "
                    f"the base's in the same cell; **bold !!**: above {TAIL_LIMIT:g}x. The "
                    "base's own p99.9 in ns.", "",
                    "| cell | base p99.9 ns | " + " | ".join(r for r in reps if r != s["base"])
                    + " |", "|---|---|" + "---|" * (len(reps) - 1)]
            for c in tail_cells:
                bp = c["reps"].get(s["base"], {}).get("p999_ns")
                row = [c["id"], "-" if not bp else f"{bp:,.0f}"]
                for r in reps:
                    if r == s["base"]:
                        continue
                    q = c["reps"].get(r, {}).get("p999_ratio")
                    text = "-" if q is None else f"{q:.2f}x"
                    row.append(f"**{text}** !!" if q is not None and q > TAIL_LIMIT else text)
                out.append("| " + " | ".join(row) + " |")
            out += ["", "Worst p99.9 over the base's per rep: " + "; ".join(
                f"{r} {w['ratio']:.2f}x at {w['cell']}" for r, w in s["tail"].items()) + ".", ""]
        if s["worst_vs_old"]:
            olds = [r for r in reps if f"{r}@{label}" in reps]
            out += [f"### New over @{label}, per cell ({face})", "",
                    "| cell | " + " | ".join(olds) + " |", "|---|" + "---|" * len(olds)]
            for c in cells:
                out.append("| " + " | ".join(
                    [c["id"]] + [flagged(c["reps"].get(r, {}).get("vs_old")) for r in olds]) + " |")
            out += ["", f"Worst new/@{label} per rep: " + "; ".join(
                f"{r} {fmt_ratio(w['ratio'])} at {w['cell']}"
                for r, w in s["worst_vs_old"].items()) + ".", ""]
    if doc["failures"]:
        out += ["## Failures", ""] + [f"- ```{f}```".replace("\n", " ") for f in doc["failures"]]
    return "\n".join(out) + "\n"


def summary_lines(doc):
    label = doc.get("compare_label", "old")
    lines = []
    for face, s in doc["summary"].items():
        k = s["counts"]
        lines.append(f"{face}: base {s['base']}; {k['cells']} cells, {k['below_1']} with a rep "
                     f"below 1.0x, {k['below_0.8']} below 0.8x. Worst cell per rep:")
        for r, w in s["worst"].items():
            if r.endswith(f"@{label}"):
                continue
            extra = ""
            if r in s["worst_vs_old"]:
                v = s["worst_vs_old"][r]
                extra = f"  (new/@{label} worst {fmt_ratio(v['ratio'])} at {v['cell']})"
            lines.append(f"  {r:<22} {fmt_ratio(w['ratio'], w['status']):>7}  {w['cell']}{extra}")
        if s.get("tail"):
            lines.append(f"{face}: worst p99.9 while writing over the base's "
                         f"(limit {TAIL_LIMIT:g}x):")
            for r, w in s["tail"].items():
                flag = "  above the limit" if w["ratio"] > TAIL_LIMIT else ""
                lines.append(f"  {r:<22} {w['ratio']:>6.2f}x  {w['cell']}{flag}")
    if doc["failures"]:
        lines.append(f"{len(doc['failures'])} failure(s): see matrix.md")
    return lines


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import TwoSlopeNorm
    except ImportError:
        log("matrix: no matplotlib in this python (python3-matplotlib is Debian's): "
            "no matrix.png")
        return False
    faces = [f for f in doc["summary"] if any(c["face"] == f for c in doc["cells"])]
    if not faces:
        return False
    span = 1.0  # colours saturate at 10x and 0.1x (the text gives the ratio)
    heights = [max(2, sum(c["face"] == f for c in doc["cells"])) for f in faces]
    width = max(8.0, 4.0 + 0.95 * max(len(doc["reps"][f]) for f in faces))
    fig, axes = plt.subplots(len(faces), 1, squeeze=False, constrained_layout=True,
                             figsize=(width, 0.8 + 0.3 * sum(heights) + 1.9 * len(faces)),
                             gridspec_kw={"height_ratios": heights})
    norm = TwoSlopeNorm(vmin=-span, vcenter=0.0, vmax=span)
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#d9d9d9")
    image = None
    for ax, face in zip(axes[:, 0], faces):
        reps = doc["reps"][face]
        cells = [c for c in doc["cells"] if c["face"] == face]
        grid, text = [], []
        for c in cells:
            row, trow = [], []
            for r in reps:
                e = c["reps"].get(r, {})
                ratio = e.get("ratio")
                if e.get("status") == "timeout":
                    row.append(-span)
                elif ratio is None:
                    row.append(float("nan"))
                else:
                    row.append(max(-span, min(span, math.log10(max(ratio, 1e-12)))))
                trow.append(fmt_ratio(ratio, e.get("status", "ok")) if e else "")
            grid.append(row)
            text.append(trow)
        image = ax.imshow(grid, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        for i, trow in enumerate(text):
            for j, t in enumerate(trow):
                v = grid[i][j]
                dark = not math.isnan(v) and abs(v) > 0.6 * span
                ax.text(j, i, t, ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(reps)))
        ax.set_xticklabels(reps, rotation=30, ha="right", fontsize=8)
        ax.set_xlabel("rep", fontsize=8)
        ax.set_yticks(range(len(cells)))
        ax.set_yticklabels([c["id"] for c in cells], fontsize=7)
        ax.set_ylabel("cell: workload key/value entries threads", fontsize=8)
        ax.set_title(f"{FACE_TITLE[face]}: median ops/s over {doc['bases'][face]['rep']}'s",
                     fontsize=10)
    ticks = [-1, math.log10(0.2), math.log10(0.5), math.log10(0.8), 0, math.log10(2),
             math.log10(5), 1]
    bar = fig.colorbar(image, ax=axes[:, 0].tolist(), ticks=ticks, shrink=0.5, aspect=30)
    bar.ax.set_yticklabels(["≤0.1x", "0.2x", "0.5x", "0.8x", "1x", "2x", "5x", "≥10x"],
                           fontsize=8)
    bar.set_label("ratio to the base (log scale; grey: skipped)", fontsize=8)
    fig.suptitle(f"memrep matrix ({doc['mode']}, {doc['machine']['cores']} cores, "
                 f"commit {str(doc.get('git_commit'))[:10]}, median of {doc['repeats']})",
                 fontsize=11)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def write_outputs(doc, out, draw):
    os.makedirs(out, exist_ok=True)
    analyse(doc)
    with open(os.path.join(out, "matrix.md"), "w") as f:
        f.write(markdown(doc))
    if draw:
        plot(doc, os.path.join(out, "matrix.png"))
    for line in summary_lines(doc):
        print(line)
