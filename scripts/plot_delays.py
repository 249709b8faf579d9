#!/usr/bin/python3
"""Plot a run's delay histogram and its window advice (docs/windows.md, "Choosing W"):
bars of copies per delay bucket, the cumulative share, and the windows --suggest-window
gave. Needs matplotlib (Debian: python3-matplotlib, under /usr/bin/python3).

    pktdedup --pcap-in IN --filter exact --suggest-window --stats-json run.json
    /usr/bin/python3 scripts/plot_delays.py run.json delays.png
"""
import json
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_delays.py: needs matplotlib: bash scripts/deps.sh python3-matplotlib "
             "(Debian's python3-matplotlib), then run it with /usr/bin/python3")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(ns):
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= scale:
            return "%g%s" % (ns / scale, unit)
    return "%gns" % ns


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    run = json.load(open(sys.argv[1]))
    hist = run.get("delay_histogram")
    if not hist:
        print("plot_delays.py: %s has no delay_histogram (use --filter exact)" % sys.argv[1],
              file=sys.stderr)
        return 1
    buckets = hist["buckets"]
    counts = [b["count"] for b in buckets]
    total = sum(counts) or 1
    names = [label(b["to_ns"]) if b.get("to_ns") else ">=" + label(b["from_ns"])
             for b in buckets]
    cum, c = [], 0
    for n in counts:
        c += n
        cum.append(100.0 * c / total)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = range(len(buckets))
    ax.bar(x, counts, color="#4a7ab5", label="copies per delay bucket (upper bound)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=60, fontsize=8)
    ax.set_ylabel("copies")
    ax.set_xlabel("delay since the previous copy (bucket upper bound)")
    ax2 = ax.twinx()
    ax2.plot(list(x), cum, color="#c0392b", marker=".", label="cumulative share of copies")
    ax2.set_ylim(0, 101)
    ax2.set_ylabel("% of copies within")
    for a in run.get("window_advice") or []:
        if not a["window_ns"]:
            continue
        i = next(k for k, b in enumerate(buckets) if b.get("to_ns") == a["window_ns"])
        ax2.axvline(i, color="#27ae60", linestyle="--", linewidth=1)
        ax2.text(i, 3 + 8 * [0.99, 0.999, 1].index(a["share"]) if a["share"] in
                 (0.99, 0.999, 1) else 3, " %g%%: %s, %dK" % (a["share"] * 100,
                                                              label(a["window_ns"]),
                                                              a["memory_per_worker"] >> 10),
                 color="#27ae60", fontsize=8)
    ax.set_title("%s: %d copies; window advice (--suggest-window) in green"
                 % (", ".join(run.get("input", [])), total))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
