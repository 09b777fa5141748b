#!/usr/bin/env python3
"""bench/report.py RESULTS.csv -- the tables of a bench/run.sh run.

Reads the raw rows (workload,param,config,run,value,unit; lines starting with
'#' are the run's header), takes the median of each measurement over its runs
and prints one Markdown table per workload with the ratios the targets are stated in,
then the list of targets, each marked met / NOT met / not measured.
Only numbers that are in the csv are printed. Standard library only.
"""
import csv
import statistics
import sys
from collections import defaultdict

MINI = ["mini-S1", "mini-S2", "mini-nosmp"]
ERL = ["erl-S1", "erl-S2"]
NAMES = {"mini-S1": "Mini +S 1", "mini-S2": "Mini +S 2", "mini-nosmp": "Mini -smp disable",
         "erl-S1": "erl +S 1", "erl-S2": "erl +S 2", "lua": "lua5.4"}


def load(path):
    header, rows = [], defaultdict(list)
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    header = [l[2:].rstrip() for l in lines if l.startswith("#")]
    for r in csv.DictReader(l for l in lines if not l.startswith("#")):
        rows[(r["workload"], r["param"], r["config"])].append((r["run"], r["value"]))
    return header, rows


class Data:
    def __init__(self, runs):
        self.runs = runs                     # (w, p, c) -> [(run, value)]
        self.rows = {k: [v for _r, v in rv] for k, rv in runs.items()}

    def run_ratio(self, w, p_hi, p_lo, c):
        """median over runs of value(p_hi) / value(p_lo) taken in the same
        run (one VM process): a machine whose speed changes from one run to
        the next then cannot pair a fast run's small size with a slow run's
        large one"""
        hi = {r: float(v) for r, v in self.runs.get((w, str(p_hi), c), []) if is_num(v)}
        lo = {r: float(v) for r, v in self.runs.get((w, str(p_lo), c), []) if is_num(v)}
        rs = [hi[r] / lo[r] for r in hi if r in lo and lo[r] > 0]
        return statistics.median(rs) if rs else None

    def med(self, w, p, c):
        """median of the numeric runs, or None"""
        vals = [float(v) for v in self.rows.get((w, str(p), c), []) if is_num(v)]
        return statistics.median(vals) if vals else None

    def failures(self, w, p, c):
        return [v for v in self.rows.get((w, str(p), c), []) if not is_num(v)]

    def has(self, w, p, c):
        return (w, str(p), c) in self.rows

    def params(self, w):
        ps = []
        for (ww, p, _c) in self.rows:
            if ww == w and p not in ps:
                ps.append(p)
        return ps

    def configs(self, w, candidates):
        return [c for c in candidates if any(k[0] == w and k[2] == c for k in self.rows)]

    def cell(self, w, p, c, scale=1.0, fmt="{:.0f}"):
        """formatted median, with failed runs noted"""
        if not self.has(w, p, c):
            return "–"
        m = self.med(w, p, c)
        bad = self.failures(w, p, c)
        n = len(self.rows[(w, str(p), c)])
        if m is None:
            return "/".join(sorted(set(bad))) if bad else "–"
        s = fmt.format(m * scale)
        if bad:
            s += " (%d/%d runs %s)" % (len(bad), n, "/".join(sorted(set(bad))))
        return s


