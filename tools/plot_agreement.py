#!/usr/bin/python3
"""Scatter of `hetsim agree`'s agreement.csv: analytic vs DES seconds per sample, y = x line.

Usage: /usr/bin/python3 tools/plot_agreement.py agreement.csv agreement.png [objective]
objective: latency | throughput | ring. `ring` is mcm2022 Fig. 7 in kind: the partitions the
DES ran (feasible = 1), each axis normalised to its minimum.
Exits 3 when matplotlib is missing (hetsim then writes no picture and says why).
"""
import csv
import sys


def plot_ring(plt, xs, ys, out):
    lx, ly = min(xs), min(ys)
    xs = [x / lx for x in xs]
    ys = [y / ly for y in ys]
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(xs, ys, s=10, alpha=0.6, label="valid SAMPLE partitions")
    hi = max(xs + ys)
    ax.plot([1, hi], [1, hi], color="black", linewidth=1, label="y = x")
    ax.set_xlabel("analytical runtime (mcm2022 §5.1), normalised to its minimum")
    ax.set_ylabel("DES runtime, normalised to its minimum")
    ax.set_title("mcm2022 Fig. 7 in kind")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return 0


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 3
    objective = sys.argv[3] if len(sys.argv) > 3 else "latency"
    xs, ys = [], []
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if objective == "ring" and row["feasible"] != "1":
                continue
            xs.append(float(row["analytic_s"]) * 1e3)
            ys.append(float(row["des_s"]) * 1e3)
    if objective == "ring":
        return plot_ring(plt, xs, ys, sys.argv[2])
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(xs, ys, s=14, alpha=0.7, label="random placements")
    lo, hi = min(xs + ys), max(xs + ys)
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="y = x")
    what = "latency" if objective == "latency" else "time per sample (1 / throughput)"
    ax.set_xlabel(f"analytic {what} [ms]")
    ax.set_ylabel(f"DES {what} [ms]")
    ax.set_title("analytic vs DES: the gap is contention")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
