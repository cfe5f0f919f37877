#!/usr/bin/python3
"""The exported-model table of issue 12: for every model tools/export_models.py exports, the
ONNX node count, hetsim's op count after folding, the compute FLOPs (Conv/Gemm/MatMul/LSTM/
GRU) hetsim counts against the exporter's independent count from the PyTorch modules' shapes,
and the import time (`hetsim inspect FILE --json`, best of --repeat).

    /usr/bin/python3 tools/bench/onnx_zoo_report.py [--hetsim build/release/hetsim]
        [--cache DIR] [--only NAME ...] [--repeat 2] [--csv FILE]

Exports are cached in --cache (default build/bench-models/zoo); models above 2 GB are saved
with external data. Defaults of the exporter are used (batch 1, 224x224 images, the knobs
--list prints). A benchmark and a report, not a test.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORTER = os.path.join(ROOT, "tools/export_models.py")
COMPUTE = ("Conv", "Gemm", "MatMul", "LSTM", "GRU")


def exportable():
    out = subprocess.run([sys.executable, EXPORTER, "--list"], check=True, capture_output=True,
                         text=True).stdout
    names = []
    for line in out.splitlines():
        name, _, rest = line.partition("\t")
        if "SKIPPED" not in rest:
            names.append(name)
    return names


def export(name, cache):
    onnx_file = os.path.join(cache, name + ".onnx")
    ref_file = os.path.join(cache, name + ".ref.json")
    if not (os.path.exists(onnx_file) and os.path.exists(ref_file)):
        cmd = [sys.executable, EXPORTER, name, "--out", onnx_file, "--reference", ref_file]
        # Past ~1.5 GB of weights the protobuf would exceed its 2 GB limit.
        big = ("vit_h_14", "vit_l_16", "vit_l_32", "regnet_y_128gf", "regnet_y_32gf")
        if name in big:
            cmd.append("--external-data")
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, None, r.stderr.strip().splitlines()[-1:]
    with open(ref_file) as f:
        return onnx_file, json.load(f), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hetsim", default=os.path.join(ROOT, "build/release/hetsim"))
    parser.add_argument("--cache", default=os.path.join(ROOT, "build/bench-models/zoo"))
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--csv")
    args = parser.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    names = args.only or exportable()
    rows = []
    header = ("model", "onnx_nodes", "ops", "folded", "hetsim_compute_flops",
              "reference_compute_flops", "relative_difference", "import_s")
    print("{:<22} {:>6} {:>6} {:>6} {:>12} {:>12} {:>9} {:>8}".format(*header[:4], "hetsim",
                                                                      "reference", "rel.diff",
                                                                      "import"))
    for name in names:
        onnx_file, ref, error = export(name, args.cache)
        if onnx_file is None:
            print(f"{name:<22} export failed: {error}")
            continue
        cmd = [args.hetsim, "inspect", onnx_file, "--json"]
        for dim in ref["symbolic_dims"]:
            cmd += ["--dim", f"{dim}={ref['dims'][dim]}"]
        best = None
        info = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if r.returncode != 0:
                info = None
                print(f"{name:<22} import failed: {r.stderr.strip()[:300]}")
                break
            info = json.loads(r.stdout)
            best = seconds if best is None else min(best, seconds)
        if info is None:
            continue
        ours = sum(info["flops_by_type"].get(t, 0.0) for t in COMPUTE)
        theirs = ref["compute_flops"]
        rel = (ours - theirs) / theirs if theirs else 0.0
        ops = info["nodes"]
        row = (name, ref["onnx_nodes"], ops, ref["onnx_nodes"] - ops, ours, theirs, rel, best)
        rows.append(row)
        print(f"{name:<22} {row[1]:>6} {row[2]:>6} {row[3]:>6} {ours:>12.4g} {theirs:>12.4g} "
              f"{rel:>+9.2e} {best:>7.2f}s", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
