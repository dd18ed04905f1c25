#!/usr/bin/env python3
"""The chart of docs/performance.md: the profile's ratios, one bar per JDK, as an SVG.

usage: chart.py PROFILE_JSON... > performance.svg

Each PROFILE_JSON is what `io.cqlrows.bench.Profile --json FILE` wrote for one JDK. Every ratio
is drawn as a bar per JDK on a log scale (throughput ratio; the thin mark is the CPU-time ratio),
with its target, if it has one, as a dashed line and 1x as a grey line. Standard library only.
"""
import json
import math
import sys
from xml.sax.saxutils import escape

COLORS = ["#3b6ea5", "#e08a2b", "#5a9e4b", "#9b59b6"]
ROW = 34          # height of one ratio's group
BAR = 11          # height of one bar
LABEL = 430       # width of the label column
PLOT = 420        # width of the plot area


def main(paths):
    runs = [json.load(open(p, encoding="utf-8")) for p in paths]
    labels = []
    for run in runs:
        for r in run["ratios"]:
            if r["label"] not in labels:
                labels.append(r["label"])
    by_run = [{r["label"]: r for r in run["ratios"]} for run in runs]
    values = [r["ratio"] for run in runs for r in run["ratios"] if r["ratio"]]
    targets = [r["target"] for run in runs for r in run["ratios"] if r["target"]]
    low = min(values + targets + [1.0]) / 1.5
    high = max(values + targets + [1.0]) * 1.5

    def x(v):
        """The x of ratio v on the log scale from low to high."""
        return LABEL + PLOT * (math.log10(v) - math.log10(low)) / (math.log10(high) - math.log10(low))
    height = 60 + ROW * len(labels) + 20 * len(runs)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (LABEL + PLOT + 80, height),
           '<text x="10" y="20" font-size="14" font-weight="bold">cqlrows: ratios of the '
           'performance targets (log scale, higher is better; dashed: target)</text>']
    one = x(1.0)
    out.append('<line x1="%.1f" x2="%.1f" y1="30" y2="%d" stroke="#bbb"/>'
               % (one, one, 40 + ROW * len(labels)))
    out.append('<text x="%.1f" y="38" font-size="10" fill="#888">1x</text>' % (one + 2))
    for i, label in enumerate(labels):
        y = 40 + ROW * i
        out.append('<text x="10" y="%d">%s</text>' % (y + ROW / 2, escape(label)))
        target = next((b[label]["target"] for b in by_run if label in b), 0)
        for k, run in enumerate(by_run):
            r = run.get(label)
            if r is None or r["ratio"] is None:
                continue
            x0 = LABEL
            w = max(x(r["ratio"]) - LABEL, 1) if r["ratio"] > 0 else 1
            yb = y + 4 + k * (BAR + 1)
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                       % (x0, yb, w, BAR, COLORS[k % len(COLORS)]))
            out.append('<text x="%.1f" y="%d" font-size="10">%.2fx</text>'
                       % (x0 + w + 4, yb + BAR - 2, r["ratio"]))
            if r.get("cpuRatio"):
                xc = x(r["cpuRatio"])
                out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#222"/>'
                           % (xc, xc, yb, yb + BAR))
        if target:
            xt = x(target)
            out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#c0392b" '
                       'stroke-dasharray="3,2"/>' % (xt, xt, y + 2, y + ROW - 4))
    y = 50 + ROW * len(labels)
    for k, run in enumerate(runs):
        out.append('<rect x="10" y="%d" width="12" height="12" fill="%s"/>'
                   % (y + 20 * k, COLORS[k % len(COLORS)]))
        out.append('<text x="28" y="%d">%s</text>' % (y + 20 * k + 10, escape(run["jdk"])))
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
