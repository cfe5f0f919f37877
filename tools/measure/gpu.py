#!/usr/bin/env python3
"""Measure one CUDA GPU for hetsim's calibration (issue 30): kernels, copies and whole models.

    python3 tools/measure/gpu.py --out DIR [--device-name h100] [--budget-s 400]
    python3 tools/measure/gpu.py --dry-run --out DIR      # measures nothing, writes the layout
    python3 tools/measure/gpu.py --device cpu --quick --out DIR   # the timing code, on a CPU

It writes, under DIR, the measurement files of `hetsim calibrate --fit/--check` (issue 25):
`device,workload,knobs,scope,time_s` rows, where `workload` is a one-op JSON graph in
DIR/graphs/ (hetsim's format, sim/workloads/json_graph.hpp), a model name with its knobs
(hetsim's model zoo), or `copy`:

    gemm_fp32.csv   MatMul [M,K] x [K,N], fp32 with TF32 off (cuBLAS)
    gemm_bf16.csv   the same shapes in bf16
    conv.csv        forward Conv of every distinct ResNet-50 and Inception v3 layer, batch 1
                    and 16, fp32 with TF32 off, cuDNN autotuner on (algorithm in stats.csv)
    rnn.csv         one-layer cuDNN LSTM and GRU (input = hidden), fp32
    memory.csv      Add, Gelu, Softmax, LayerNormalization over 4 KB .. 1 GB, fp32, with L2
                    flushed before each run (knob l2=cold) and without (l2=hot, <= 64 MB)
    launch.csv      back-to-back launches of a small Add: the framework's time per op
                    (scope=dispatch: the wall time per op of many queued launches)
    copy.csv        host<->device copies, pinned and pageable, 4 KB .. 1 GB (scope=transfer;
                    knobs direction=host_to_device|device_to_host, host_memory, bytes)
    end_to_end.csv  eager forward passes of ResNet-50, BERT-base (seq 128) and DUET's
                    wide-and-deep at batch 1 and 16: scope=compute (inputs already on the
                    GPU, whole pass between two events) and scope=end_to_end (pageable host
                    inputs copied in, the output copied back)
    stats.csv       every row with its spread (min, p10, p90, max, runs) and extras: the
                    cuDNN kernels chosen, the profiler's kernel-time sum and kernel count, and
                    with --kernels the cuBLAS kernels each GEMM row ran, with their times
    manifest.json   GPU, driver, clocks, library versions, the exact command line, what each
                    section took and anything it skipped

    gemm_fp32_fresh.csv (only with --only gemm_fp32_fresh) a second fp32 GEMM set of 180 shapes
                    drawn with its own seed, none in gemm_fp32.csv: GEMMs a model fitted on
                    the first set has never seen (configs/calibration/h100_fresh, h200)
    gemm_fp32_reserve.csv (only with --only gemm_fp32_reserve) a third set, seed 2028, sharing
                    no shape with the other two: the clean test of issue 25's K-tile model,
                    used once (configs/calibration/h100_reserve)
    conv_fresh.csv, rnn_fresh.csv (only with --only conv_fresh,rnn_fresh) random forward
                    convolutions (seed 2029) and LSTM/GRU layers (seed 2030), none of them in
                    conv.csv or rnn.csv: shapes no model choice looked at
                    (configs/calibration/h100_fresh_layers)
    gemm_fp32_reserve2.csv, rnn_reserve.csv (only with --only gemm_fp32_reserve2,rnn_reserve)
                    a fourth GEMM set (seed 2031) and a second random LSTM/GRU set (seed 2032),
                    sharing nothing with the earlier ones (configs/calibration/h100_reserve2)
    rnn_reserve3.csv, rnn_persist.csv (only with --only rnn_reserve3,rnn_persist) a third
                    random LSTM/GRU set (seed 2033, sharing nothing with the earlier ones),
                    kept for a clean test of the recurrent model, and LSTM/GRU layers at
                    cuDNN's persistent-kernel template sizes (hidden 64..192, batch 1 and 16,
                    sequence 1..64): microbenchmarks of a persistent kernel's launch and steps.
                    Both give the host a head start that grows with the sequence and record
                    each kernel of a call with its time and launch configuration.
    rnn_tanh.csv (only with --only rnn_tanh) one-layer Elman RNNs (nn.RNN, tanh; hetsim's
                    `rnn`, an ONNX RNN op) on rnn.csv's grid, recorded as rnn_reserve3 is:
                    cuDNN's RNN_TANH mode, which no model choice has seen.
    gemm_linear.csv (only with --only gemm_linear) 60 GEMMs of their own seed (2034), each in
                    fp32 and bf16, with b stored as nn.Linear's weight [n, k] (y = a b^T,
                    cuBLAS's NT layout; ONNX Gemm with transB, hetsim's `matmul` with
                    trans_b=1): the layout every Linear layer runs, which no earlier set has.
    gemm_fp32_reserve3.csv (only with --only gemm_fp32_reserve3) a fifth fp32 GEMM set (seed
                    2035) sharing no shape with any earlier set: the held-out test of the
                    next GEMM model form, once h100_reserve2 has been used
                    (configs/calibration/h100_reserve3)
    gemm_bf16_fresh.csv (only with --only gemm_bf16_fresh) 180 bf16 GEMMs (seed 2036) sharing
                    no shape with any earlier set: a held-out test of the tensor-core model,
                    which the bf16 rows of gemm_bf16.csv and gemm_linear.csv have shaped
                    (configs/calibration/h100_bf16_fresh)
    gemm_bf16_reserve.csv (only with --only gemm_bf16_reserve) 180 more bf16 GEMMs (seed 2037)
                    sharing no shape with any earlier set, kept unseen for the next
                    tensor-core change (configs/calibration/h100_bf16_reserve)
    rnn_persist_odd.csv (only with --only rnn_persist_odd) LSTM/GRU layers of batch 1 at hidden
                    sizes between cuDNN's persistent templates (40, 65, 80, 100, 127, 136,
                    172, 190), sequence 1..64: the same kernels below their template size
    With --kernels the GEMM rows also record each kernel's launch configuration (grid, block,
    registers per thread, shared memory) from the profiler's trace: the grid shows a split-K
    inside a kernel, which the name does not.

Timing rules (METHOD.md of the device tool, issue 30): CUDA events around each run, warm-up
runs first, the median of at least 20 runs (more for short kernels, up to --max-runs). For
kernels, the L2 is flushed by a 256 MB write queued before each run's start event (so each
run starts cold; memory.csv's l2=hot rows skip it), and a spin kernel queued after it gives
the host a head start, so the queue never drains inside a timed run: kernel rows time the
GPU, not PyTorch's host-side launch cost (rnn rows keep that too, as no_lead_median_s in
stats.csv; launch.csv and end_to_end.csv measure it).
Every section has a time budget; what does not fit is skipped and listed in the manifest, so
the whole run ends inside --budget-s. Each CSV is rewritten after every section.

Model names and knobs are hetsim's (`hetsim list models`); the PyTorch models come from
tools/export_models.py, which mirrors hetsim's generators, so one definition serves both.
"""

