#!/usr/bin/env python3
"""bench/matrix_plot.py RESULTS.csv [OUTDIR] -- heat maps of a bench/matrix.sh run.

Standard library only (no matplotlib): the SVG is written by hand.
Writes into OUTDIR (default docs/plots/):
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

CW, CH = 74, 30                  # cell size
ML, MT, MR, MB = 110, 78, 120, 46  # margins: pattern names left, payloads on top, colour bar right
LIMIT = 2.0                      # colours saturate at ratio 2**LIMIT and 2**-LIMIT
GOOD, BAD, NONE = (26, 152, 80), (215, 48, 39), "#dddddd"


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def colour(r):
    """green (r < 1) .. white (r = 1) .. red (r > 1), by log2(r)"""
    t = max(-1.0, min(1.0, math.log2(r) / LIMIT))
    end = BAD if t > 0 else GOOD
    a = abs(t)
    rgb = [round(255 + (e - 255) * a) for e in end]
    return "#%02x%02x%02x" % tuple(rgb), a > 0.6


def heatmap(m, a, b, title, note, path, source):
    rows = m.patterns
    w = ML + CW * len(PAYLOADS) + MR
    h = MT + CH * len(rows) + MB
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="12">' % (w, h, w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>' % (10, esc(title)),
         '<text x="%d" y="40" font-size="11" fill="#444">%s</text>' % (10, esc(note)),
         '<text x="%d" y="%d" font-size="9" fill="#666">%s</text>' % (10, h - 8, esc(source))]

    def text(x, y, t, anchor="middle", size=12, fill="black", weight="normal"):
        s.append('<text x="%g" y="%g" text-anchor="%s" font-size="%d" fill="%s" font-weight="%s">%s</text>'
                 % (x, y, anchor, size, fill, weight, esc(t)))

    for j, pl in enumerate(PAYLOADS):
        text(ML + CW * j + CW / 2, MT - 8, pl)
    for i, p in enumerate(rows):
        y = MT + CH * i
        text(ML - 8, y + CH / 2 + 4, p, anchor="end")
        if (p, "none") in m.sizes:
            spans = [("none", 0, len(PAYLOADS))]
        else:
            spans = [(pl, j, 1) for j, pl in enumerate(PAYLOADS)]
        for pl, j, n in spans:
            x = ML + CW * j
            r = m.ratio(p, pl, a, b)
            if r is None:
                fill, dark = NONE, False
                failed = any(m.bad(p, pl, c) for c in (a, b))
                label = "FAIL" if failed else "–"
            else:
                fill, dark = colour(r)
                label = "%.2f" % r + (" (no payload)" if pl == "none" else "")
            s.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="white" stroke-width="2"/>'
                     % (x, y, CW * n, CH, fill))
            text(x + CW * n / 2, y + CH / 2 + 4, label, fill="white" if dark else "black")

    # colour bar: ratios 1/4 .. 4 on the same log scale
    bx, by, bh = ML + CW * len(PAYLOADS) + 30, MT, CH * len(rows)
    steps = 40
    for k in range(steps):
        lg = LIMIT - 2 * LIMIT * (k + 0.5) / steps
        s.append('<rect x="%d" y="%.1f" width="18" height="%.2f" fill="%s"/>'
                 % (bx, by + bh * k / steps, bh / steps + 0.5, colour(2 ** lg)[0]))
    for lg in range(int(-LIMIT), int(LIMIT) + 1):
        y = by + bh * (LIMIT - lg) / (2 * LIMIT)
        s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>' % (bx + 18, y, bx + 23, y))
        text(bx + 26, y + 4, "%g" % (2 ** lg), anchor="start", size=11)
    text(bx + 9, by - 8, "ratio", size=11)
    s.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(s) + "\n")


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
