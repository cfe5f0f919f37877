#!/usr/bin/env python3
"""Derives the fit and check sets of issue 25/30 from the raw H100 measurements.

The raw files (configs/calibration/h100/*.csv, written by tools/measure/gpu.py) stay as
measured. This script only selects and relabels rows:

  fit.csv              every other fp32 GEMM (rows 0, 2, 4, ... of gemm_fp32.csv), the
                       pinned host<->device copies, the pageable ones of every other size
                       (4 KB, 16 KB, ...) and, where memory.csv is there, the memory-bound
                       kernels (cold L2) of every other size (4 KB, 16 KB, 64 KB, ...): what
                       `hetsim calibrate --fit` sees.
  check_copy.csv       the pageable copies of the sizes between (8 KB, 32 KB, ...): held out.
  check_gemm_fp32.csv  the other half of the fp32 GEMMs (rows 1, 3, 5, ...): held out.
  fit_bf16.csv         every other bf16 GEMM (rows 0, 2, 4, ... of gemm_bf16.csv): what the
                       second fit (the tensor-core kernels' own constant, every fp32 constant
                       fixed; configs/platforms/h100.yaml's header) sees.
  check_gemm_bf16.csv  the other half of the bf16 GEMMs (rows 1, 3, 5, ...): held out.
  check_conv.csv       every forward convolution: predicted from the GEMM fit alone.
  check_rnn.csv        every LSTM/GRU layer: predicted from the GEMM fit alone.
  check_memory.csv     the memory-bound kernels with a cold L2 of the other sizes (8 KB,
                       32 KB, ...): held out.
  check_end_to_end.csv the model rows, inputs on the GPU (scope compute) and from the host.
                       A `bert` row without an `opset` knob gets opset=20: the model measured
                       (tools/export_models.py's Bert) runs nn.LayerNorm and F.gelu, one
                       kernel each, which is the opset-20 graph (the default, 13, decomposes
                       them into 9 and 5 ops).
  check_gemm_fp32_fresh.csv
                       the second GEMM set (gpu.py --only gemm_fp32_fresh), in the same folder
                       (h200) or, for h100, in ../h100_fresh: never fitted.
  check_conv_fresh.csv, check_rnn_fresh.csv
                       random convolutions and LSTM/GRU layers (gpu.py --only
                       conv_fresh,rnn_fresh; --dir configs/calibration/h100_fresh_layers).
  check_rnn_reserve.csv
                       a second random LSTM/GRU set (--dir configs/calibration/h100_reserve2).
  fit_rnn_persist.csv  LSTM/GRU layers at cuDNN's persistent-kernel template sizes
                       (h100_reserve3/rnn_persist.csv) and between them
                       (h100_persist_odd/rnn_persist_odd.csv), written with --dir
                       configs/calibration/h100_persist_odd: what the third fit (the persistent
                       kernel's weight loads and step latency, every GEMM constant fixed) sees.
  check_gemm_bf16_fresh.csv
                       180 bf16 GEMMs of their own seed (--dir
                       configs/calibration/h100_bf16_fresh): the tensor-core model's clean test.
  check_rnn_tanh.csv, check_gemm_linear.csv, check_rnn_reserve3.csv
                       vanilla RNN layers, GEMMs with nn.Linear's weight layout and a third
                       random LSTM/GRU set (--dir configs/calibration/h100_reserve3):
                       predictions.

Any folder of gpu.py output works (--dir configs/calibration/h200: the fp32 GEMMs alone); a
derived file is written when its raw file is there.

Kernel rows were timed with CUDA events around kernels queued ahead of the host (gpu.py's
head-start spin kernel), so they become scope `kernel`: the device side, without PyTorch's
per-op host cost. The end-to-end rows keep their scope.

Usage: python3 tools/measure/h100_fit_sets.py [--dir configs/calibration/h100]
"""
import argparse
import csv
import os

