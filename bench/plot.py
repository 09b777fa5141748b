#!/usr/bin/env python3
"""bench/plot.py RESULTS.csv [OUTDIR] -- the charts of a bench/run.sh run.

Drawn with matplotlib (Debian's python3-matplotlib, which bench/setup.sh
installs). Writes SVG files into OUTDIR (default docs/plots/):
  summary.svg            how many times faster Mini is than erl (erl time /
                         Mini time) per workload, at +S 1 and at +S 2
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
import os
import sys

sys.dont_write_bytecode = True      # no bench/__pycache__ left behind
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import load, Data, NAMES  # noqa: E402
from plotlib import matplotlib, plt  # noqa: E402

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
CONFIG_COLORS = {"mini-S1": "#1f77b4", "mini-S2": "#2ca02c", "mini-nosmp": "#17becf",
                 "erl-S1": "#d62728", "erl-S2": "#ff7f0e", "lua": "#9467bd"}


def finish(fig, ax, title, source, path):
    ax.set_title(title, loc="left", fontsize=12, fontweight="bold")
    fig.text(0.01, 0.01, source, fontsize=7, color="#666")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def line_chart(path, title, source, xlabel, ylabel, series, xlog2=True, ylog=False, hlines=()):
    """series: list of (label, [(x, y)], color, dash)"""
    if not any(y is not None and y > 0 for _, ps, _, _ in series for _, y in ps):
        return False
    fig, ax = plt.subplots(figsize=(8, 4.6))
    for label, ps, color, dash in series:
        ps = [(x, y) for x, y in ps if y is not None and y > 0]
        if ps:
            ax.plot([x for x, _ in ps], [y for _, y in ps], marker="o", markersize=3, color=color,
                    linestyle="--" if dash else "-", label=label)
    for y, label, color in hlines:
        ax.axhline(y, color=color, linestyle=":", linewidth=1)
        ax.annotate(label, (1, y), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                    fontsize=8, color=color)
    xs = sorted({x for _, ps, _, _ in series for x, y in ps if y is not None and y > 0})
    if xlog2:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs, ["%gk" % (x / 1000) if x >= 1000 else "%g" % x for x in xs], fontsize=8)
    ax.minorticks_off()
    if ylog:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, color="#ddd", linewidth=0.5)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    finish(fig, ax, title, source, path)
    return True


def bar_chart(path, title, source, ylabel, groups, configs, fmt=None, hline=None, ylog2=False):
    """groups: list of (group label, {config: value or None})"""
    vals = [v for _, g in groups for v in g.values() if v is not None]
    if not vals:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.6))
    w = 0.8 / max(1, len(configs))
    for ci, c in enumerate(configs):
        xs = [gi - 0.4 + w * (ci + 0.5) for gi in range(len(groups))]
        ys = [g.get(c) for _, g in groups]
        bars = ax.bar([x for x, y in zip(xs, ys) if y is not None], [y for y in ys if y is not None],
                      w * 0.95, color=CONFIG_COLORS.get(c, "#777"), label=NAMES.get(c, c))
        ax.bar_label(bars, fmt=fmt or "%.3g", fontsize=7)
    if hline:
        ax.axhline(hline[0], color="#555", linestyle=":", linewidth=1)
        ax.annotate(hline[1], (1, hline[0]), xycoords=("axes fraction", "data"), ha="right",
                    va="bottom", fontsize=8, color="#555")
    if ylog2:
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xticks(range(len(groups)), [g for g, _ in groups], fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", color="#ddd", linewidth=0.5)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    finish(fig, ax, title, source, path)
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

    # summary: erl time / Mini time with the same number of schedulers
    summary = [("fib(30)", "fib", None, 1), ("lists", "lists", None, 1), ("ring", "ring", None, 1),
               ("two rings", "two", None, 1), ("big:bang", "big", None, 1),
               ("hackbench", "hackbench", None, 1), ("threadring", "threadring", None, 1),
               ("pingpong", "pingpong", None, 1), ("spawn", "spawn", None, 1)]
    groups = []
    for label, w, _p, _k in summary:
        ps = d.params(w)
        if w == "big":
            ps = sorted(ps, key=int)[-1:]           # the largest N measured
        if not ps:
            continue
        p = ps[0]
        g = {}
        for m, e in (("mini-S1", "erl-S1"), ("mini-S2", "erl-S2")):
            mv, ev = d.med(w, p, m), d.med(w, p, e)
            g[m] = ev / mv if mv and ev else None
        groups.append(("%s\n%s" % (label, p) if w == "big" else label, g))
    if not bar_chart(out("summary.svg"), "How many times faster Mini is than Erlang/OTP (erl time / Mini time)",
                     src, "erl time / Mini time (above 1: Mini is faster)", groups,
                     ["mini-S1", "mini-S2"], fmt="%.2f", hline=(1.0, "as fast as erl"), ylog2=True):
        made.pop()

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
