#!/usr/bin/env python3
"""Writes lee2022's fit set (issue 25) for `hetsim calibrate --fit`: configs/calibration/lee2022.

lee2022 publishes its microbenchmarks as ranges in the text of §4.2 (Fig. 8 has no printed
values) and Fig. 2(b) without an absolute scale, so the rows are ratio rows built from the
text, each saying in `source` how its number was read:

  Fig. 8b, (p x 512) x (512 x 512): PIM is 5.6x-10.4x faster than CPU_S and 1.5x-3.1x faster
    than CPU_P, "the performance gap ... gets smaller" as p grows: the high end at p = 8, the
    low end at p = 64.
  Fig. 8a, (p x 512) + (p x 512): PIM is 2.1x-3.4x faster than CPU_S and 2.2x-2.8x faster
    than CPU_P, with no direction stated: the geometric midpoint of each range at p = 8 and
    p = 64, at half weight.
  Fig. 8a: "for p = 8 and 16, the speedup [of CPU_P over CPU_S] is less or similar to 1.0x":
    1.0 at p = 8 and p = 16.
  Fig. 2(b) has no numbers: it gives no row (its trends stay checks of `hetsim calibrate`).

The operands are weights, resident in each device's memory, as in Fig. 8 (operator times).
Usage: python3 tools/measure/lee2022_fit_set.py [--out configs/calibration/lee2022]
"""
import argparse
import csv
import math
import os

from one_op_graphs import binary_op_graph, write_graph


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="configs/calibration/lee2022")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "graphs"), exist_ok=True)
    for p in (8, 16, 64):
        write_graph(os.path.join(args.out, "graphs"),
                    binary_op_graph(f"add_{p}x512", "Add", [p, 512], [p, 512], [p, 512]))
        write_graph(os.path.join(args.out, "graphs"),
                    binary_op_graph(f"matmul_{p}x512x512", "MatMul", [p, 512], [512, 512],
                                    [p, 512]))
    text = "lee2022 §4.2 text"
    rows = [
        ("PIM", "matmul_8x512x512", "CPU_S", 10.4, 1, f"{text}: 5.6x-10.4x; gap shrinks with p"),
        ("PIM", "matmul_64x512x512", "CPU_S", 5.6, 1, f"{text}: 5.6x-10.4x; gap shrinks with p"),
        ("PIM", "matmul_8x512x512", "CPU_P", 3.1, 1, f"{text}: 1.5x-3.1x; gap shrinks with p"),
        ("PIM", "matmul_64x512x512", "CPU_P", 1.5, 1, f"{text}: 1.5x-3.1x; gap shrinks with p"),
    ]
    for p in (8, 64):
        rows.append(("PIM", f"add_{p}x512", "CPU_S", math.sqrt(2.1 * 3.4), 0.5,
                     f"{text}: 2.1x-3.4x; no direction stated: geometric midpoint"))
        rows.append(("PIM", f"add_{p}x512", "CPU_P", math.sqrt(2.2 * 2.8), 0.5,
                     f"{text}: 2.2x-2.8x; no direction stated: geometric midpoint"))
    for p in (8, 16):
        rows.append(("CPU_P", f"add_{p}x512", "CPU_S", 1.0, 1,
                     f"{text}: CPU_P over CPU_S less or similar to 1.0x at p = 8, 16"))
    # csv.writer quotes a source with a comma in it ("at p = 8, 16"): written by hand, such a
    # row had a cell more than the header, which hetsim calibrate now refuses.
    with open(os.path.join(args.out, "fit.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["device", "workload", "scope", "reference_device", "speedup", "weight",
                      "source"])
        for device, g, ref, speedup, weight, source in rows:
            out.writerow([device, f"graphs/{g}.json", "compute", ref, f"{speedup:.4g}", weight,
                          source])


if __name__ == "__main__":
    main()