HEADER = ["device", "workload", "knobs", "scope", "time_s"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for r in rows:
            w.writerow([r[k] for k in HEADER])


def as_kernel(rows):
    return [dict(r, scope="kernel") for r in rows]


def eager_graph(row):
    """The row with the knobs of the hetsim graph that matches the eager PyTorch model."""
    if row["workload"] == "bert" and "opset=" not in row["knobs"]:
        return dict(row, knobs=row["knobs"] + ";opset=20")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="configs/calibration/h100")
    args = ap.parse_args()
    d = args.dir

    def raw(name):
        path = os.path.join(d, name)
        return read(path) if os.path.exists(path) else None

    # Each derived file is written when its raw file is there (configs/calibration/h200 holds
    # the fp32 GEMMs only).
    # The memory-bound kernels with a cold L2, split by size: every other size is fitted (the
    # streaming bandwidth and the kernel floor), the sizes between are predicted.
    memory = raw("memory.csv")
    memory_fit, memory_check = [], []
    if memory is not None:
        sizes = []
        for r in memory:
            size = os.path.splitext(r["workload"])[0].rsplit("_", 1)[-1]
            if size not in sizes:
                sizes.append(size)
            if "l2=cold" in r["knobs"]:
                (memory_fit if sizes.index(size) % 2 == 0 else memory_check).append(r)
        write(os.path.join(d, "check_memory.csv"), as_kernel(memory_check))
    gemm_rows = raw("gemm_fp32.csv")
    if gemm_rows is not None:
        gemm = as_kernel(gemm_rows)
        copy_rows = raw("copy.csv") or []
        copies = [r for r in copy_rows if "host_memory=pinned" in r["knobs"]]
        # Pageable copies by size, as the memory-bound kernels: every other size fitted (the
        # host's staging rate), the sizes between predicted.
        pageable_sizes = []
        pageable_fit, pageable_check = [], []
        for r in copy_rows:
            if "host_memory=pageable" not in r["knobs"]:
                continue
            size = [k for k in r["knobs"].split(";") if k.startswith("bytes=")][0]
            if size not in pageable_sizes:
                pageable_sizes.append(size)
            (pageable_fit if pageable_sizes.index(size) % 2 == 0 else pageable_check).append(r)
        write(os.path.join(d, "fit.csv"),
              gemm[0::2] + copies + pageable_fit + as_kernel(memory_fit))
        if copy_rows:
            write(os.path.join(d, "check_copy.csv"), pageable_check)
        write(os.path.join(d, "check_gemm_fp32.csv"), gemm[1::2])
    bf16_rows = raw("gemm_bf16.csv")
    if bf16_rows is not None:
        bf16 = as_kernel(bf16_rows)
        write(os.path.join(d, "fit_bf16.csv"), bf16[0::2])
        write(os.path.join(d, "check_gemm_bf16.csv"), bf16[1::2])
    # gemm_fp32_reserve: only when its folder is asked for (h100_reserve's README).
    # gemm_fp32_reserve2 (h100_reserve2) and gemm_fp32_reserve3 (h100_reserve3): never derived
    # here, so that no check reads them by accident; their READMEs say how to use each once.
    # rnn_reserve3 was derived once the persistent-kernel model was final (its README).
    for name in ("conv", "rnn", "gemm_fp32_fresh", "gemm_fp32_reserve",
                 "conv_fresh", "rnn_fresh", "rnn_reserve", "rnn_tanh", "gemm_linear",
                 "rnn_reserve3", "gemm_bf16_fresh"):
        rows = raw(name + ".csv")
        if rows is not None:
            write(os.path.join(d, "check_" + name + ".csv"), as_kernel(rows))
    # The persistent RNN kernel's fit set: the layers between its template sizes, with the
    # template sizes of ../h100_reserve3 (their workloads relative to this folder).
    odd = raw("rnn_persist_odd.csv")
    templates = os.path.join(os.path.dirname(os.path.normpath(d)), "h100_reserve3",
                             "rnn_persist.csv")
    if odd is not None and os.path.exists(templates):
        at_templates = [dict(r, workload="../h100_reserve3/" + r["workload"])
                        for r in read(templates)]
        # A layer that is also in a set the model is checked on stays out of the fit
        # (lstm_h172_b1_s1 is in h100_reserve2/rnn_reserve.csv).
        calibration = os.path.dirname(os.path.normpath(d))
        checked = set()
        for name in ("h100/rnn.csv", "h100_fresh_layers/rnn_fresh.csv",
                     "h100_reserve2/rnn_reserve.csv", "h100_reserve3/rnn_reserve3.csv"):
            path = os.path.join(calibration, name)
            if os.path.exists(path):
                checked |= {r["workload"] for r in read(path)}
        odd = [r for r in odd if r["workload"] not in checked]
        write(os.path.join(d, "fit_rnn_persist.csv"), as_kernel(at_templates + odd))
    end_to_end = raw("end_to_end.csv")
    if end_to_end is not None:
        write(os.path.join(d, "check_end_to_end.csv"), [eager_graph(r) for r in end_to_end])
    fresh = os.path.join(os.path.dirname(os.path.normpath(d)), "h100_fresh")
    if os.path.basename(os.path.normpath(d)) == "h100" and \
            os.path.exists(os.path.join(fresh, "gemm_fp32_fresh.csv")):
        write(os.path.join(fresh, "check_gemm_fp32_fresh.csv"),
              as_kernel(read(os.path.join(fresh, "gemm_fp32_fresh.csv"))))


if __name__ == "__main__":
    main()