import argparse
import csv
import datetime
import importlib.util
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

FIT_COLUMNS = ["device", "workload", "knobs", "scope", "time_s"]
STATS_COLUMNS = ["file", "device", "workload", "knobs", "scope", "time_s", "min_s", "p10_s",
                 "p90_s", "max_s", "runs", "extra"]
SECTIONS = ["gemm_fp32", "gemm_bf16", "conv", "rnn", "memory", "launch", "copy", "end_to_end"]
# Sections run only when --only names them (a dry run of the default set leaves them out, so
# the shipped h100 folder stays what the default run writes).
EXTRA_SECTIONS = ["gemm_fp32_fresh", "gemm_fp32_reserve", "conv_fresh", "rnn_fresh",
                  "gemm_fp32_reserve2", "rnn_reserve", "rnn_reserve3", "rnn_persist", "rnn_tanh",
                  "gemm_linear", "gemm_fp32_reserve3", "rnn_persist_odd", "gemm_bf16_fresh",
                  "gemm_bf16_reserve"]
# Seconds of the budget each section may use, as shares of --budget-s (the rest is start-up).
SECTION_SHARE = {"gemm_fp32": 0.15, "gemm_bf16": 0.08, "conv": 0.22, "rnn": 0.10,
                 "memory": 0.08, "launch": 0.02, "copy": 0.12, "end_to_end": 0.15,
                 "gemm_fp32_fresh": 0.5, "gemm_fp32_reserve": 0.5, "conv_fresh": 0.5,
                 "rnn_fresh": 0.5, "gemm_fp32_reserve2": 0.5, "rnn_reserve": 0.5,
                 "rnn_reserve3": 0.5, "rnn_persist": 0.5, "rnn_tanh": 0.5, "gemm_linear": 0.5,
                 "gemm_fp32_reserve3": 0.5, "rnn_persist_odd": 0.5, "gemm_bf16_fresh": 0.5,
                 "gemm_bf16_reserve": 0.5}
KB = 1024
MEMORY_SIZES = [4 * KB * 2 ** k for k in range(19)]  # 4 KB .. 1 GB
HOT_LIMIT_BYTES = 64 * 1024 * KB
LEAD_CYCLES = 100_000  # ~50 us at 2 GHz, after the flush: longer than one launch from PyTorch
RNN_LEAD_CYCLES = 2_000_000  # ~1 ms: longer than PyTorch's host work for one cuDNN RNN call
ROW = 1024  # softmax and LayerNorm rows: 1024 fp32 values (4 KB), BERT-large-like width


