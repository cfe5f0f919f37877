#!/usr/bin/env python3
"""Writes EOP's fit set (issues 25 and 27) for `hetsim calibrate --fit`: configs/calibration/eop.

xu2022 prints no single-operator time. spec/simulator.md allows fitting a few global constants
of `i7_rtx2060` to Table 5's dense ratios, which say where the CPU part and the GPU part of a
split Dense take the same time (Eq. 5). Each ratio becomes one ratio row: the CPU timed on its
part, the GPU on the other part, speedup 1 (equal times):

  RNNs, dense, (0.15, 0.85) on batch size: the LSTM's recurrent Dense h_{t-1} x R,
    [16, 64] x [64, 256] at batch 16 (Table 3: hidden 64, 4 gates): 2 rows on the CPU
    (round(0.15 * 16)), 14 on the GPU.
  Transformers, dense, (0.28, 0.72) on HW1W2: BERT's attention Dense [16, 64, 768] x
    [768, 768] (Table 3: hidden 768; sequence 64, this repository's choice, the paper gives
    none), cut along its N: 215 columns on the CPU (round(0.28 * 768)), 553 on the GPU.

The operands are weights, resident on each device, as EOP times operators (§5.1: the loading
time of operators is not included). Table 5's other rows (which side takes the larger share of
each op type) are not fitted: they are predictions of the fitted platform (issue 27).

  RNNs, add, (0.90, 0.10) on batch size: the LSTM's gate sum x W + h R, [16, 256] + [16, 256]:
    14 rows on the CPU, 2 on the GPU. Both parts are tiny, so this row pins the CPU's per-op
    runtime cost against the GPU's launch; the two Dense rows then pin the two devices' Dense
    rates. Three rows for three constants: a calibration, not evidence.
Usage: python3 tools/measure/eop_fit_set.py [--out configs/calibration/eop]
"""
import argparse
import os

from one_op_graphs import binary_op_graph, write_graph


def binary(op, name, a, b, out):
    return binary_op_graph(name, op, a, b, out)


def matmul(name, a, b, out):
    return binary_op_graph(name, "MatMul", a, b, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="configs/calibration/eop")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "graphs"), exist_ok=True)
    rows = []

    def pair(label, cpu_graph, gpu_graph, source):
        for g in (cpu_graph, gpu_graph):
            write_graph(os.path.join(args.out, "graphs"), g)
        rows.append(f"CPU,graphs/{cpu_graph['name']}.json,compute,GPU,"
                    f"graphs/{gpu_graph['name']}.json,1,1,{source}")

    batch, hidden, gates = 16, 64, 4
    cpu_rows = round(0.15 * batch)
    pair("rnn_dense",
         matmul(f"rnn_dense_{cpu_rows}x{hidden}x{gates * hidden}", [cpu_rows, hidden],
                [hidden, gates * hidden], [cpu_rows, gates * hidden]),
         matmul(f"rnn_dense_{batch - cpu_rows}x{hidden}x{gates * hidden}",
                [batch - cpu_rows, hidden], [hidden, gates * hidden],
                [batch - cpu_rows, gates * hidden]),
         "xu2022 Table 5: RNNs dense (0.15 0.85) on batch size; equal part times (Eq. 5)")
    cpu_rows = round(0.90 * batch)
    pair("rnn_add",
         binary("Add", f"rnn_add_{cpu_rows}x{gates * hidden}", [cpu_rows, gates * hidden],
                [cpu_rows, gates * hidden], [cpu_rows, gates * hidden]),
         binary("Add", f"rnn_add_{batch - cpu_rows}x{gates * hidden}",
                [batch - cpu_rows, gates * hidden], [batch - cpu_rows, gates * hidden],
                [batch - cpu_rows, gates * hidden]),
         "xu2022 Table 5: RNNs add (0.90 0.10) on batch size; equal part times (Eq. 5)")
    seq, width = 64, 768
    cpu_cols = round(0.28 * width)
    pair("bert_dense",
         matmul(f"bert_dense_{batch}x{seq}x{width}x{cpu_cols}", [batch, seq, width],
                [width, cpu_cols], [batch, seq, cpu_cols]),
         matmul(f"bert_dense_{batch}x{seq}x{width}x{width - cpu_cols}", [batch, seq, width],
                [width, width - cpu_cols], [batch, seq, width - cpu_cols]),
         "xu2022 Table 5: Transformers dense (0.28 0.72) on HW1W2; equal part times (Eq. 5)")
    with open(os.path.join(args.out, "fit.csv"), "w") as f:
        f.write("device,workload,scope,reference_device,reference_workload,speedup,weight,"
                "source\n")
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
