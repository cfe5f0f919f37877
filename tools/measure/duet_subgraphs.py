#!/usr/bin/env python3
"""Writes DUET's fit and held-out sets (issue 25) for `hetsim calibrate`.

zhang2021 (DUET) publishes no single-operator times, only the TVM-compiled times of the
subgraphs its partitioner profiles (Table II, batch 1, ms, CPU / GPU) and of ResNet-18 alone
(Table III). This script cuts the same subgraphs out of hetsim's own DUET models (exported
with `hetsim inspect MODEL --set fused=1 --export`), by the op-name prefixes of each
submodule, and writes:

  graphs/<subgraph>.json  one JSON graph per subgraph: what crosses its boundary becomes a
                          graph input or output, weights stay weights
  fit.csv                 Table II's Wide-and-Deep and MT-DNN rows and Table III's ResNet-18:
                          what `hetsim calibrate --fit` sees
  held_out.csv            Table II's Siamese rows: predicted, never fitted

Usage: python3 tools/measure/duet_subgraphs.py --hetsim build/release/hetsim \
           [--out configs/calibration/duet]
"""
import argparse
import json
import os
import subprocess
import tempfile

# (subgraph, model, prefixes, CPU ms, GPU ms, set); zhang2021 Table II / Table III.
ROWS = [
    ("wd_wide", "wide_and_deep", ["/wide/"], 0.03, 0.05, "fit"),
    ("wd_ffn", "wide_and_deep", ["/deep/"], 0.07, 0.07, "fit"),
    ("wd_rnn", "wide_and_deep", ["/rnn/"], 2.4, 6.4, "fit"),
    ("wd_cnn", "wide_and_deep", ["/cnn/"], 14.9, 0.9, "fit"),
    ("wd_merge", "wide_and_deep", ["/Add"], 0.03, 0.06, "fit"),
    ("mtdnn_bert", "mt_dnn", ["/bert/", "/Transpose"], 289.7, 7.8, "fit"),
    # Table II gives the mean over the ten LSTM_CRF heads; they differ only in the tag count
    # of their last Gemm, so task 0 stands for them.
    ("mtdnn_lstm_crf", "mt_dnn", ["/task0/"], 3.19, 2.04, "fit"),
    ("siamese_left", "siamese_lstm", ["/left/"], 2.74, 3.22, "held_out"),
    ("siamese_right", "siamese_lstm", ["/right/"], 2.72, 3.24, "held_out"),
    ("siamese_merge", "siamese_lstm", ["/Sub", "/Mul", "/ReduceSum", "/Sqrt", "/Add", "/Div"],
     0.03, 0.05, "held_out"),
]
# Table III: ResNet-18 alone, TVM-CPU 15.8 ms, TVM-GPU 1.0 ms (a whole model: no cut).
RESNET18 = ("resnet", "depth=18", 15.8, 1.0)


def export(hetsim, model, tmp):
    path = os.path.join(tmp, model + ".json")
    subprocess.run([hetsim, "inspect", model, "--set", "fused=1", "--export", path],
                   check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def cut(graph, name, prefixes):
    ops = [o for o in graph["ops"] if any(o["name"].startswith(p) for p in prefixes)]
    if not ops:
        raise SystemExit(f"{name}: no op matches {prefixes}")
    produced = {t for o in ops for t in o["outputs"]}
    used = {t for o in ops for t in o["inputs"] + o["outputs"]}
    outside_readers = {t for o in graph["ops"] if o not in ops for t in o["inputs"]}
    tensors = []
    for t in graph["tensors"]:
        if t["name"] not in used:
            continue
        t = dict(t)
        if t["name"] not in produced and t["kind"] != "weight":
            t["kind"] = "input"
        tensors.append(t)
    outputs = [t for t in produced if t in outside_readers or t in graph["outputs"]]
    outputs.sort(key=lambda t: [x["name"] for x in tensors].index(t))
    return {"name": name, "tensors": tensors, "ops": ops, "outputs": outputs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hetsim", default="build/release/hetsim")
    ap.add_argument("--out", default="configs/calibration/duet")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "graphs"), exist_ok=True)
    sets = {"fit": [], "held_out": []}
    with tempfile.TemporaryDirectory() as tmp:
        models = {}
        for name, model, prefixes, cpu_ms, gpu_ms, which in ROWS:
            if model not in models:
                models[model] = export(args.hetsim, model, tmp)
            sub = cut(models[model], name, prefixes)
            with open(os.path.join(args.out, "graphs", name + ".json"), "w") as f:
                json.dump(sub, f, indent=1)
                f.write("\n")
            for device, ms in (("CPU", cpu_ms), ("GPU", gpu_ms)):
                sets[which].append((device, f"graphs/{name}.json", "", ms))
    model, knobs, cpu_ms, gpu_ms = RESNET18
    for device, ms in (("CPU", cpu_ms), ("GPU", gpu_ms)):
        sets["fit"].append((device, model, knobs, ms))
    for which, rows in sets.items():
        with open(os.path.join(args.out, which + ".csv"), "w") as f:
            f.write("device,workload,knobs,scope,time_s,source\n")
            table = "Table II" if not rows or rows[0][1] != "resnet" else "Table III"
            for device, workload, knobs, ms in rows:
                source = "zhang2021 Table III" if workload == "resnet" else "zhang2021 Table II"
                f.write(f"{device},{workload},{knobs},compute,{ms / 1000:.6g},{source}\n")


if __name__ == "__main__":
    main()
