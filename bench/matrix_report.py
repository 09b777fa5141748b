#!/usr/bin/env python3
"""bench/matrix_report.py RESULTS.csv -- the tables of a bench/matrix.sh run.

Reads the raw rows (pattern,payload,size,config,run,value,unit,checksum; lines
starting with '#' are the run's header), takes the median of each cell's runs
per configuration and prints Markdown: the medians (ms), the ratio grids
(rows = patterns, columns = payloads) of Mini +S 2 / +S 1 and Mini +S 2 /
erl +S 2, and the targets, each marked met / NOT met with the cells
that miss it. A ratio is the median over rounds of the ratio of the two
configurations' runs in the same round (see Matrix.ratio). Standard library
only.
"""
import csv
import statistics
import sys
from collections import defaultdict

PATTERNS = ["cpu", "fanout", "fanout_hs", "many_to_one", "all_to_all", "pipeline", "reqrep",
            "timers", "float", "clock"]
PAYLOADS = ["atom", "tuple4", "tuple12", "list25", "bin100", "bin1k", "map20", "list1000"]
CONFIGS = ["mini-S1", "mini-S2", "mini-S4", "mini-nosmp", "mini-S1c0", "mini-S1c1",
           "erl-S1", "erl-S2", "erl-S4"]
NAMES = {"mini-S1": "Mini +S 1", "mini-S2": "Mini +S 2", "mini-S4": "Mini +S 4",
         "mini-nosmp": "Mini -smp disable", "mini-S1c0": "+S 1 on core 0",
         "mini-S1c1": "+S 1 on core 1", "erl-S1": "erl +S 1", "erl-S2": "erl +S 2",
         "erl-S4": "erl +S 4"}
PINNED = ("mini-S1c0", "mini-S1c1")
SYMMETRIC = 1.10   # a round whose pinned runs are this close had equal cores
FANOUT = ("fanout", "fanout_hs")


