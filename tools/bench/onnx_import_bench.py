#!/usr/bin/python3
"""Benchmark of ONNX import (issue 12): BERT-large (24 layers, hidden 1024, 16 heads, FFN 4096,
sequence 128) exported by tools/export_models.py with external data, imported by
`hetsim inspect FILE.onnx --dim batch=1 --dim seq=128 --json`.

Prints the wall time and peak RSS of the import (best of --repeat runs) and, as the reference
measured in the same run on the same machine, ONNX's own Python loader plus shape inference
(`onnx.load(load_external_data=False)` + `onnx.shape_inference.infer_shapes`), with the ratio
hetsim / reference. The issue's budget is < 5 s and < 1 GB RSS; this is a benchmark, not a
test: the numbers go in the session note, never into pass/fail.

    /usr/bin/python3 tools/bench/onnx_import_bench.py [--hetsim build/release/hetsim]
        [--cache DIR] [--repeat 3]
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOBS = ["layers=24", "hidden=1024", "heads=16", "ffn=4096", "seq_len=128"]


def run_measured(argv):
    """Wall seconds and the child's peak RSS in bytes (Linux ru_maxrss is in KiB)."""
    start = time.perf_counter()
    # wait4 reports the rusage of this one child (RUSAGE_CHILDREN would be the maximum over
    # every child so far).
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"onnx_import_bench: {' '.join(argv)} failed")
    return seconds, usage.ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hetsim", default=os.path.join(ROOT, "build/release/hetsim"))
    parser.add_argument("--cache", default=os.path.join(ROOT, "build/bench-models"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    os.makedirs(args.cache, exist_ok=True)
    model = os.path.join(args.cache, "bert_large.onnx")
    if not os.path.exists(model) or not os.path.exists(model + ".data"):
        print("exporting BERT-large with external data (once; cached in", args.cache + ")")
        cmd = [sys.executable, os.path.join(ROOT, "tools/export_models.py"), "bert", "--out",
               model, "--external-data"]
        for k in KNOBS:
            cmd += ["--set", k]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    weights = os.path.getsize(model + ".data")

    hetsim = [args.hetsim, "inspect", model, "--dim", "batch=1", "--dim", "seq=128", "--json"]
    info = json.loads(subprocess.run(hetsim, check=True, capture_output=True, text=True).stdout)
    reference = [sys.executable, "-c",
                 "import onnx, sys; m = onnx.load(sys.argv[1], load_external_data=False); "
                 "onnx.shape_inference.infer_shapes(m)", model]

    ours = [run_measured(hetsim) for _ in range(args.repeat)]
    theirs = [run_measured(reference) for _ in range(args.repeat)]
    t_ours, t_ref = min(s for s, _ in ours), min(s for s, _ in theirs)
    m_ours, m_ref = min(m for _, m in ours), min(m for _, m in theirs)
    print(f"BERT-large: {info['nodes']} ops, {info['flops']:.4g} FLOPs, "
          f"{weights / 1e9:.2f} GB of external weights")
    print(f"hetsim import (inspect)        : {t_ours:7.3f} s  {m_ours / 2**20:7.1f} MiB RSS")
    print(f"reference onnx.load+infer (py) : {t_ref:7.3f} s  {m_ref / 2**20:7.1f} MiB RSS")
    print(f"ratio hetsim / reference       : {t_ours / t_ref:7.2f}x time  "
          f"{m_ours / m_ref:5.2f}x memory")
    print(f"budget (issue 12)              : < 5 s and < 1 GiB: "
          f"{'met' if t_ours < 5 and m_ours < 2**30 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