def is_num(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def ratio(a, b, fmt="{:.2f}"):
    return fmt.format(a / b) if a is not None and b not in (None, 0) else "–"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


TARGETS = []


def target(name, ok, detail):
    """ok: True, False or None (not measured)"""
    TARGETS.append((name, {True: "met", False: "NOT met", None: "not measured"}[ok], detail))


def fmt_or_dash(x, f="{:.0f}"):
    return f.format(x) if x is not None else "–"


def report(header, d):
    out = []
    P = out.append
    cfg_all = MINI + ERL

    # ---- headline: one line per workload, all configurations side by side
    P("### summary (medians; details below)\n")
    heads = ["workload", "unit"] + [NAMES[c] for c in cfg_all] + ["lua5.4"]
    rows = []

    def line(label, unit, w, p, scale, fmt="{:.0f}", extra=()):
        if p is None or not any(d.has(w, p, c) for c in cfg_all):
            return
        rows.append([label, unit] + [d.cell(w, p, c, scale, fmt) for c in cfg_all]
                    + [d.cell(w, p, "lua", scale, fmt) if d.has(w, p, "lua") else "–"])

    first = lambda w: (d.params(w) or [None])[0]  # noqa: E731
    p = first("fib")
    line("fib(%s)" % p, "ms", "fib", p, 1e-3, "{:.1f}")
    p = first("lists")
    line("lists_bench x%s" % p, "ms", "lists", p, 1e-3)
    p = first("ring")
    if p:
        n, cyc = (int(x) for x in p.split("x"))
        line("ring %s" % p, "ns/hop", "ring", p, 1e3 / (n * cyc))
        line("ring %s" % p, "ms", "ring", p, 1e-3)
    p = first("two")
    line("two rings %s" % p, "ms", "two", p, 1e-3)
    for n in sorted(d.params("big"), key=int):
        line("big:bang(%s)" % n, "ms", "big", n, 1e-3, "{:.1f}")
    p = first("hackbench")
    line("hackbench %s" % p, "ms", "hackbench", p, 1e-3)
    p = first("threadring")
    line("threadring %s hops" % p, "ns/hop", "threadring", p, 1e3 / int(p) if p else 1)
    p = first("pingpong")
    line("pingpong %s" % p, "ns/round trip", "pingpong", p, 1e3 / int(p) if p else 1)
    for v in ("atom", "string", "spawned", "spawned_string", "alloc", "cold_atom"):
        for n in ("10000", "80000", "640000"):
            line("flood %s %sk" % (v, int(n) // 1000), "ns/msg", "flood", "%s:%s" % (v, n), 1e3 / int(n))
    p = first("spawn")
    line("spawn x%s" % p, "µs/spawn", "spawn", p, 1.0 / int(p) if p else 1, "{:.3f}")
    p = first("idle")
    line("idle process", "bytes", "idle", p, 1)
    p = first("pairs_hogs")
    line("pairs and hogs", "ms", "pairs_hogs", p, 1e-3)
    p = first("stream_backlog")
    line("stream to a slower consumer", "ms", "stream_backlog", p, 1e-3)
    p = first("bigheaps_grow")
    line("big heaps: grow", "ms", "bigheaps_grow", p, 1e-3)
    p = first("bigheaps_many")
    line("big heaps: many", "ms", "bigheaps_many", p, 1e-3)
    P(table(heads, rows))
    P("")

    # ---- fib
    if d.params("fib"):
        p = d.params("fib")[0]
        cs = d.configs("fib", cfg_all + ["lua"])
        P("### fib(%s)  (ms, measured around the call)\n" % p)
        P(table(["config", "ms"], [[NAMES[c], d.cell("fib", p, c, 1e-3, "{:.1f}")] for c in cs]))
        m, lua, e = d.med("fib", p, "mini-S1"), d.med("fib", p, "lua"), d.med("fib", p, "erl-S1")
        P("\nMini +S 1 / lua5.4 = %s, Mini +S 1 / erl +S 1 = %s\n" % (ratio(m, lua), ratio(m, e)))
        target("fib(30) no slower than Lua 5.4", None if m is None or lua is None else m <= lua,
               "Mini %s ms, lua %s ms" % (fmt_or_dash(m and m / 1e3, "{:.1f}"), fmt_or_dash(lua and lua / 1e3, "{:.1f}")))

    # ---- lists
    if d.params("lists"):
        p = d.params("lists")[0]
        cs = d.configs("lists", cfg_all)
        P("### lists_bench, %s repetitions  (ms)\n" % p)
        P(table(["config", "ms"], [[NAMES[c], d.cell("lists", p, c, 1e-3)] for c in cs]))
        P("\nMini +S 1 / erl +S 1 = %s\n" % ratio(d.med("lists", p, "mini-S1"), d.med("lists", p, "erl-S1")))

    # ---- ring and two rings
    for w, title in (("ring", "one ring"), ("two", "two rings at once (time of the slower ring)")):
        if not d.params(w):
            continue
        p = d.params(w)[0]
        n, cyc = (int(x) for x in p.split("x"))
        hops = n * cyc
        cs = d.configs(w, cfg_all)
        P("### %s: %d processes + LED, %d cycles  (%d hops per ring)\n" % (title, n, cyc, hops))
        rows = [[NAMES[c], d.cell(w, p, c, 1e-3), d.cell(w, p, c, 1e3 / hops, "{:.0f}")] for c in cs]
        P(table(["config", "ms", "ns per hop"], rows))
        s1, s2 = d.med(w, p, "mini-S1"), d.med(w, p, "mini-S2")
        e1, e2 = d.med(w, p, "erl-S1"), d.med(w, p, "erl-S2")
        P("\n+S 2 / +S 1 time: Mini %s, erl %s; Mini +S 2 / erl +S 2 = %s\n"
          % (ratio(s2, s1), ratio(e2, e1), ratio(s2, e2)))
        if w == "ring":
            target("ring: Mini +S 2 time <= 1.05 x Mini +S 1", None if None in (s1, s2) else s2 <= 1.05 * s1,
                   "ratio %s" % ratio(s2, s1))
            target("ring: Mini +S 2 faster than erl +S 2", None if None in (s2, e2) else s2 < e2,
                   "Mini %s ms, erl %s ms" % (fmt_or_dash(s2 and s2 / 1e3), fmt_or_dash(e2 and e2 / 1e3)))
            best = min(x for x in (s1, s2) if x is not None) if (s1 or s2) else None
            target("ring: 120 ns per hop", None if best is None else best * 1e3 / hops <= 120,
                   "Mini +S 1 %s, +S 2 %s ns/hop" % (fmt_or_dash(s1 and s1 * 1e3 / hops), fmt_or_dash(s2 and s2 * 1e3 / hops)))
        else:
            target("two rings: Mini +S 2 time <= 0.6 x Mini +S 1", None if None in (s1, s2) else s2 <= 0.6 * s1,
                   "ratio %s (erl %s)" % (ratio(s2, s1), ratio(e2, e1)))

    # ---- big:bang
    if d.params("big"):
        ns = sorted(d.params("big"), key=int)
        cs = d.configs("big", cfg_all)
        P("### big:bang(N)  (ms; speed-up = +S 1 time / +S 2 time)\n")
        rows = []
        ok = []
        for n in ns:
            m1, m2 = d.med("big", n, "mini-S1"), d.med("big", n, "mini-S2")
            e1, e2 = d.med("big", n, "erl-S1"), d.med("big", n, "erl-S2")
            rows.append([n] + [d.cell("big", n, c, 1e-3, "{:.1f}") for c in cs]
                        + [ratio(m1, m2), ratio(e1, e2)])
            if int(n) >= 300:
                ok.append(None if None in (m1, m2) else m1 / m2 >= 1.8)
        P(table(["N"] + [NAMES[c] for c in cs] + ["Mini speed-up", "erl speed-up"], rows))
        P("")
        target("big:bang speed-up +S 2 over +S 1 >= 1.8 for N >= 300",
               None if not ok or None in ok else all(ok),
               ", ".join("N=%s: %s" % (n, ratio(d.med("big", n, "mini-S1"), d.med("big", n, "mini-S2")))
                         for n in ns if int(n) >= 300))

    # ---- hackbench
    if d.params("hackbench"):
        p = d.params("hackbench")[0]
        g, loops = (int(x) for x in p.split("x"))
        msgs = g * 20 * 20 * loops
        cs = d.configs("hackbench", cfg_all)
        P("### hackbench: %d groups x 20 senders x 20 receivers, %d loops (%d messages)\n" % (g, loops, msgs))
        rows = []
        for c in cs:
            fut = d.med("hackbench_futex", p, c)
            fpm = d.med("hackbench_futex_per_msg", p, c)
            rows.append([NAMES[c], d.cell("hackbench", p, c, 1e-3), d.cell("hackbench", p, c, 1e3 / msgs),
                         fmt_or_dash(fut), fmt_or_dash(fpm, "{:.4f}")])
        P(table(["config", "ms", "ns per message", "futex calls (strace, 1 run)", "futex per message"], rows))
        m2, mn, e2 = d.med("hackbench", p, "mini-S2"), d.med("hackbench", p, "mini-nosmp"), d.med("hackbench", p, "erl-S2")
        P("\nMini +S 2 / Mini -smp disable = %s; Mini +S 2 / erl +S 2 = %s; erl +S 2 / erl +S 1 = %s\n"
          % (ratio(m2, mn), ratio(m2, e2), ratio(e2, d.med("hackbench", p, "erl-S1"))))
        target("hackbench: Mini +S 2 faster than Mini -smp disable", None if None in (m2, mn) else m2 < mn,
               "%s vs %s ms" % (fmt_or_dash(m2 and m2 / 1e3), fmt_or_dash(mn and mn / 1e3)))
        target("hackbench: Mini +S 2 faster than erl +S 2", None if None in (m2, e2) else m2 < e2,
               "%s vs %s ms" % (fmt_or_dash(m2 and m2 / 1e3), fmt_or_dash(e2 and e2 / 1e3)))
        fpm = d.med("hackbench_futex_per_msg", p, "mini-S2")
        target("hackbench: under 0.01 futex calls per message (Mini +S 2)", None if fpm is None else fpm < 0.01,
               "%s per message" % fmt_or_dash(fpm, "{:.4f}"))

    # ---- threadring, pingpong
    for w, unit, title in (("threadring", "ns per hop", "threadring, 503 processes, %s hops"),
                           ("pingpong", "ns per round trip", "pingpong, %s round trips")):
        if not d.params(w):
            continue
        p = d.params(w)[0]
        cs = d.configs(w, cfg_all)
        P("### " + (title % p) + "  (timed inside the VM by bench/timeit.mini)\n")
        P(table(["config", "ms", unit], [[NAMES[c], d.cell(w, p, c, 1e-3), d.cell(w, p, c, 1e3 / int(p))] for c in cs]))
        P("")
        if w == "threadring":
            for s in ("1", "2"):
                m, e = d.med(w, p, "mini-S" + s), d.med(w, p, "erl-S" + s)
                target("threadring: Mini faster than erl at +S " + s, None if None in (m, e) else m < e,
                       "%s vs %s ns/hop" % (fmt_or_dash(m and m * 1e3 / int(p)), fmt_or_dash(e and e * 1e3 / int(p))))

    # ---- flood
    if d.params("flood"):
        cs = d.configs("flood", cfg_all)
        variants = []
        for p in d.params("flood"):
            v = p.split(":")[0]
            if v not in variants:
                variants.append(v)
        P("### self-send flood: ns per message (median), GCs during the flood\n")
        P("Each cell: ns/message, then [GCs]. GCs are the change of statistics(garbage_collection).\n")
        summary = []
        for v in variants:
            sizes = sorted({int(p.split(":")[1]) for p in d.params("flood")
                            if p.startswith(v + ":") and p.split(":")[1].isdigit()})
            rows = []
            for n in sizes:
                p = "%s:%d" % (v, n)
                row = [n]
                for c in cs:
                    if not d.has("flood", p, c):
                        row.append("–")
                        continue
                    gc = d.med("flood_gc", p, c)
                    row.append("%s [%s]" % (d.cell("flood", p, c, 1e3 / n), fmt_or_dash(gc)))
                rows.append(row)
            P("**%s**\n" % v)
            P(table(["N"] + [NAMES[c] for c in cs], rows))
            P("")
            for c in cs:
                hi = d.med("flood", "%s:%d" % (v, sizes[-1]), c)
                r = d.run_ratio("flood", "%s:%d" % (v, sizes[-1]), "%s:%d" % (v, sizes[0]), c)
                if r is None or hi is None:
                    continue
                summary.append([v, NAMES[c], "%d..%d" % (sizes[0], sizes[-1]), "{:.1f}".format(r),
                                "{:.0f}".format(hi * 1e3 / sizes[-1]),
                                "%s → %s" % (fmt_or_dash(d.med("flood_gc", "%s:%d" % (v, sizes[0]), c)),
                                             fmt_or_dash(d.med("flood_gc", "%s:%d" % (v, sizes[-1]), c))),
                                ])
        P("**flood summary** (linear growth is t(max)/t(min) = max/min, e.g. 64 for 10k..640k; "
          "t(max)/t(min) is the median over runs of the ratio within each run)\n")
        P(table(["variant", "config", "N range", "t(max)/t(min)", "ns/msg at max", "GCs at min → max"], summary))
        P("")
        P("cold_atom is the atom flood without the warm-up, as the first thing the VM "
          "does: it also pays the first write to every fresh page of message memory "
          "(see bench/pagetouch.c), so the targets below leave it out.\n")
        worst, worst_ns, gc_ok = [], [], []
        for v in variants:
            if v.startswith("cold_"):
                continue
            for c in MINI:
                r = d.run_ratio("flood", v + ":640000", v + ":10000", c)
                hi = d.med("flood", v + ":640000", c)
                if r is not None and hi is not None:
                    worst.append((r, v, c))
                    worst_ns.append((hi * 1e3 / 640000, v, c))
                g_lo, g_hi = d.med("flood_gc", v + ":10000", c), d.med("flood_gc", v + ":640000", c)
                if g_lo is not None and g_hi is not None:
                    gc_ok.append((g_hi / 64 <= max(g_lo, 1) * 1.1 + 1, v, c, g_lo, g_hi))
        if worst:
            w = max(worst)
            target("flood: t(640k)/t(10k) <= 70 in every variant (Mini)", w[0] <= 70,
                   "worst %.1f (%s, %s)" % (w[0], w[1], NAMES[w[2]]))
            w = max(worst_ns)
            target("flood: under 60 ns per message (Mini, at 640k, every variant)", w[0] < 60,
                   "worst %.0f ns (%s, %s)" % (w[0], w[1], NAMES[w[2]]))
        else:
            target("flood: t(640k)/t(10k) <= 70 in every variant (Mini)", None, "")
        if gc_ok:
            bad = [g for g in gc_ok if not g[0]]
            target("flood: GCs per message do not grow with N (Mini)", not bad,
                   "GCs(640k) <= 64 x GCs(10k) + slack in all variants" if not bad else
                   "; ".join("%s %s: %g → %g" % (g[1], NAMES[g[2]], g[3], g[4]) for g in bad))

    # ---- spawn
    if d.params("spawn"):
        p = d.params("spawn")[0]
        cs = d.configs("spawn", cfg_all)
        P("### spawn: %s spawns of a process that exits at once  (µs per spawn)\n" % p)
        P(table(["config", "total ms", "µs per spawn"],
                [[NAMES[c], d.cell("spawn", p, c, 1e-3), d.cell("spawn", p, c, 1.0 / int(p), "{:.3f}")] for c in cs]))
        m1 = d.med("spawn", p, "mini-S1")
        P("")
        target("spawn: at most 0.5 µs per spawn (Mini +S 1)", None if m1 is None else m1 / int(p) <= 0.5,
               "%s µs (erl +S 1: %s)" % (fmt_or_dash(m1 and m1 / int(p), "{:.3f}"),
                                         fmt_or_dash(d.med("spawn", p, "erl-S1") and d.med("spawn", p, "erl-S1") / int(p), "{:.3f}")))

    # ---- pairs and hogs
    if d.params("pairs_hogs"):
        p = d.params("pairs_hogs")[0]
        cs = d.configs("pairs_hogs", cfg_all)
        P("### pairs and hogs: %s ping-pong pairs queued in front of 4 CPU-bound processes  (ms)\n" % p)
        P(table(["config", "ms"], [[NAMES[c], d.cell("pairs_hogs", p, c, 1e-3)] for c in cs]))
        m1, m2 = d.med("pairs_hogs", p, "mini-S1"), d.med("pairs_hogs", p, "mini-S2")
        P("")
        target("pairs and hogs: Mini +S 2 no slower than +S 1 (the busy-first steal's counter-shape)",
               None if not (m1 and m2) else m2 <= m1 * 1.05,
               "+S 2 / +S 1 = %s" % ("-" if not (m1 and m2) else "%.2f" % (m2 / m1)))
        P("")

    # ---- idle
    if d.params("idle"):
        p = d.params("idle")[0]
        cs = d.configs("idle", cfg_all)
        P("### idle processes: %s processes waiting in receive  (bytes per process)\n" % p)
        P(table(["config", "memory(processes) delta / N", "process_info(P, memory), 1 run"],
                [[NAMES[c], d.cell("idle", p, c), fmt_or_dash(d.med("idle_process_info", p, c))] for c in cs]))
        m = d.med("idle", p, "mini-S1")
        P("")
        target("idle process under 1 KB (Mini)", None if m is None else m < 1024,
               "%s bytes (erl +S 1: %s)" % (fmt_or_dash(m), fmt_or_dash(d.med("idle", p, "erl-S1"))))

    # ---- targets
    P("### targets\n")
    P(table(["target", "status", "measured"], [list(t) for t in TARGETS]))
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        print("usage: report.py RESULTS.csv", file=sys.stderr)
        sys.exit(2)
    header, rows = load(sys.argv[1])
    for h in header:
        print("    " + h)
    print()
    print(report(header, Data(rows)))


if __name__ == "__main__":
    main()