def load_export_models():
    spec = importlib.util.spec_from_file_location("export_models",
                                                  os.path.join(REPO, "tools", "export_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- shapes --------------------------------------------------------------------------------


def gemm_shapes():
    """(M, K, N) triples, 16..8192 (a skinny side from 1): square, skinny, long-K and seeded
    log-uniform ones, in a fixed order."""
    shapes = []
    squares = [16, 24, 32, 48, 64, 96, 100, 128, 192, 200, 256, 384, 500, 512, 768, 1000, 1024,
               1536, 2000, 2048, 3072, 4000, 4096, 5000, 6144, 7000, 8192]
    shapes += [(s, s, s) for s in squares]
    for small in (1, 2, 4, 8, 16, 32, 64):
        for k, n in ((512, 512), (768, 3072), (1024, 1024), (4096, 1024), (4096, 4096),
                     (8192, 8192)):
            shapes.append((small, k, n))  # skinny M (a batch of rows through a layer)
    for small in (1, 8, 32, 64):
        for m, k in ((1024, 1024), (4096, 4096), (8192, 2048)):
            shapes.append((m, k, small))  # skinny N
    for mn in (16, 64, 128, 256, 512):
        for k in (2048, 4096, 8192):
            shapes.append((mn, k, mn))  # long K
    rng = random.Random(30)
    while len(shapes) < 160:
        m, k, n = (int(round(math.exp(rng.uniform(math.log(16), math.log(8192))))) for _ in
                   range(3))
        shapes.append((m, k, n))
    return distinct(shapes)


def distinct(shapes):
    seen, unique = set(), []
    for s in shapes:
        if s not in seen:
            seen.add(s)
            unique.append(s)
    return unique


def fresh_gemm_shapes(seed=2027):
    """A second fp32 GEMM set, drawn after the model of issue 25 was built, to test it on shapes
    it never saw (configs/calibration/h100_fresh): its own seed, and sides from 1, so skinny
    problems of every size come up, not only the structured ones of gemm_shapes(). Seed 2028
    draws the reserve set (configs/calibration/h100_reserve, used once for the K-tile model),
    seed 2031 the second reserve (configs/calibration/h100_reserve2), kept unseen, and seed 2035
    the third (configs/calibration/h100_reserve3), which shares no shape with any earlier set,
    gemm_linear's seed 2034 included; seed 2036 the bf16 set gemm_bf16_fresh, sharing none
    with seed 2035's either, and seed 2037 the bf16 reserve, sharing none with 2036's."""
    rng = random.Random(seed)

    def side(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    shapes = []
    while len(shapes) < 120:  # every side log-uniform in 16..8192
        shapes.append((side(16, 8192), side(16, 8192), side(16, 8192)))
    while len(shapes) < 150:  # one skinny side, 1..64, in turn M, N, K
        small = side(1, 64)
        big = (side(256, 8192), side(256, 8192))
        shapes.append([(small, big[0], big[1]), (big[0], big[1], small),
                       (big[0], small, big[1])][len(shapes) % 3])
    while len(shapes) < 180:  # layer-like: rows = batch x tokens, K and N multiples of 64
        shapes.append((rng.choice([1, 8, 16, 64, 128, 512, 2048, 4096]),
                       64 * side(4, 128), 64 * side(4, 128)))
    if seed != 2027:  # a reserve set shares no shape with the earlier sets
        taken = set(gemm_shapes()) | set(fresh_gemm_shapes())
        if seed != 2028:
            taken |= set(fresh_gemm_shapes(2028))
        if seed >= 2035:  # from the third reserve on, every earlier seed's shapes too
            for earlier in (2031, 2034, 2035, 2036):
                if earlier < seed:
                    taken |= set(fresh_gemm_shapes(earlier))
        shapes = [x for x in shapes if x not in taken]
    return distinct(shapes)


def conv_layers():
    """Distinct Conv2d layers of torchvision's ResNet-50 (224) and Inception v3 (299), found
    by forward hooks: (net, x shape at batch 1, out channels, kernel, stride, pad, dilation,
    groups)."""
    import torchvision.models as tvm
    found, seen = [], set()

    def hook_for(net):
        def hook(module, inputs, _output):
            x = inputs[0]
            key = (tuple(x.shape[1:]), module.out_channels, tuple(module.kernel_size),
                   tuple(module.stride), tuple(module.padding), tuple(module.dilation),
                   module.groups)
            if key not in seen:
                seen.add(key)
                found.append((net,) + key)
        return hook

    nets = [("resnet50", tvm.resnet50(weights=None), 224),
            ("inception_v3", tvm.inception_v3(weights=None, aux_logits=False,
                                              init_weights=False), 299)]
    for name, net, image in nets:
        net.eval()
        handles = [m.register_forward_hook(hook_for(name)) for m in net.modules()
                   if isinstance(m, torch.nn.Conv2d)]
        with torch.no_grad():
            net(torch.zeros(1, 3, image, image))
        for h in handles:
            h.remove()
    return found


def fresh_conv_layers(seed=2029):
    """Random forward convolutions for an unbiased test of the conv model (none is a ResNet-50
    or Inception v3 layer of conv_layers()), in conv_layers()'s layout: batch 1..32, channels
    log-uniform, square images 7..112, kernels 1/3/5/7 with 'same' padding, strides 1/2; at
    most 32 M input values and 50 GFLOP each, so the set runs in about a minute."""
    rng = random.Random(seed)

    def side(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    taken = {layer[1:] for layer in conv_layers()} if seed == 2029 else set()
    items = []
    while len(items) < 100:
        batch = rng.choice([1, 2, 4, 8, 16, 32])
        c, o, size = side(3, 1024), side(8, 1024), side(7, 112)
        k = rng.choice([1, 1, 3, 3, 5, 7])
        s = rng.choice([1, 1, 2])
        out = (size + 2 * (k // 2) - k) // s + 1
        flops = 2 * batch * out * out * o * c * k * k
        if batch * c * size * size > 32 * 1024 * 1024 or k > size or flops > 50e9:
            continue
        layer = ("fresh", (c, size, size), o, (k, k), (s, s), (k // 2, k // 2), (1, 1), 1)
        if layer[1:] in taken:
            continue
        taken.add(layer[1:])
        items.append((batch, layer))
    return items


def fresh_rnn_configs(seed=2030):
    """Random one-layer LSTM/GRU layers (input = hidden), none of them in rnn_configs() or an
    earlier seed's set: hidden 32..2048, batch 1..128, sequence 1..200, each log-uniform. Seed
    2030 is rnn_fresh, 2032 rnn_reserve, 2033 rnn_reserve3."""
    rng = random.Random(seed)

    def side(lo, hi):
        return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))

    taken = set(rnn_configs())
    for earlier in (2030, 2032):  # a reserve set shares no layer with the random sets before it
        if seed > earlier:
            taken |= set(fresh_rnn_configs(earlier))
    items = []
    while len(items) < 60:
        item = (rng.choice(["LSTM", "GRU"]), side(32, 2048), side(1, 128), side(1, 200))
        if item not in taken:
            taken.add(item)
            items.append(item)
    return items


def rnn_lead_cycles(seq):
    """The head start (GPU cycles of a spin kernel) for a cuDNN call over `seq` steps: about
    25 us of PyTorch's host time for each of its 2 x seq + 3 kernels, at 2 GHz, and never less
    than RNN_LEAD_CYCLES. rnn_reserve's longest sequences outran RNN_LEAD_CYCLES: its s >~ 50
    rows time the host's launches, not the GPU."""
    return max(RNN_LEAD_CYCLES, int((2 * seq + 3) * 25e-6 * 2e9))


def persistent_rnn_configs(hiddens=(64, 96, 128, 160, 192), batches=(1, 16)):
    """LSTM and GRU layers at cuDNN 9's persistent-kernel template sizes (hidden 64, 96, 128,
    160, 192), batch 1 and 16, sequence 1, 4, 16 and 64: a persistent kernel's launch and its
    cost per step, as microbenchmarks. Layers already in rnn.csv are left out. With hidden
    sizes between the templates and batch 1 (rnn_persist_odd): the same kernels run for a
    hidden size below their template, whose weights load faster than a template size's."""
    taken = set(rnn_configs())
    return [(cell, hidden, batch, seq) for cell in ("LSTM", "GRU")
            for hidden in hiddens for batch in batches for seq in (1, 4, 16, 64)
            if (cell, hidden, batch, seq) not in taken]


def rnn_configs(cells=("LSTM", "GRU")):
    return [(cell, hidden, batch, seq) for cell in cells
            for hidden in (64, 128, 256, 512, 1024, 2048) for batch in (1, 8, 64)
            for seq in (1, 10, 100)]


# ---- one-op JSON graphs (hetsim's format) ---------------------------------------------------


class Graphs:
    def __init__(self, out_dir):
        self.dir = os.path.join(out_dir, "graphs")
        os.makedirs(self.dir, exist_ok=True)

    def write(self, name, tensors, op_type, inputs, outputs, attrs=None):
        graph = {"name": name,
                 "tensors": [{"name": n, "shape": list(s), "dtype": d, "kind": k}
                             for n, s, d, k in tensors],
                 "ops": [{"name": "op", "type": op_type, "inputs": inputs, "outputs": outputs,
                          "attrs": attrs or {}}],
                 "outputs": outputs}
        path = os.path.join(self.dir, name + ".json")
        with open(path, "w") as f:
            json.dump(graph, f, indent=1)
            f.write("\n")
        return "graphs/" + name + ".json"


def dtype_name(dtype):
    return {torch.float32: "float32", torch.bfloat16: "bfloat16"}[dtype]


def gemm_graph(graphs, m, k, n, dtype, linear=False):
    """y = a b as a MatMul, or with `linear` as nn.Linear stores its weight, b [n, k]: an ONNX
    Gemm with transB (hetsim's `matmul` model with trans_b=1, the same graph)."""
    d = dtype_name(dtype)
    if linear:
        return graphs.write(f"matmul_{d}_{m}x{k}x{n}_nt",
                            [("a", (m, k), d, "input"), ("b", (n, k), d, "weight"),
                             ("y", (m, n), d, "activation")], "Gemm", ["a", "b"], ["y"],
                            {"transA": 0, "transB": 1})
    return graphs.write(f"matmul_{d}_{m}x{k}x{n}",
                        [("a", (m, k), d, "input"), ("b", (k, n), d, "weight"),
                         ("y", (m, n), d, "activation")], "MatMul", ["a", "b"], ["y"])


def conv_out(size, k, s, p, dil):
    return (size + 2 * p - dil * (k - 1) - 1) // s + 1


def conv_graph(graphs, batch, layer):
    _net, (c, h, w), o, (kh, kw), (sh, sw), (ph, pw), (dh, dw), g = layer
    oh, ow = conv_out(h, kh, sh, ph, dh), conv_out(w, kw, sw, pw, dw)
    name = f"conv_b{batch}_{c}x{h}x{w}_o{o}_k{kh}x{kw}_s{sh}x{sw}_p{ph}x{pw}"
    if (dh, dw) != (1, 1):
        name += f"_d{dh}x{dw}"
    if g != 1:
        name += f"_g{g}"
    attrs = {"kernel_shape": [kh, kw], "strides": [sh, sw], "pads": [ph, pw, ph, pw],
             "dilations": [dh, dw], "group": g}
    return graphs.write(name, [("x", (batch, c, h, w), "float32", "input"),
                               ("w", (o, c // g, kh, kw), "float32", "weight"),
                               ("y", (batch, o, oh, ow), "float32", "activation")],
                        "Conv", ["x", "w"], ["y"], attrs)


def rnn_graph(graphs, cell, hidden, batch, seq):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[cell]
    tensors = [("x", (seq, batch, hidden), "float32", "input"),
               ("w", (1, gates * hidden, hidden), "float32", "weight"),
               ("r", (1, gates * hidden, hidden), "float32", "weight"),
               ("b", (1, 2 * gates * hidden), "float32", "weight"),
               ("y", (seq, 1, batch, hidden), "float32", "activation"),
               ("y_h", (1, batch, hidden), "float32", "activation")]
    outputs = ["y", "y_h"]
    attrs = {"hidden_size": hidden}
    if cell == "LSTM":
        tensors.append(("y_c", (1, batch, hidden), "float32", "activation"))
        outputs.append("y_c")
    elif cell == "GRU":
        attrs["linear_before_reset"] = 1  # PyTorch's GRU, as ONNX exports it
    return graphs.write(f"{cell.lower()}_h{hidden}_b{batch}_s{seq}", tensors, cell,
                        ["x", "w", "r", "b"], outputs, attrs)


def memory_graph(graphs, kind, nbytes):
    rows = nbytes // (4 * ROW)
    shape = (rows, ROW)
    x = ("x", shape, "float32", "input")
    y = ("y", shape, "float32", "activation")
    size = f"{nbytes // KB}k"
    if kind == "add":
        return graphs.write(f"add_{size}", [x, ("x2", shape, "float32", "input"), y], "Add",
                            ["x", "x2"], ["y"])
    if kind == "gelu":
        return graphs.write(f"gelu_{size}", [x, y], "Gelu", ["x"], ["y"])
    if kind == "softmax":
        return graphs.write(f"softmax_{size}", [x, y], "Softmax", ["x"], ["y"], {"axis": -1})
    return graphs.write(f"layernorm_{size}",
                        [x, ("scale", (ROW,), "float32", "weight"),
                         ("bias", (ROW,), "float32", "weight"), y],
                        "LayerNormalization", ["x", "scale", "bias"], ["y"],
                        {"axis": -1, "epsilon": 1e-5})


# ---- timing ---------------------------------------------------------------------------------


class Timer:
    """Times fn() with CUDA events (or perf_counter on a CPU, for --device cpu): warm-up runs,
    then at least min_runs timed ones, more while they fit in target_s, at most max_runs."""

    def __init__(self, device, min_runs, max_runs, target_s, flush_mb):
        self.device = device
        self.cuda = device.type == "cuda"
        self.min_runs, self.max_runs, self.target_s = min_runs, max_runs, target_s
        self.flush_buffer = (torch.empty(flush_mb * 1024 * 1024, dtype=torch.uint8,
                                         device=device) if flush_mb else None)

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    def flush(self):
        if self.flush_buffer is not None:
            self.flush_buffer.fill_(1)

    def _times(self, fn, runs, flush, sync_each, lead_cycles):
        if not self.cuda:
            out = []
            for _ in range(runs):
                if flush:
                    self.flush()
                t0 = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t0)
            return out
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(runs)]
        for start, end in events:
            if flush:
                self.flush()
            if lead_cycles and not sync_each and hasattr(torch.cuda, "_sleep"):
                # A spin kernel that touches no memory gives the host a head start: it queues
                # the start event and the op's kernels behind it, so the events time the
                # kernels, not the host's launch latency (PyTorch's cuDNN RNN path spends
                # over 100 us on the host before its first kernel).
                torch.cuda._sleep(lead_cycles)
            if sync_each:
                self.sync()
            start.record()
            fn()
            end.record()
        self.sync()
        return [start.elapsed_time(end) * 1e-3 for start, end in events]

    def measure(self, fn, flush=True, sync_each=False, warmup=3, lead_cycles=LEAD_CYCLES):
        self._times(fn, warmup, flush, sync_each, lead_cycles)
        probe = statistics.median(self._times(fn, 3, flush, sync_each, lead_cycles))
        runs = self.min_runs
        if probe > 0:
            runs = max(self.min_runs, min(self.max_runs, int(self.target_s / probe)))
        return self._times(fn, runs, flush, sync_each, lead_cycles)

    def wall(self, fn, runs):
        """Wall-clock seconds of fn() run synchronously (host-side view), one value a run."""
        out = []
        for _ in range(runs):
            self.sync()
            t0 = time.perf_counter()
            fn()
            self.sync()
            out.append(time.perf_counter() - t0)
        return out


def quantile(sorted_values, q):
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summary(times):
    s = sorted(times)
    return {"time_s": statistics.median(s), "min_s": s[0], "p10_s": quantile(s, 0.1),
            "p90_s": quantile(s, 0.9), "max_s": s[-1], "runs": len(s)}


def fmt_time(t):
    return "" if t is None else f"{t:.6g}"


# ---- the run ----------------------------------------------------------------------------------


class Run:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.dry = args.dry_run
        self.device_name = args.device_name
        self.graphs = Graphs(self.out)
        self.selected = ([n for n in SECTIONS + EXTRA_SECTIONS if n in args.only.split(",")]
                         if args.only else SECTIONS)
        self.rows = {s: [] for s in self.selected}
        self.stats = []
        self.manifest = {"command": [sys.executable] + sys.argv,
                         "cwd": os.getcwd(),
                         "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                         "dry_run": self.dry, "sections": {}, "skipped": {}}
        self.t0 = time.monotonic()
        if self.dry:
            self.device = torch.device("cpu")
            self.timer = None
        else:
            self.device = torch.device(args.device)
            self.timer = Timer(self.device, args.min_runs, args.max_runs, args.target_s,
                               args.flush_mb)

    # Bookkeeping ----------------------------------------------------------------------------

    def add(self, section, workload, knobs, scope, times=None, extra=None, summary_of=None):
        stats = summary(times) if times else (summary_of or {})
        knob_text = ";".join(f"{k}={v}" for k, v in knobs.items())
        self.rows[section].append({"device": self.device_name, "workload": workload,
                                   "knobs": knob_text, "scope": scope,
                                   "time_s": fmt_time(stats.get("time_s"))})
        row = {"file": section + ".csv", "device": self.device_name, "workload": workload,
               "knobs": knob_text, "scope": scope, "extra": json.dumps(extra or {},
                                                                        sort_keys=True)}
        for key in ("time_s", "min_s", "p10_s", "p90_s", "max_s"):
            row[key] = fmt_time(stats.get(key))
        row["runs"] = stats.get("runs", "")
        self.stats.append(row)

    def write(self):
        for section in self.selected:
            with open(os.path.join(self.out, section + ".csv"), "w", newline="") as f:
                w = csv.DictWriter(f, FIT_COLUMNS, lineterminator="\n")
                w.writeheader()
                w.writerows(self.rows[section])
        with open(os.path.join(self.out, "stats.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, STATS_COLUMNS, lineterminator="\n")
            w.writeheader()
            w.writerows(self.stats)
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump(self.manifest, f, indent=1, sort_keys=True)
            f.write("\n")

    def section(self, name, items, measure_one):
        """Runs measure_one over items inside the section's budget; skips the rest."""
        budget = self.args.budget_s * SECTION_SHARE[name]
        if self.args.limit:
            items = items[:self.args.limit]
        start = time.monotonic()
        done = 0
        for item in items:
            if not self.dry and time.monotonic() - start > budget:
                self.manifest["skipped"][name] = {
                    "count": len(items) - done,
                    "why": f"section budget of {budget:.0f} s spent"}
                break
            try:
                measure_one(item)
            except Exception as e:  # one bad item must not lose the run
                self.manifest.setdefault("errors", []).append(f"{name} {item}: {e!r}")
                if self.device.type == "cuda":
                    torch.cuda.empty_cache()
            done += 1
        took = time.monotonic() - start
        self.manifest["sections"][name] = {"items": done, "of": len(items),
                                           "seconds": round(took, 2)}
        print(f"[{time.monotonic() - self.t0:7.1f} s] {name}: {done}/{len(items)} in "
              f"{took:.1f} s", flush=True)
        self.write()

    # Provenance ------------------------------------------------------------------------------

    def provenance(self):
        m = self.manifest
        m["python"] = sys.version.split()[0]
        m["torch"] = torch.__version__
        m["host"] = {"platform": platform.platform(), "processor": cpu_model(),
                     "cpus": os.cpu_count()}
        m["tf32"] = {"matmul": False, "cudnn": False,
                     "why": "fp32 rows are true fp32: TF32 off for cuBLAS and cuDNN alike"}
        m["cudnn_benchmark"] = True
        try:
            from importlib import metadata
            m["packages"] = {p: metadata.version(p) for p in
                             ("torch", "torchvision", "nvidia-cublas", "nvidia-cudnn-cu13",
                              "nvidia-cuda-runtime") if has_distribution(metadata, p)}
        except Exception as e:
            m["packages"] = {"error": repr(e)}
        if self.device.type == "cuda":
            p = torch.cuda.get_device_properties(self.device)
            m["gpu"] = {"name": p.name, "sm_count": p.multi_processor_count,
                        "memory_bytes": p.total_memory, "capability": f"{p.major}.{p.minor}",
                        "l2_bytes": getattr(p, "L2_cache_size", None),
                        "cuda": torch.version.cuda,
                        "cudnn": torch.backends.cudnn.version()}
            m["nvidia_smi_before"] = nvidia_smi()

    # Sections --------------------------------------------------------------------------------

    def gemm(self, dtype, section, shapes, linear=False):
        """With `linear`, each shape in both dtypes (`dtype` is then ignored), b stored as
        nn.Linear's weight [n, k] and y = a b^T: cuBLAS's NT layout, the one every Linear
        layer runs."""
        if linear:
            shapes = [(shape, dt) for shape in shapes for dt in (torch.float32, torch.bfloat16)]
        else:
            shapes = [(shape, dtype) for shape in shapes]

        def one(item):
            (m, k, n), dtype_ = item
            workload = gemm_graph(self.graphs, m, k, n, dtype_, linear)
            if self.dry:
                return self.add(section, workload, {}, "compute")
            a = torch.randn(m, k, device=self.device, dtype=dtype_)
            y = torch.empty(m, n, device=self.device, dtype=dtype_)
            if linear:
                b = torch.randn(n, k, device=self.device, dtype=dtype_)
                run = lambda: torch.matmul(a, b.t(), out=y)  # noqa: E731
            else:
                b = torch.randn(k, n, device=self.device, dtype=dtype_)
                run = lambda: torch.matmul(a, b, out=y)  # noqa: E731
            times = self.timer.measure(run)
            s = summary(times)
            extra = {"tflops": 2.0 * m * k * n / s["time_s"] / 1e12}
            self.add(section, workload, {}, "compute", times, extra)
            if self.args.kernels:
                to_profile.append((self.stats[-1], extra, run))
            else:
                del a, b, y

        to_profile = []
        self.section(section, shapes, one)
        if to_profile:
            # After every timed run, so the profiler never slows them, and in one profiler
            # session (one per call costs more than the calls): which cuBLAS kernels (tile,
            # split-K, GEMV) each call ran, and their times, L2 warm.
            try:
                launches = []
                per_call = kernels_per_call([run for _, _, run in to_profile], self.device,
                                            launches)
                for (row, extra, _), kernels, launch in zip(to_profile, per_call, launches):
                    extra["kernels"] = [[name, round(t * 1e6, 3)] for name, t in kernels]
                    extra["launches"] = launch
                    row["extra"] = json.dumps(extra, sort_keys=True)
            except Exception as e:
                self.manifest.setdefault("errors", []).append(f"{section} kernels: {e!r}")
            self.write()

    def conv(self, section="conv", items=None):
        if items is None:
            items = [(batch, layer) for batch in (1, 16) for layer in conv_layers()]

        def one(item):
            batch, layer = item
            workload = conv_graph(self.graphs, batch, layer)
            net = layer[0]
            if self.dry:
                return self.add(section, workload, {}, "compute", extra={"net": net})
            _net, (c, h, w), o, kernel, stride, pad, dil, g = layer
            x = torch.randn(batch, c, h, w, device=self.device)
            wt = torch.randn(o, c // g, *kernel, device=self.device)

            def run():
                return F.conv2d(x, wt, None, stride, pad, dil, g)

            times = self.timer.measure(run)
            self.add(section, workload, {}, "compute", times,
                     {"net": net, "kernels": kernel_names(run, self.device)})

        self.section(section, items, one)

    def rnn(self, section="rnn", items=None):
        # The sections added after rnn_reserve give the host a head start that grows with the
        # sequence (rnn_lead_cycles), so that a long sequence's kernels are all queued before
        # its start event, and record every kernel of one call with its time and launch
        # configuration.
        full = section in ("rnn_reserve3", "rnn_persist", "rnn_tanh", "rnn_persist_odd")

        def one(item):
            cell, hidden, batch, seq = item
            workload = rnn_graph(self.graphs, cell, hidden, batch, seq)
            if self.dry:
                return self.add(section, workload, {}, "compute")
            module = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU,
                      "RNN": torch.nn.RNN}[cell](hidden, hidden)
            module = module.to(self.device).eval()
            x = torch.randn(seq, batch, hidden, device=self.device)
            lead = rnn_lead_cycles(seq) if full else RNN_LEAD_CYCLES
            with torch.no_grad():
                times = self.timer.measure(lambda: module(x), lead_cycles=lead)
                host_bound = self.timer.measure(lambda: module(x), lead_cycles=0)
                extra = {"no_lead_median_s": summary(host_bound)["time_s"]}
                if full:
                    # One profiled call gives the names, the sum and the count as well.
                    extra["lead_cycles"] = lead
                    try:
                        launches = []
                        call = kernels_per_call([lambda: module(x)], self.device, launches)[0]
                        extra["kernels"] = sorted({name for name, _ in call})
                        extra["kernel_sum_s"] = sum(t for _, t in call)
                        extra["kernels_per_call"] = len(call)
                        extra["kernel_times"] = [[name, round(t * 1e6, 3)] for name, t in call]
                        extra["launches"] = launches[0]
                    except Exception as e:  # the timings stand without them
                        extra["kernel_times"] = f"profiler failed: {e!r}"
                elif section != "rnn":  # the shipped rnn.csv rows predate these fields
                    extra["kernels"] = kernel_names(lambda: module(x), self.device)
                    extra["kernel_sum_s"], extra["kernels_per_call"] = kernel_time(
                        lambda: module(x), self.device, passes=1)
            self.add(section, workload, {}, "compute", times, extra)

        self.section(section, rnn_configs() if items is None else items, one)

    def memory(self):
        items = [(kind, nbytes, l2) for nbytes in MEMORY_SIZES
                 for kind in ("add", "gelu", "softmax", "layernorm")
                 for l2 in ("cold", "hot") if l2 == "cold" or nbytes <= HOT_LIMIT_BYTES]

        def one(item):
            kind, nbytes, l2 = item
            workload = memory_graph(self.graphs, kind, nbytes)
            knobs = {"l2": l2}
            if self.dry:
                return self.add("memory", workload, knobs, "compute")
            shape = (nbytes // (4 * ROW), ROW)
            x = torch.randn(shape, device=self.device)
            y = torch.empty_like(x)
            if kind == "add":
                x2 = torch.randn(shape, device=self.device)
                fn = lambda: torch.add(x, x2, out=y)  # noqa: E731
            elif kind == "gelu":
                fn = lambda: F.gelu(x)  # noqa: E731
            elif kind == "softmax":
                fn = lambda: torch.softmax(x, dim=-1)  # noqa: E731
            else:
                scale = torch.randn(ROW, device=self.device)
                bias = torch.randn(ROW, device=self.device)
                fn = lambda: F.layer_norm(x, (ROW,), scale, bias, 1e-5)  # noqa: E731
            times = self.timer.measure(fn, flush=(l2 == "cold"))
            s = summary(times)
            moved = nbytes * (3 if kind == "add" else 2)
            self.add("memory", workload, knobs, "compute", times,
                     {"bytes_moved": moved, "GBps": moved / s["time_s"] / 1e9})

        self.section("memory", items, one)

    def launch(self):
        """The framework's time per op when ops queue faster than they run: many small Adds
        launched back to back, timed from before the first launch to after the last."""
        items = [(nbytes, count) for nbytes in (4 * KB, 64 * KB, 1024 * KB) for count in
                 (1000,)]

        def one(item):
            nbytes, count = item
            workload = memory_graph(self.graphs, "add", nbytes)
            knobs = {"ops": count}
            if self.dry:
                return self.add("launch", workload, knobs, "dispatch")
            shape = (nbytes // (4 * ROW), ROW)
            x = torch.randn(shape, device=self.device)
            x2 = torch.randn(shape, device=self.device)
            y = torch.empty_like(x)

            def burst():
                for _ in range(count):
                    torch.add(x, x2, out=y)

            per_op = [t / count for t in self.timer.wall(burst, 3)]  # warm-up
            per_op = [t / count for t in self.timer.wall(burst, self.args.min_runs)]
            self.add("launch", workload, knobs, "dispatch", per_op)

        self.section("launch", items, one)

    def copy(self):
        items = [(direction, memory, nbytes) for nbytes in MEMORY_SIZES
                 for direction in ("host_to_device", "device_to_host")
                 for memory in ("pinned", "pageable")]
        buffers = {}

        def host(memory, nbytes):
            key = (memory, nbytes)
            if key not in buffers:
                buffers.clear()  # one host buffer at a time: 1 GB pinned is plenty
                t = torch.empty(nbytes, dtype=torch.uint8, pin_memory=(memory == "pinned"))
                t.fill_(7)  # touch every page now, not inside a timed copy
                buffers[key] = t
            return buffers[key]

        def one(item):
            direction, memory, nbytes = item
            knobs = {"direction": direction, "host_memory": memory, "bytes": nbytes}
            if self.dry:
                return self.add("copy", "copy", knobs, "transfer")
            h = host(memory, nbytes)
            d = torch.empty(nbytes, dtype=torch.uint8, device=self.device)
            if direction == "host_to_device":
                fn = lambda: d.copy_(h, non_blocking=(memory == "pinned"))  # noqa: E731
            else:
                fn = lambda: h.copy_(d, non_blocking=(memory == "pinned"))  # noqa: E731
            # Synchronised runs: a pageable copy blocks the host anyway; events still time
            # the stream, and the wall clock is kept beside them.
            times = self.timer.measure(fn, flush=False, sync_each=True)
            wall = summary(self.timer.wall(fn, 5))
            s = summary(times)
            self.add("copy", "copy", knobs, "transfer", times,
                     {"GBps": nbytes / s["time_s"] / 1e9, "wall_median_s": wall["time_s"]})

        self.section("copy", items, one)
        buffers.clear()

    def end_to_end(self):
        em = load_export_models()
        catalogue = em.catalogue()
        models = [("resnet50", "resnet", {"depth": 50}, {}),
                  ("bert", "bert", {"layers": 12, "hidden": 768, "heads": 12, "ffn": 3072,
                                    "seq_len": 128}, {}),
                  ("wide_and_deep", "wide_and_deep", {"fused": 1}, {})]
        items = [(m, batch) for m in models for batch in (1, 16)]

        def one(item):
            (torch_name, hetsim_name, hetsim_knobs, _), batch = item
            knobs = dict(hetsim_knobs, batch=batch)
            export_knobs = {k: v for k, v in knobs.items() if k not in ("depth", "fused")}
            if self.dry:
                self.add("end_to_end", hetsim_name, knobs, "compute")
                return self.add("end_to_end", hetsim_name, knobs, "end_to_end")
            defaults, make, _ = catalogue[torch_name]
            model, inputs = make(dict(defaults, **export_knobs))[:2]
            model = model.to(self.device).eval()
            dev_inputs = [t.to(self.device) for t in inputs]
            with torch.no_grad():
                compute = self.timer.measure(lambda: model(*dev_inputs), flush=False,
                                             sync_each=True, warmup=5)

                def from_host():
                    out = model(*[t.to(self.device) for t in inputs])
                    outs = out if isinstance(out, tuple) else (out,)
                    return [o.cpu() for o in outs]

                e2e = self.timer.measure(from_host, flush=False, sync_each=True, warmup=3)
                kernel_s, kernel_count = kernel_time(lambda: model(*dev_inputs), self.device)
            extra = {"torch_model": torch_name, "kernel_sum_s": kernel_s,
                     "kernels_per_pass": kernel_count}
            self.add("end_to_end", hetsim_name, knobs, "compute", compute, extra)
            self.add("end_to_end", hetsim_name, knobs, "end_to_end", e2e, extra)
            del model, dev_inputs

        self.section("end_to_end", items, one)

    def run(self):
        if not self.dry:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cudnn.benchmark = True
            torch.manual_seed(30)
        self.provenance()
        self.write()
        steps = {"gemm_fp32": lambda: self.gemm(torch.float32, "gemm_fp32", gemm_shapes()),
                 "gemm_bf16": lambda: self.gemm(torch.bfloat16, "gemm_bf16", gemm_shapes()),
                 "gemm_fp32_fresh": lambda: self.gemm(torch.float32, "gemm_fp32_fresh",
                                                      fresh_gemm_shapes()),
                 "gemm_fp32_reserve": lambda: self.gemm(torch.float32, "gemm_fp32_reserve",
                                                        fresh_gemm_shapes(2028)),
                 "conv": self.conv,
                 "conv_fresh": lambda: self.conv("conv_fresh", fresh_conv_layers()),
                 "rnn_fresh": lambda: self.rnn("rnn_fresh", fresh_rnn_configs()),
                 "gemm_fp32_reserve2": lambda: self.gemm(torch.float32, "gemm_fp32_reserve2",
                                                         fresh_gemm_shapes(2031)),
                 "rnn_reserve": lambda: self.rnn("rnn_reserve", fresh_rnn_configs(2032)),
                 "rnn_reserve3": lambda: self.rnn("rnn_reserve3", fresh_rnn_configs(2033)),
                 "rnn_persist": lambda: self.rnn("rnn_persist", persistent_rnn_configs()),
                 "rnn_tanh": lambda: self.rnn("rnn_tanh", rnn_configs(("RNN",))),
                 "gemm_linear": lambda: self.gemm(None, "gemm_linear",
                                                  fresh_gemm_shapes(2034)[::3], linear=True),
                 "gemm_fp32_reserve3": lambda: self.gemm(torch.float32, "gemm_fp32_reserve3",
                                                         fresh_gemm_shapes(2035)),
                 "gemm_bf16_fresh": lambda: self.gemm(torch.bfloat16, "gemm_bf16_fresh",
                                                      fresh_gemm_shapes(2036)),
                 "gemm_bf16_reserve": lambda: self.gemm(torch.bfloat16, "gemm_bf16_reserve",
                                                        fresh_gemm_shapes(2037)),
                 "rnn_persist_odd": lambda: self.rnn(
                     "rnn_persist_odd",
                     persistent_rnn_configs((40, 65, 80, 100, 127, 136, 172, 190), (1,))),
                 "rnn": self.rnn, "memory": self.memory, "launch": self.launch,
                 "copy": self.copy, "end_to_end": self.end_to_end}
        for name in self.selected:
            try:
                steps[name]()
            except Exception as e:  # keep what the other sections measure
                self.manifest.setdefault("errors", []).append(f"{name}: {e!r}")
                print(f"{name} failed: {e!r}", flush=True)
        if self.device.type == "cuda":
            self.manifest["nvidia_smi_after"] = nvidia_smi()
        self.manifest["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
        self.manifest["seconds"] = round(time.monotonic() - self.t0, 1)
        self.manifest["rows"] = {s: len(self.rows[s]) for s in self.selected}
        self.write()
        print(json.dumps(self.manifest["rows"]), flush=True)
        for line in self.manifest.get("errors", [])[:20]:
            print("error:", line[:300], flush=True)


# ---- helpers -----------------------------------------------------------------------------------


def has_distribution(metadata, name):
    try:
        metadata.version(name)
        return True
    except metadata.PackageNotFoundError:
        return False


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def nvidia_smi():
    fields = ("name,driver_version,pci.bus_id,clocks.sm,clocks.mem,clocks.max.sm,"
              "clocks.max.mem,power.draw,power.limit,temperature.gpu,pstate,memory.used")
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv"],
                             capture_output=True, text=True, timeout=20)
        lines = out.stdout.strip().splitlines()
        if len(lines) >= 2:
            return dict(zip([h.strip() for h in lines[0].split(",")],
                            [v.strip() for v in lines[1].split(",")]))
        return {"error": out.stderr.strip()}
    except Exception as e:
        return {"error": repr(e)}


def profiled_kernels(fn, device, passes):
    """The profiler's GPU kernel events over `passes` calls of fn: [(name, seconds)]."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof:
        for _ in range(passes):
            fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    kernels = []
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            kernels.append((e.name, e.time_range.elapsed_us() * 1e-6))
    if not kernels and device.type == "cuda":
        # Older profilers attach kernels to the CPU ops that launched them.
        for e in prof.events():
            for k in getattr(e, "kernels", []):
                kernels.append((k.name, k.duration * 1e-6))
    return kernels


def launch_configs(trace_events, labels):
    """{label: [[name, grid, block, registers per thread, shared memory bytes]]} from a
    profiler's Chrome trace (`traceEvents`): the kernels (cat "kernel") that start inside each
    labelled range (cat "user_annotation"), in start order. A kernel's grid is how many thread
    blocks it ran, which its name does not say (cuBLAS splits K inside some kernels)."""
    wanted = set(labels)
    ranges = {}
    kernels = []
    for e in trace_events:
        if not isinstance(e, dict):
            continue
        cat = e.get("cat")
        # Kineto marks the host's range "user_annotation" (its copy on the GPU's timeline
        # "gpu_user_annotation"); older profilers give no category.
        if cat in ("user_annotation", None) and e.get("name") in wanted:
            ranges[e["name"]] = (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0.0)))
        elif cat == "kernel":
            args = e.get("args", {})
            kernels.append((float(e["ts"]), [e.get("name", ""), args.get("grid"),
                                             args.get("block"),
                                             args.get("registers per thread"),
                                             args.get("shared memory")]))
    kernels.sort(key=lambda k: k[0])
    out = {}
    for label in labels:
        lo, hi = ranges.get(label, (0.0, -1.0))
        out[label] = [k for start, k in kernels if lo <= start <= hi]
    return out


def kernels_per_call(fns, device, launches=None):
    """[[(name, seconds)] for each fn]: every fn runs once inside one profiler session, each in
    a labelled range that ends after a synchronize, so the GPU kernels that start inside a
    call's range are that call's. With a list `launches`, it also gets each call's kernel
    launch configurations (launch_configs), or an error string where the trace has none."""
    from torch.profiler import ProfilerActivity, profile, record_function
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    labels = [f"hetsim_call_{i}" for i in range(len(fns))]
    label_set = set(labels)
    with profile(activities=activities) as prof:
        for label, fn in zip(labels, fns):
            with record_function(label):
                fn()
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
    ranges = {}
    kernels = []
    for e in prof.events():
        if e.name in label_set:  # the range itself, also shown on the GPU's timeline
            if not str(getattr(e, "device_type", "")).endswith("CUDA"):
                ranges[e.name] = (e.time_range.start, e.time_range.end)
        elif str(getattr(e, "device_type", "")).endswith("CUDA"):
            kernels.append((e.time_range.start, e.name, e.time_range.elapsed_us() * 1e-6))
    out = []
    for label in labels:
        lo, hi = ranges.get(label, (0, -1))
        out.append([(name, t) for start, name, t in sorted(kernels) if lo <= start <= hi])
    if launches is not None:
        try:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "trace.json")
                prof.export_chrome_trace(path)
                with open(path) as f:
                    trace = json.load(f)
            # {"traceEvents": [...]} from Kineto, a bare list from older profilers.
            events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
            by_label = launch_configs(events, labels)
            launches.extend(by_label[label] for label in labels)
        except Exception as e:  # the timings stand without them
            launches.extend(f"launch configurations failed: {e!r}" for _ in labels)
    return out


def kernel_names(fn, device):
    """The distinct kernels one call launches (the cuDNN algorithm the autotuner chose shows
    in them). Never fails the measurement."""
    try:
        return sorted({name for name, _ in profiled_kernels(fn, device, 1)})
    except Exception as e:
        return [f"profiler failed: {e!r}"]


def kernel_time(fn, device, passes=3):
    """The profiler's sum of kernel times per pass and kernels per pass."""
    try:
        kernels = profiled_kernels(fn, device, passes)
        return sum(t for _, t in kernels) / passes, len(kernels) / passes
    except Exception as e:
        return None, repr(e)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--dry-run", action="store_true",
                   help="measure nothing: write the graphs, the CSV layout and the manifest")
    p.add_argument("--device", default="cuda", help="torch device to measure (cuda, cpu)")
    p.add_argument("--device-name", default="h100",
                   help="the platform's device name written in the device column")
    p.add_argument("--budget-s", type=float, default=420.0,
                   help="seconds for all sections together (each gets a fixed share)")
    p.add_argument("--min-runs", type=int, default=20)
    p.add_argument("--max-runs", type=int, default=200)
    p.add_argument("--target-s", type=float, default=0.05,
                   help="timed runs continue past --min-runs while they fit in this")
    p.add_argument("--flush-mb", type=int, default=256, help="L2 flush buffer (0: none)")
    p.add_argument("--only", default="", help="comma-separated sections: " +
                   ",".join(SECTIONS) + " (default: all of them), or " + ",".join(EXTRA_SECTIONS))
    p.add_argument("--kernels", action="store_true",
                   help="GEMM rows also record the kernels one call runs, with their times")
    p.add_argument("--limit", type=int, default=0,
                   help="measure only the first N items of each section (a smoke test)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke test of the timing code: small budget, few runs")
    args = p.parse_args()
    if args.quick:
        args.min_runs, args.max_runs, args.target_s, args.flush_mb = 3, 3, 0.0, 1
    if args.only:
        unknown = set(args.only.split(",")) - set(SECTIONS + EXTRA_SECTIONS)
        if unknown:
            p.error(f"unknown sections {sorted(unknown)}; sections: "
                    f"{','.join(SECTIONS + EXTRA_SECTIONS)}")
    if args.min_runs < 1 or args.max_runs < args.min_runs or args.budget_s <= 0:
        p.error("need 1 <= --min-runs <= --max-runs and --budget-s > 0")
    if not args.dry_run and args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error("no CUDA device here: use --dry-run, or --device cpu for a smoke test")
    os.makedirs(args.out, exist_ok=True)
    Run(args).run()


if __name__ == "__main__":
    main()