def is_num(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


class Matrix:
    """The runs of one csv: (pattern, payload, config) -> [value]."""

    def __init__(self, path):
        with open(path) as f:
            lines = [l for l in f if l.strip()]
        self.header = [l[2:].rstrip() for l in lines if l.startswith("#")]
        self.vals = defaultdict(list)
        self.runs = defaultdict(dict)        # (pattern, payload, config) -> {run: µs}
        self.sizes = {}
        for r in csv.DictReader(l for l in lines if not l.startswith("#")):
            self.vals[(r["pattern"], r["payload"], r["config"])].append(r["value"])
            if is_num(r["value"]):
                self.runs[(r["pattern"], r["payload"], r["config"])][r["run"]] = float(r["value"])
            self.sizes[(r["pattern"], r["payload"])] = r["size"]
        known = set(PATTERNS)
        self.patterns = [p for p in PATTERNS if any(k[0] == p for k in self.vals)]
        self.patterns += sorted({k[0] for k in self.vals} - known)
        self.configs = [c for c in CONFIGS if any(k[2] == c for k in self.vals)]

    def cells(self):
        """(pattern, payload) in table order"""
        out = []
        for p in self.patterns:
            pls = [pl for pl in PAYLOADS + ["none"] if (p, pl) in self.sizes]
            pls += sorted({k[1] for k in self.sizes if k[0] == p} - set(pls))
            out += [(p, pl) for pl in pls]
        return out

    def med(self, p, pl, c):
        """median of the numeric runs (µs), or None"""
        v = [float(x) for x in self.vals.get((p, pl, c), []) if is_num(x)]
        return statistics.median(v) if v else None

    def bad(self, p, pl, c):
        return [x for x in self.vals.get((p, pl, c), []) if not is_num(x)]

    def ratio(self, p, pl, a, b, rounds=None):
        """time(a) / time(b): the median over rounds of the ratio within a
        round (the two runs were taken a few seconds apart, so a slow spell of
        the host tends to fall on both), or the ratio of the medians when no
        round has both. With rounds: over those rounds only (None when none
        has both)."""
        ra, rb = self.runs.get((p, pl, a), {}), self.runs.get((p, pl, b), {})
        pairs = [ra[r] / rb[r] for r in ra if r in rb and rb[r] > 0 and (rounds is None or r in rounds)]
        if pairs:
            return statistics.median(pairs)
        if rounds is not None:
            return None
        x, y = self.med(p, pl, a), self.med(p, pl, b)
        return x / y if x is not None and y else None

    def has_pinned(self):
        return all(c in self.configs for c in PINNED)

    def asymmetry(self, p, pl):
        """the slower core's +S 1 time over the faster one's, median over
        the rounds (None without pinned runs)"""
        r0, r1 = (self.runs.get((p, pl, c), {}) for c in PINNED)
        v = [max(r0[r], r1[r]) / min(r0[r], r1[r]) for r in r0 if r in r1 and min(r0[r], r1[r]) > 0]
        return statistics.median(v) if v else None

    def symmetric_rounds(self, p, pl):
        """the rounds whose two cores ran +S 1 within SYMMETRIC of each other"""
        r0, r1 = (self.runs.get((p, pl, c), {}) for c in PINNED)
        return {r for r in r0 if r in r1 and min(r0[r], r1[r]) > 0
                and max(r0[r], r1[r]) / min(r0[r], r1[r]) <= SYMMETRIC}

    def cell_text(self, p, pl, c):
        runs = self.vals.get((p, pl, c))
        if not runs:
            return "–"
        m, bad = self.med(p, pl, c), self.bad(p, pl, c)
        if m is None:
            return "/".join(sorted(set(bad)))
        s = "%.1f" % (m / 1000) if m < 10000 else "%.0f" % (m / 1000)
        if bad:
            s += " (%d/%d %s)" % (len(bad), len(runs), "/".join(sorted(set(bad))))
        return s


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def fmt(r):
    return "–" if r is None else r if isinstance(r, str) else "%.2f" % r


def ratio_or_fail(m, p, pl, a, b):
    """the ratio, or "FAIL" when either side has only failed runs, or None"""
    r = m.ratio(p, pl, a, b)
    if r is None and any(m.bad(p, pl, c) and m.med(p, pl, c) is None for c in (a, b)):
        return "FAIL"
    return r


def ratio_grid(m, a, b):
    """rows = patterns, columns = payloads; a pattern without payload fills
    the first column"""
    rows = []
    for p in m.patterns:
        if (p, "none") in m.sizes:
            rows.append([p, fmt(ratio_or_fail(m, p, "none", a, b)) + " (no payload)"] + [""] * (len(PAYLOADS) - 1))
        else:
            rows.append([p] + [fmt(ratio_or_fail(m, p, pl, a, b)) if (p, pl) in m.sizes else "–" for pl in PAYLOADS])
    return table(["pattern"] + PAYLOADS, rows)


def is_ratio(v):
    return isinstance(v, float)


def check(out, name, cells, test, worst=max):
    """cells: [(label, ratio or "FAIL" or None)]; test(ratio) -> bool. Prints met /
    NOT met (with the cells that miss) / not measured; worst picks the
    value nearest to missing."""
    got = [(l, v) for l, v in cells if is_ratio(v)]
    miss = [(l, v) for l, v in got if not test(v)]
    failed = [l for l, v in cells if v == "FAIL"]
    if failed:
        out.append("- %s: **NOT met**: %d cells failed (%s)%s" % (
            name, len(failed), ", ".join(failed),
            "; and in %s" % ", ".join("%s %.3f" % (l, v) for l, v in miss) if miss else ""))
        return
    if not got:
        out.append("- %s: not measured" % name)
    elif miss:
        out.append("- %s: **NOT met** in %d of %d cells: %s" % (
            name, len(miss), len(got), ", ".join("%s %.3f" % (l, v) for l, v in miss)))
    else:
        out.append("- %s: met in all %d cells (worst %.3f)" % (
            name, len(got), worst(v for _, v in got)))
    missing = len(cells) - len(got)   # configurations not run
    if missing:
        out[-1] += " (%d cells without a number)" % missing


def report(m):
    out = []
    P = out.append
    for h in m.header:
        P("    " + h)
    P("")
    P("### medians (ms; a cell with failed runs says how many)\n")
    rows = [[p, pl, m.sizes[(p, pl)]] + [m.cell_text(p, pl, c) for c in m.configs] for p, pl in m.cells()]
    P(table(["pattern", "payload", "size"] + [NAMES[c] for c in m.configs], rows))
    P("")
    P("### ratios per cell (time / time; median of the per-round ratios)\n")
    pairs = [("mini-S2", "mini-S1", "Mini +S 2 / +S 1"), ("mini-S4", "mini-S2", "Mini +S 4 / +S 2"),
             ("mini-nosmp", "mini-S1", "Mini -smp disable / +S 1"), ("mini-S2", "erl-S2", "Mini +S 2 / erl +S 2"),
             ("mini-S1", "erl-S1", "Mini +S 1 / erl +S 1"), ("erl-S2", "erl-S1", "erl +S 2 / +S 1")]
    pairs = [x for x in pairs if x[0] in m.configs and x[1] in m.configs]
    rows = [[p, pl] + [fmt(m.ratio(p, pl, a, b)) for a, b, _ in pairs] for p, pl in m.cells()]
    head = ["pattern", "payload"] + [n for _, _, n in pairs]
    if m.has_pinned():
        head.append("core asymmetry (slower / faster core, +S 1)")
        for row, (p, pl) in zip(rows, m.cells()):
            row.append(fmt(m.asymmetry(p, pl)))
    P(table(head, rows))
    P("")
    for a, b, title in (("mini-S2", "mini-S1", "Mini +S 2 / Mini +S 1 (time; below 1: +S 2 is faster)"),
                        ("mini-S2", "erl-S2", "Mini +S 2 / erl +S 2 (time; below 1: Mini is faster)"),
                        ("erl-S2", "erl-S1", "erl +S 2 / erl +S 1 (time, for comparison)")):
        if a in m.configs and b in m.configs:
            P("### %s\n" % title)
            P(ratio_grid(m, a, b))
            P("")

    P("### checks (the targets, on this run)\n")
    cells = m.cells()
    label = lambda p, pl: p if pl == "none" else "%s/%s" % (p, pl)  # noqa: E731
    check(out, "Mini +S 2 never slower than +S 1 by more than 5% (+S 2 / +S 1 <= 1.05)",
          [(label(p, pl), ratio_or_fail(m, p, pl, "mini-S2", "mini-S1")) for p, pl in cells], lambda r: r <= 1.05)
    check(out, "fan-out groups at least 1.5x faster with +S 2 (+S 1 / +S 2 >= 1.5)",
          [(label(p, pl), ratio_or_fail(m, p, pl, "mini-S1", "mini-S2")) for p, pl in cells if p in FANOUT],
          lambda r: r >= 1.5, worst=min)
    check(out, "Mini +S 4 within 10% of +S 2 (+S 4 / +S 2 <= 1.10)",
          [(label(p, pl), ratio_or_fail(m, p, pl, "mini-S4", "mini-S2")) for p, pl in cells], lambda r: r <= 1.10)
    if m.has_pinned():
        # the same three targets, over the rounds whose cores were equal
        sym = {(p, pl): m.symmetric_rounds(p, pl) for p, pl in cells}
        nsym = sum(len(v) for v in sym.values())
        nall = sum(len(m.runs.get((p, pl, PINNED[0]), {})) for p, pl in cells)
        P("- on the rounds whose cores ran +S 1 within %d%% of each other (%d of %d rounds; "
          "a cell with none is left out):" % (round((SYMMETRIC - 1) * 100), nsym, nall))
        sub = []
        check(sub, "+S 2 / +S 1 <= 1.05",
              [(label(p, pl), m.ratio(p, pl, "mini-S2", "mini-S1", sym[(p, pl)])) for p, pl in cells],
              lambda r: r <= 1.05)
        check(sub, "fan-out +S 1 / +S 2 >= 1.5",
              [(label(p, pl), m.ratio(p, pl, "mini-S1", "mini-S2", sym[(p, pl)])) for p, pl in cells
               if p in FANOUT], lambda r: r >= 1.5, worst=min)
        check(sub, "+S 4 / +S 2 <= 1.10",
              [(label(p, pl), m.ratio(p, pl, "mini-S4", "mini-S2", sym[(p, pl)])) for p, pl in cells],
              lambda r: r <= 1.10)
        out += ["  " + x.replace(" cells without a number)", " cells without a symmetric round)") for x in sub]
    check(out, "Mini +S 2 faster than erl +S 2 (Mini / erl < 1)",
          [(label(p, pl), ratio_or_fail(m, p, pl, "mini-S2", "erl-S2")) for p, pl in cells], lambda r: r < 1.0)
    check(out, "float kernel within 1.5x of erl (Mini / erl <= 1.5, +S 1 and +S 2)",
          [("float " + NAMES[a], ratio_or_fail(m, "float", "none", a, b))
           for a, b in (("mini-S1", "erl-S1"), ("mini-S2", "erl-S2"))], lambda r: r <= 1.5)
    fails = [(p, pl, c, x) for (p, pl, c), vs in sorted(m.vals.items()) for x in vs if not is_num(x)]
    if fails:
        P("- runs that failed or timed out: " + ", ".join("%s %s %s %s" % f for f in fails))
    else:
        P("- every run finished with the reference checksum")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: matrix_report.py RESULTS.csv")
    print(report(Matrix(sys.argv[1])))


if __name__ == "__main__":
    main()
