#!/usr/bin/env python3
"""bench/matrix_plot.py RESULTS.csv [OUTDIR] -- heat maps of a bench/matrix.sh run.

Drawn with matplotlib (Debian's python3-matplotlib, which bench/setup.sh
installs). Writes into OUTDIR (default docs/plots/):
  matrix_s2_s1.svg     Mini +S 2 time / Mini +S 1 time per cell
  matrix_mini_erl.svg  Mini +S 2 time / erl +S 2 time per cell
Rows are patterns, columns payloads (a pattern without payload is one wide
cell); each cell is coloured by its ratio on a log scale, green below 1
(faster), white at 1, red above (slower), and the ratio is written in it.
Every ratio is of the medians of the cell's runs (bench/matrix_report.py).
"""
import math
import os
import sys

sys.dont_write_bytecode = True      # no bench/__pycache__ left behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matrix_report import Matrix, PAYLOADS  # noqa: E402
from plotlib import matplotlib, plt  # noqa: E402

LIMIT = 2.0                      # colours saturate at ratio 2**LIMIT and 2**-LIMIT
CMAP = matplotlib.colormaps["RdYlGn_r"]


def heatmap(m, a, b, title, note, path, source):
    rows = m.patterns
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.8))
    norm = matplotlib.colors.Normalize(-LIMIT, LIMIT)
    for i, p in enumerate(rows):
        if (p, "none") in m.sizes:
            spans = [("none", 0, len(PAYLOADS))]
        else:
            spans = [(pl, j, 1) for j, pl in enumerate(PAYLOADS)]
        for pl, j, n in spans:
            r = m.ratio(p, pl, a, b)
            if r is None:
                color = "#dddddd"
                label = "FAIL" if any(m.bad(p, pl, c) for c in (a, b)) else "–"
            else:
                color = CMAP(norm(max(-LIMIT, min(LIMIT, math.log2(r)))))
                label = "%.2f" % r + (" (no payload)" if pl == "none" else "")
            ax.add_patch(matplotlib.patches.Rectangle((j, i), n, 1, facecolor=color,
                                                      edgecolor="white", linewidth=2))
            ax.text(j + n / 2, i + 0.5, label, ha="center", va="center", fontsize=8)
    ax.set_xlim(0, len(PAYLOADS))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([j + 0.5 for j in range(len(PAYLOADS))], PAYLOADS, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks([i + 0.5 for i in range(len(rows))], rows, fontsize=8)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    bar = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=CMAP), ax=ax, fraction=0.04)
    bar.set_ticks(range(int(-LIMIT), int(LIMIT) + 1),
                  labels=["%g" % 2 ** k for k in range(int(-LIMIT), int(LIMIT) + 1)])
    bar.set_label("ratio (log scale)", fontsize=8)
    fig.suptitle(title, x=0.01, ha="left", fontsize=12, fontweight="bold")
    fig.text(0.01, 0.90, note, fontsize=8, color="#444")
    fig.text(0.01, 0.01, source, fontsize=7, color="#666")
    fig.tight_layout(rect=(0, 0.03, 1, 0.88))
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: matrix_plot.py RESULTS.csv [OUTDIR]")
    m = Matrix(sys.argv[1])
    outdir = sys.argv[2] if len(sys.argv) == 3 else "docs/plots"
    os.makedirs(outdir, exist_ok=True)
    when = next((h for h in m.header if h.startswith("Mini benchmark matrix")), "")
    load = next((h for h in m.header if h.startswith("load average at start")), "")
    source = "; ".join(x for x in (os.path.basename(sys.argv[1]), when.replace("Mini benchmark matrix, ", ""), load) if x)
    made = []
    if "mini-S1" in m.configs and "mini-S2" in m.configs:
        path = os.path.join(outdir, "matrix_s2_s1.svg")
        heatmap(m, "mini-S2", "mini-S1", "Mini: time with +S 2 / time with +S 1",
                "below 1 (green): two schedulers are faster; target: at most 1.05 everywhere, "
                "at most 0.67 for fanout", path, source)
        made.append(path)
    if "mini-S2" in m.configs and "erl-S2" in m.configs:
        path = os.path.join(outdir, "matrix_mini_erl.svg")
        heatmap(m, "mini-S2", "erl-S2", "Mini +S 2 time / erl +S 2 time",
                "below 1 (green): Mini is faster than Erlang/OTP; target: below 1 everywhere, "
                "float at most 1.5", path, source)
        made.append(path)
    print("wrote " + " ".join(made) if made else "nothing to plot")


if __name__ == "__main__":
    main()
