#!/usr/bin/env python3
"""bench/plot.py RESULTS.csv [OUTDIR] -- SVG charts of a bench/run.sh run.

Standard library only (no matplotlib): the SVG is written by hand.
Writes into OUTDIR (default docs/plots/):
  flood_ns_per_msg.svg   self-send flood, ns per message vs N (log-2 x axis,
                         log-10 y axis), one line per variant, Mini +S 1 solid,
                         erl +S 1 dashed
  big_speedup.svg        big:bang(N) speed-up (+S 1 time / +S 2 time) vs N,
                         Mini and erl, with the 1.8 target and the ideal 2
  ring_times.svg         one ring and two rings, ms per configuration
  hackbench.svg          hackbench, ms per configuration
  fib.svg                fib(30), ms: Mini, lua5.4, erl
Every point is the median of that measurement's runs in the csv.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load, Data, NAMES  # noqa: E402

W, H = 720, 420
ML, MR, MT, MB = 80, 190, 56, 60          # margins; the legend sits on the right
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
CONFIG_COLORS = {"mini-S1": "#1f77b4", "mini-S2": "#2ca02c", "mini-nosmp": "#17becf",
                 "erl-S1": "#d62728", "erl-S2": "#ff7f0e", "lua": "#9467bd"}


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    def __init__(self, title, source):
        self.parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                      'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">' % (W, H, W, H),
                      '<rect width="100%" height="100%" fill="white"/>',
                      '<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>' % (ML, esc(title)),
                      '<text x="%d" y="%d" font-size="9" fill="#666">%s</text>' % (ML, H - 8, esc(source))]

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, anchor="start", size=12, color="black", rotate=None):
        tr = ' transform="rotate(%d %g %g)"' % (rotate, x, y) if rotate else ""
        self.add('<text x="%g" y="%g" text-anchor="%s" font-size="%d" fill="%s"%s>%s</text>'
                 % (x, y, anchor, size, color, tr, esc(s)))

    def line(self, x1, y1, x2, y2, color="black", width=1, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>'
                 % (x1, y1, x2, y2, color, width, d))

    def save(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.parts + ["</svg>"]) + "\n")


def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    t = math.floor(lo / step) * step
    out = [round(t, 10)]
    while out[-1] < hi - step * 1e-9:      # the last tick is at or above hi
        t += step
        out.append(round(t, 10))
    return out


def fmt_num(v):
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "%gk" % (v / 1000) if v % 1000 == 0 or abs(v) >= 10000 else "%g" % v
    return "%g" % v


def axes_frame(svg, xlabel, ylabel):
    x0, y0, x1, y1 = ML, H - MB, W - MR, MT
    svg.line(x0, y0, x1, y0)
    svg.line(x0, y0, x0, y1)
    svg.text((x0 + x1) / 2, H - 25, xlabel, "middle")
    svg.text(18, (y0 + y1) / 2, ylabel, "middle", rotate=-90)
    return x0, y0, x1, y1


def line_chart(path, title, source, xlabel, ylabel, series, xlog2=True, ylog=False, hlines=()):
    """series: list of (label, [(x, y)], color, dash)"""
    pts = [p for _, ps, _, _ in series for p in ps if p[1] is not None and p[1] > 0]
    if not pts:
        return False
    svg = Svg(title, source)
    x0, y0, x1, y1 = axes_frame(svg, xlabel, ylabel)
    xs = sorted({p[0] for p in pts})
    ys = [p[1] for p in pts] + [h[0] for h in hlines]
    fx = (lambda v: math.log2(v)) if xlog2 else (lambda v: v)
    xlo, xhi = fx(xs[0]), fx(xs[-1])
    if xhi == xlo:
        xhi = xlo + 1
    if ylog:
        ylo = 10 ** math.floor(math.log10(min(ys)))
        yhi = 10 ** math.ceil(math.log10(max(ys)))
        fy = math.log10
        yticks = [10 ** k for k in range(int(math.log10(ylo)), int(math.log10(yhi)) + 1)]
    else:
        yticks = nice_ticks(0, max(ys) * 1.05)
        ylo, yhi = yticks[0], yticks[-1]
        fy = lambda v: v  # noqa: E731
    X = lambda v: x0 + (fx(v) - xlo) / (xhi - xlo) * (x1 - x0)  # noqa: E731
    Y = lambda v: y0 - (fy(v) - fy(ylo)) / (fy(yhi) - fy(ylo)) * (y0 - y1)  # noqa: E731
    for t in yticks:
        svg.line(x0, Y(t), x1, Y(t), "#ddd")
        svg.text(x0 - 6, Y(t) + 4, fmt_num(t), "end")
    for x in xs:
        svg.line(X(x), y0, X(x), y0 + 5)
        svg.text(X(x), y0 + 18, fmt_num(x), "middle")
    for y, label, color in hlines:
        svg.line(x0, Y(y), x1, Y(y), color, 1, "2,3")
        svg.text(x1 - 4, Y(y) - 4, label, "end", 10, color)
    ly = MT + 6
    for label, ps, color, dash in series:
        ps = [p for p in ps if p[1] is not None and p[1] > 0]
        if not ps:
            continue
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        svg.add('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                % (color, d, " ".join("%.1f,%.1f" % (X(x), Y(y)) for x, y in ps)))
        for x, y in ps:
            svg.add('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s = %.4g</title></circle>'
                    % (X(x), Y(y), color, esc(label), x, y))
        svg.line(x1 + 12, ly, x1 + 36, ly, color, 2, dash)
        svg.text(x1 + 42, ly + 4, label, size=11)
        ly += 17
    svg.save(path)
    return True


def bar_chart(path, title, source, ylabel, groups, configs):
    """groups: list of (group label, {config: value or None})"""
    vals = [v for _, g in groups for v in g.values() if v is not None]
    if not vals:
        return False
    svg = Svg(title, source)
    x0, y0, x1, y1 = axes_frame(svg, "", ylabel)
    yticks = nice_ticks(0, max(vals) * 1.12)
    yhi = yticks[-1]
    Y = lambda v: y0 - v / yhi * (y0 - y1)  # noqa: E731
    for t in yticks:
        svg.line(x0, Y(t), x1, Y(t), "#ddd")
        svg.text(x0 - 6, Y(t) + 4, fmt_num(t), "end")
    gw = (x1 - x0) / len(groups)
    bw = gw * 0.8 / max(1, len(configs))
    for gi, (glabel, g) in enumerate(groups):
        gx = x0 + gi * gw + gw * 0.1
        svg.text(x0 + gi * gw + gw / 2, y0 + 18, glabel, "middle")
        for ci, c in enumerate(configs):
            v = g.get(c)
            bx = gx + ci * bw
            if v is None:
                svg.text(bx + bw / 2, y0 - 4, "n/a", "middle", 9, "#999")
                continue
            svg.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.4g</title></rect>'
                    % (bx, Y(v), bw - 2, y0 - Y(v), CONFIG_COLORS.get(c, "#777"), esc(glabel), esc(NAMES.get(c, c)), v))
            svg.text(bx + bw / 2, Y(v) - 3, ("%.0f" if v >= 10 else "%.3g") % v, "middle", 9)
    ly = MT + 6
    for c in configs:
        svg.add('<rect x="%d" y="%d" width="14" height="10" fill="%s"/>' % (x1 + 12, ly - 5, CONFIG_COLORS.get(c, "#777")))
        svg.text(x1 + 32, ly + 4, NAMES.get(c, c), size=11)
        ly += 17
    svg.save(path)
    return True


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: plot.py RESULTS.csv [OUTDIR]", file=sys.stderr)
        sys.exit(2)
    csv_path = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) == 3 else "docs/plots"
    os.makedirs(outdir, exist_ok=True)
    _, rows = load(csv_path)
    d = Data(rows)
    src = "source: " + os.path.basename(csv_path) + " (medians)"
    made = []

    def out(name):
        made.append(os.path.join(outdir, name))
        return made[-1]

    # flood
    variants = []
    for p in d.params("flood"):
        v = p.split(":")[0]
        if v not in variants:
            variants.append(v)
    series = []
    for i, v in enumerate(variants):
        for c, dash in (("mini-S1", None), ("erl-S1", "6,4")):
            ps = []
            for p in d.params("flood"):
                if p.startswith(v + ":") and p.split(":")[1].isdigit():
                    n = int(p.split(":")[1])
                    m = d.med("flood", p, c)
                    ps.append((n, m * 1e3 / n if m is not None else None))
            ps.sort()
            if any(y is not None for _, y in ps):
                series.append(("%s, %s" % (v, NAMES[c]), ps, COLORS[i % len(COLORS)], dash))
    if line_chart(out("flood_ns_per_msg.svg"), "Self-send flood: ns per message (flat = linear time)", src,
                  "N messages (log 2 scale)", "ns per message (log scale)", series, ylog=True,
                  hlines=[(60, "target 60 ns", "#2ca02c")]):
        pass
    else:
        made.pop()

    # big speed-up
    series = []
    for name, a, b, color in (("Mini", "mini-S1", "mini-S2", "#1f77b4"), ("erl", "erl-S1", "erl-S2", "#d62728")):
        ps = []
        for n in sorted(d.params("big"), key=int):
            s1, s2 = d.med("big", n, a), d.med("big", n, b)
            ps.append((int(n), s1 / s2 if s1 and s2 else None))
        series.append((name + " +S1/+S2", ps, color, None))
    if not line_chart(out("big_speedup.svg"), "big:bang(N): speed-up of +S 2 over +S 1", src, "N processes",
                      "speed-up (+S 1 time / +S 2 time)", series, xlog2=False,
                      hlines=[(1.0, "1.0 (no gain)", "#999"), (1.8, "target 1.8", "#2ca02c"), (2.0, "ideal 2", "#555")]):
        made.pop()

    cfgs = ["mini-S1", "mini-S2", "mini-nosmp", "erl-S1", "erl-S2"]
    groups = []
    for w, label in (("ring", "one ring"), ("two", "two rings at once")):
        for p in d.params(w)[:1]:
            groups.append(("%s (%s)" % (label, p), {c: (d.med(w, p, c) / 1e3 if d.med(w, p, c) else None) for c in cfgs}))
    if not bar_chart(out("ring_times.svg"), "Ring of processes + LED: time (ms, lower is better)", src, "ms", groups, cfgs):
        made.pop()

    groups = [("hackbench %s" % p, {c: (d.med("hackbench", p, c) / 1e3 if d.med("hackbench", p, c) else None) for c in cfgs})
              for p in d.params("hackbench")[:1]]
    if not groups or not bar_chart(out("hackbench.svg"), "hackbench: time (ms, lower is better)", src, "ms", groups, cfgs):
        made.pop()

    groups = [("fib(%s)" % p, {c: (d.med("fib", p, c) / 1e3 if d.med("fib", p, c) else None) for c in cfgs + ["lua"]})
              for p in d.params("fib")[:1]]
    if not groups or not bar_chart(out("fib.svg"), "fib(30): time (ms, lower is better)", src, "ms", groups, cfgs + ["lua"]):
        made.pop()

    for m in made:
        print("wrote " + m)


if __name__ == "__main__":
    main()
