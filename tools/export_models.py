#!/usr/bin/python3
"""Export PyTorch models to ONNX for hetsim (issue 12), with random weights and no downloads.

    /usr/bin/python3 tools/export_models.py NAME --out FILE.onnx [--set key=value ...]
        [--reference REF.json] [--static] [--external-data] [--opset 13]
    /usr/bin/python3 tools/export_models.py --list

Models: every torchvision classification model of the installed version, `bert`, `lstm`,
`gru`, `rnn` (the knobs and structure of hetsim's generators of the same names), and DUET's
`wide_and_deep`, `siamese_lstm` and `mt_dnn` (zhang2021 Table I, Figs. 2-3).

--reference writes an independent count of the compute ops, made from the PyTorch modules'
shapes while they run (forward hooks on Conv/Linear/LSTM/GRU/RNN modules and a torch-function
mode catching matmuls outside them), not from the ONNX graph. FLOPs follow hetsim's
convention (sim/op_semantics.cpp): a multiply-add is 2.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

# Element-wise operations per cell and step besides the two matmuls (hetsim's unrolled
# sim/workloads/recurrent.cpp, which the fused LSTM/GRU rows of sim/op_semantics.cpp count
# the same way): LSTM = 3 gate adds of G*H (two biases, xW + hR) + 3 Sigmoid + 2 Tanh +
# 3 Mul + 1 Add on H = 12H + 9H = 21H; GRU = 2 bias adds of G*H + 11 ops on H
# (2 Add + 2 Sigmoid, Mul + Add + Tanh for n, Sub + 2 Mul + Add for h') = 6H + 11H = 17H;
# RNN (tanh) = 2 bias adds + xW + hR + Tanh = 4H.
RECURRENT_ELEMENTWISE_PER_H = {"LSTM": 21, "GRU": 17, "RNN": 4}
RECURRENT_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def recurrent_cell_flops(kind, batch, input_size, hidden, bias=True):
    """FLOPs of one cell (one step, one direction): 2*B*G*H*(I+H) for x W^T and h R^T, plus
    the element-wise gate work; without biases the 2*G*H bias adds per row drop out."""
    g = RECURRENT_GATES[kind]
    elementwise = RECURRENT_ELEMENTWISE_PER_H[kind] * hidden
    if not bias:
        elementwise -= 2 * g * hidden
    return 2.0 * batch * g * hidden * (input_size + hidden) + batch * elementwise


# ---- hetsim's generators, in PyTorch -----------------------------------------------------


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def forward(self, h, mask):
        b, s, hidden = h.shape

        def split(x):
            return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

        q = split(self.query(h))
        k = self.key(h).view(b, s, self.heads, self.head_dim).permute(0, 2, 3, 1)
        v = split(self.value(h))
        # The two explicit attention matmuls (MatMul, 2*M*N*K per batch and head).
        scores = torch.matmul(q, k) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + mask, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3)
        return context.reshape(b, s, hidden)


class BertLayer(nn.Module):
    """One BertLayer as hetsim's transformer.cpp encoder_layer: 6 Linear + 2 attention
    MatMuls, exact (erf) GELU, post-LayerNorm with eps 1e-12."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = BertSelfAttention(hidden, heads)
        self.attention_dense = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, h, mask):
        a = self.attention_norm(self.attention_dense(self.attention(h, mask)) + h)
        y = self.output(F.gelu(self.intermediate(a)))
        return self.output_norm(y + a)


class BertEncoder(nn.Module):
    """Embeddings (word + token type + position, LayerNorm) and the encoder layers."""

    def __init__(self, layers, hidden, heads, ffn, vocab, max_positions):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_embeddings = nn.Embedding(max_positions, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, input_ids, attention_mask, token_type_ids):
        seq = input_ids.shape[1]
        positions = torch.arange(seq, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        h = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        h = self.embedding_norm(h + self.position_embeddings(positions))
        # get_extended_attention_mask: (1 - mask[:, None, None, :]) * -10000
        mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            h = layer(h, mask)
        return h


class Bert(nn.Module):
    """hetsim's `bert`: encoder, pooler (Gemm + Tanh on the [CLS] token), classifier (Gemm)."""

    def __init__(self, layers, hidden, heads, ffn, vocab, max_positions, classes):
        super().__init__()
        self.encoder = BertEncoder(layers, hidden, heads, ffn, vocab, max_positions)
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.encoder(input_ids, attention_mask, token_type_ids)
        return self.classifier(torch.tanh(self.pooler(h[:, 0])))


class Recurrent(nn.Module):
    """hetsim's `lstm` / `gru` / `rnn`: a stack on x [seq, batch, input], zero initial states."""

    def __init__(self, cell, layers, hidden, input_size):
        super().__init__()
        self.rnn = cell(input_size, hidden, num_layers=layers)

    def forward(self, x):
        return self.rnn(x)[0]


# ---- DUET's models (zhang2021 Table I) ------------------------------------------------------


class WideAndDeep(nn.Module):
    """Wide-and-Deep as DUET Fig. 2 / Table I, after pytorch-widedeep (DUET ref. [7]):
    four components whose 1-wide outputs are summed (pytorch-widedeep's WideDeep sums the
    components' predictions; the loss applies the sigmoid, so no activation at the end).
    - wide: Linear(363 -> 1) on the wide input (1, 363) (pytorch-widedeep's Wide is a
      linear model over the wide features).
    - deep (FFN): input (1, 13), "embedding 192": Linear(13 -> 192) + ReLU (our choice: the
      table gives no embedding table sizes, so the 13 features are embedded by one dense
      layer), then hidden [128, 64] with ReLU, and Linear(64 -> 1).
    - CNN: ResNet-18 on (1, 3, 224, 224) without its fc, Linear(512 -> 1) on the features.
    - RNN: token ids (1, 80) -> Embedding(vocab, embed) -> 2-layer LSTM(hidden 64) -> last
      step of the top layer -> Linear(64 -> 1). Table I gives only "input (1, 80)"; we read 80
      as the sequence length and choose embed = 32 and vocab = 1000.
    """

    def __init__(self, wide, deep_in, deep_embed, deep_h1, deep_h2, image, resnet_depth,
                 rnn_seq, rnn_embed, rnn_vocab, rnn_layers, rnn_hidden, deep_layers=2):
        super().__init__()
        import torchvision.models as tvm

        self.wide = nn.Linear(wide, 1)
        # deep_layers hidden layers: the first deep_h1 wide, the rest deep_h2 (Fig. 16).
        layers = [nn.Linear(deep_in, deep_embed), nn.ReLU()]
        width = deep_embed
        for i in range(deep_layers):
            out = deep_h1 if i == 0 else deep_h2
            layers += [nn.Linear(width, out), nn.ReLU()]
            width = out
        self.deep = nn.Sequential(*layers)
        self.deep_head = nn.Linear(width, 1)
        resnet = getattr(tvm, f"resnet{resnet_depth}")(weights=None)
        self.image_features = resnet.fc.in_features
        resnet.fc = nn.Identity()
        self.cnn = resnet
        self.cnn_head = nn.Linear(self.image_features, 1)
        self.embedding = nn.Embedding(rnn_vocab, rnn_embed)
        self.rnn = nn.LSTM(rnn_embed, rnn_hidden, num_layers=rnn_layers)
        self.rnn_head = nn.Linear(rnn_hidden, 1)

    def forward(self, wide, deep, image, text):
        w = self.wide(wide)
        d = self.deep_head(self.deep(deep))
        c = self.cnn_head(self.cnn(image))
        y = self.rnn(self.embedding(text).transpose(0, 1))[0]
        r = self.rnn_head(y[-1])
        return w + d + c + r


class SiameseLstm(nn.Module):
    """Siamese network as DUET Table I: two independent branches (DUET places them
    concurrently; each has its own weights, our choice), each a 2-layer LSTM (hidden 128) over
    64 steps of 64 features ("input (1, 64)": batch 1, 64 features per step). The merge is
    dhwajraj/deep-siamese-text-similarity's (DUET ref. [1]) normalised Euclidean distance of
    the branches' last outputs: |a - b| / (|a| + |b|)."""

    def __init__(self, layers, hidden, input_size):
        super().__init__()
        self.left = nn.LSTM(input_size, hidden, num_layers=layers)
        self.right = nn.LSTM(input_size, hidden, num_layers=layers)

    def forward(self, x1, x2):
        a = self.left(x1)[0][-1]
        b = self.right(x2)[0][-1]
        distance = torch.sqrt(torch.sum((a - b) * (a - b), dim=1, keepdim=True))
        norms = (torch.sqrt(torch.sum(a * a, dim=1, keepdim=True)) +
                 torch.sqrt(torch.sum(b * b, dim=1, keepdim=True)))
        return distance / norms


# DUET Table I: "Num_tags (10 CRF): 29,3,3,7,9,11,9,25,7,13".
MT_DNN_TAGS = [29, 3, 3, 7, 9, 11, 9, 25, 7, 13]


class MtDnn(nn.Module):
    """MT-DNN as DUET Fig. 3 / Tables I-II: a shared BERT-base encoder (Table II names the
    shared subgraph "bert-base"; lexicon encoder + 12 transformer layers, hidden 768) and
    `tasks` independent task heads. Each head is Table I's stacked LSTM (input = the 768-wide
    embedding, 2 layers, hidden 256, over the 32-token sequence) and a per-token Linear to the
    task's CRF tag scores (Num_tags). The CRF's Viterbi decoding is a data-dependent loop that
    neither the ONNX export nor hetsim models: the emission scores are the outputs."""

    def __init__(self, layers, hidden, heads, ffn, vocab, max_positions, lstm_layers,
                 lstm_hidden, tasks):
        super().__init__()
        self.encoder = BertEncoder(layers, hidden, heads, ffn, vocab, max_positions)
        self.task_rnns = nn.ModuleList(
            nn.LSTM(hidden, lstm_hidden, num_layers=lstm_layers) for _ in range(tasks))
        self.task_heads = nn.ModuleList(nn.Linear(lstm_hidden, MT_DNN_TAGS[t]) for t in range(tasks))

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.encoder(input_ids, attention_mask, token_type_ids).transpose(0, 1)
        return tuple(head(rnn(h)[0]) for rnn, head in zip(self.task_rnns, self.task_heads))


# ---- the catalogue ----------------------------------------------------------------------------

# Knob defaults mirror sim/workloads/model_zoo.cpp.
TRANSFORMER_KNOBS = dict(layers=4, hidden=512, heads=8, ffn=2048, seq_len=16, batch=1,
                         vocab=30522, max_positions=512)
RECURRENT_KNOBS = dict(layers=1, hidden=256, input=256, seq_len=16, batch=1)
WIDE_AND_DEEP_KNOBS = dict(batch=1, wide=363, deep_input=13, deep_embed=192, deep_hidden1=128,
                           deep_hidden2=64, deep_layers=2, image=224, resnet=18, rnn_seq_len=80, rnn_embed=32,
                           rnn_vocab=1000, rnn_layers=2, rnn_hidden=64)
SIAMESE_KNOBS = dict(layers=2, hidden=128, input=64, seq_len=64, batch=1)
MT_DNN_KNOBS = dict(layers=12, hidden=768, heads=12, ffn=3072, seq_len=32, batch=1, vocab=30522,
                    max_positions=512, lstm_layers=2, lstm_hidden=256, tasks=10)


def int_inputs(k, seq):
    b = k["batch"]
    return (torch.randint(0, k["vocab"], (b, seq)), torch.ones(b, seq, dtype=torch.long),
            torch.zeros(b, seq, dtype=torch.long))


def make_bert(k):
    if k["hidden"] % k["heads"]:
        raise ValueError(f"hidden ({k['hidden']}) must be divisible by heads ({k['heads']})")
    m = Bert(k["layers"], k["hidden"], k["heads"], k["ffn"], k["vocab"], k["max_positions"],
             k["classes"])
    tokens = ["input_ids", "attention_mask", "token_type_ids"]
    return (m, int_inputs(k, k["seq_len"]), tokens, ["logits"],
            {n: {0: "batch", 1: "seq"} for n in tokens}, {"batch": k["batch"], "seq": k["seq_len"]})


def make_recurrent(cell):
    def make(k):
        m = Recurrent(cell, k["layers"], k["hidden"], k["input"])
        x = torch.randn(k["seq_len"], k["batch"], k["input"])
        return (m, (x,), ["x"], ["y"], {"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"}},
                {"batch": k["batch"], "seq": k["seq_len"]})
    return make


def make_wide_and_deep(k):
    m = WideAndDeep(k["wide"], k["deep_input"], k["deep_embed"], k["deep_hidden1"],
                    k["deep_hidden2"], k["image"], k["resnet"], k["rnn_seq_len"], k["rnn_embed"],
                    k["rnn_vocab"], k["rnn_layers"], k["rnn_hidden"], k["deep_layers"])
    b = k["batch"]
    inputs = (torch.randn(b, k["wide"]), torch.randn(b, k["deep_input"]),
              torch.randn(b, 3, k["image"], k["image"]),
              torch.randint(0, k["rnn_vocab"], (b, k["rnn_seq_len"])))
    names = ["wide", "deep", "image", "text"]
    axes = {n: {0: "batch"} for n in names}
    axes["text"] = {0: "batch", 1: "seq"}
    axes["score"] = {0: "batch"}
    return m, inputs, names, ["score"], axes, {"batch": b, "seq": k["rnn_seq_len"]}


def make_siamese(k):
    m = SiameseLstm(k["layers"], k["hidden"], k["input"])
    x = torch.randn(k["seq_len"], k["batch"], k["input"])
    axes = {"x1": {0: "seq", 1: "batch"}, "x2": {0: "seq", 1: "batch"}, "distance": {0: "batch"}}
    return (m, (x, x.clone()), ["x1", "x2"], ["distance"], axes,
            {"batch": k["batch"], "seq": k["seq_len"]})


def make_mt_dnn(k):
    if k["hidden"] % k["heads"]:
        raise ValueError(f"hidden ({k['hidden']}) must be divisible by heads ({k['heads']})")
    if not 1 <= k["tasks"] <= len(MT_DNN_TAGS):
        raise ValueError(f"tasks must be in [1, {len(MT_DNN_TAGS)}], got {k['tasks']}")
    m = MtDnn(k["layers"], k["hidden"], k["heads"], k["ffn"], k["vocab"], k["max_positions"],
              k["lstm_layers"], k["lstm_hidden"], k["tasks"])
    tokens = ["input_ids", "attention_mask", "token_type_ids"]
    outputs = [f"task{t}" for t in range(k["tasks"])]
    axes = {n: {0: "batch", 1: "seq"} for n in tokens}
    axes.update({n: {0: "seq", 1: "batch"} for n in outputs})
    return (m, int_inputs(k, k["seq_len"]), tokens, outputs, axes,
            {"batch": k["batch"], "seq": k["seq_len"]})


def torchvision_names():
    import torchvision.models as tvm
    if hasattr(tvm, "list_models"):  # torchvision >= 0.14
        return tvm.list_models(module=tvm)
    prefixes = ("resnet", "resnext", "wide_resnet", "vgg", "alexnet", "squeezenet", "densenet",
                "inception_v3", "googlenet", "mobilenet_v", "mnasnet", "shufflenet",
                "efficientnet", "regnet", "convnext", "vit_", "swin", "maxvit")
    return sorted(n for n in dir(tvm) if n.startswith(prefixes) and callable(getattr(tvm, n)))


# Models whose export fails with torch 1.13, and why. Every other classifier of torchvision
# 0.14 exports at opset 13 and its reference kinds match the ONNX compute nodes (checked for
# all but convnext_base, regnet_y_128gf and vit_h_14, which only ran past a 5-minute limit
# on a loaded 2-core machine; the last two hold over 2 GB of weights, untested).
_NO_ATEN_ZERO = ("torch 1.13's exporter has no ONNX symbolic for aten::zero, which "
                 "SwinTransformerV2's attention uses (UnsupportedOperatorError at opset 13)")
TORCHVISION_SKIP = {name: _NO_ATEN_ZERO for name in ("swin_v2_t", "swin_v2_s", "swin_v2_b")}

# Fixed input sizes: these architectures assert a specific image size.
TORCHVISION_FIXED_IMAGE = {"vit_b_16": 224, "vit_b_32": 224, "vit_l_16": 224, "vit_l_32": 224,
                           "vit_h_14": 224, "inception_v3": 299, "maxvit_t": 224}


def make_torchvision(name):
    def make(k):
        import torchvision.models as tvm
        extra = {"aux_logits": False, "init_weights": False} if name in (
            "inception_v3", "googlenet") else {}
        m = getattr(tvm, name)(weights=None, **extra)
        b = k["batch"]
        x = torch.randn(b, 3, k["image"], k["image"])
        return (m, (x,), ["image"], ["logits"], {"image": {0: "batch"}, "logits": {0: "batch"}},
                {"batch": b, "image": k["image"]})
    return make


def catalogue():
    models = {
        "bert": (dict(TRANSFORMER_KNOBS, classes=2), make_bert,
                 "BERT encoder + pooler + classifier, hetsim's `bert` (lee2022 BERT-small)"),
        "lstm": (dict(RECURRENT_KNOBS), make_recurrent(nn.LSTM),
                 "stacked nn.LSTM on x [seq, batch, input], hetsim's `lstm`"),
        "gru": (dict(RECURRENT_KNOBS), make_recurrent(nn.GRU),
                "stacked nn.GRU on x [seq, batch, input], hetsim's `gru`"),
        "rnn": (dict(RECURRENT_KNOBS), make_recurrent(nn.RNN),
                "stacked nn.RNN (tanh) on x [seq, batch, input], hetsim's `rnn`"),
        "wide_and_deep": (dict(WIDE_AND_DEEP_KNOBS), make_wide_and_deep,
                          "DUET Wide-and-Deep: wide linear, FFN, ResNet-18, 2-layer LSTM"),
        "siamese_lstm": (dict(SIAMESE_KNOBS), make_siamese,
                         "DUET Siamese network: two 2-layer LSTM branches, distance merge"),
        "mt_dnn": (dict(MT_DNN_KNOBS), make_mt_dnn,
                   "DUET MT-DNN: shared BERT-base encoder, 10 LSTM + tag-score task heads"),
    }
    for name in torchvision_names():
        image = TORCHVISION_FIXED_IMAGE.get(name, 224)
        models[name] = (dict(batch=1, image=image), make_torchvision(name),
                        f"torchvision {name} classifier, random weights")
    return models


# ---- the independent reference count -----------------------------------------------------


class MatmulCounter(TorchFunctionMode):
    """Counts matmuls called outside the hooked modules (attention in BERT, ViT, Swin,
    MaxViT)."""

    def __init__(self, record):
        super().__init__()
        self.record = record
        self.depth = 0  # > 0 while a hooked module runs (its own hook counts it)
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.depth == 0 and func is F.multi_head_attention_forward:
            self.record_attention(args, kwargs)
        elif self.depth == 0 and isinstance(out, torch.Tensor):
            if func in (torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__, torch.bmm,
                        torch.Tensor.bmm):
                a = args[0]
                self.record("MatMul", "matmul", 2.0 * out.numel() * a.shape[-1])
            elif func is F.linear:
                x, w = args[0], args[1]
                bias = args[2] if len(args) > 2 else kwargs.get("bias")
                self.record(*linear_entry(x, w.shape[0], w.shape[1], bias is not None, out))
        return out


    def record_attention(self, args, kwargs):
        """nn.MultiheadAttention (ViT): a mode does not see the calls inside the function it
        intercepts, so its matmuls are counted here as torch 1.13's multi_head_attention_forward
        makes them: the packed in-projection linear on [L, B, E] (MatMul), bmm(q, k^T) and
        bmm(weights, v) per batch and head (MatMul), the out-projection linear on the
        [L*B, E] view (Gemm, with bias)."""
        query, key, value, _, heads = args[:5]
        seq_q, batch, embed = query.shape
        seq_k = key.shape[0]
        head_dim = embed // heads
        if query is key and key is value:
            self.record("MatMul", "in_proj", 2.0 * seq_q * batch * embed * 3 * embed)
        else:
            for name, x in (("q_proj", query), ("k_proj", key), ("v_proj", value)):
                self.record("MatMul", name, 2.0 * x.shape[0] * batch * embed * embed)
        for name in ("scores", "context"):
            self.record("MatMul", name, 2.0 * batch * heads * seq_q * seq_k * head_dim)
        rows = seq_q * batch
        self.record("Gemm", "out_proj", 2.0 * rows * embed * embed + rows * embed)


def linear_entry(x, out_features, in_features, has_bias, out):
    # nn.Linear: a 2-D input with bias exports as Gemm (2*M*N*K + M*N for the bias C);
    # otherwise MatMul (2*M*N*K) and a separate Add.
    if x.dim() == 2 and has_bias:
        return "Gemm", "linear", 2.0 * out.numel() * in_features + out.numel()
    return "MatMul", "linear", 2.0 * out.numel() * in_features


def reference_count(model, inputs):
    ops = []
    counter = None

    def record(kind, module, flops):
        ops.append({"kind": kind, "module": module, "flops": float(flops)})

    def pre(mod, inp):
        counter.depth += 1

    def hook_for(name):
        def hook(mod, inp, out):
            counter.depth -= 1
            x = inp[0]
            if isinstance(mod, nn.modules.conv._ConvNd):
                # 2*N*Cout*spatial*(Cin/groups)*prod(kernel); bias not counted.
                record("Conv", name, 2.0 * out.numel() * mod.weight[0].numel())
            elif isinstance(mod, nn.Linear):
                kind, _, flops = linear_entry(x, mod.out_features, mod.in_features,
                                              mod.bias is not None, out)
                record(kind, name, flops)
            elif isinstance(mod, (nn.LSTM, nn.GRU, nn.RNN)):
                kind = ("LSTM" if isinstance(mod, nn.LSTM)
                        else "GRU" if isinstance(mod, nn.GRU) else "RNN")
                seq, batch = (x.shape[1], x.shape[0]) if mod.batch_first else x.shape[:2]
                dirs = 2 if mod.bidirectional else 1
                for layer in range(mod.num_layers):  # the exporter emits one op per layer
                    size = mod.input_size if layer == 0 else mod.hidden_size * dirs
                    cell = recurrent_cell_flops(kind, batch, size, mod.hidden_size, mod.bias)
                    record(kind, f"{name}.l{layer}", seq * dirs * cell)
        return hook

    handles = []
    for name, mod in model.named_modules():
        if isinstance(mod, (nn.modules.conv._ConvNd, nn.Linear, nn.LSTM, nn.GRU, nn.RNN)):
            handles.append(mod.register_forward_pre_hook(pre))
            handles.append(mod.register_forward_hook(hook_for(name)))
    counter = MatmulCounter(record)
    try:
        with counter:  # with autograd on, as exported (see export())
            model(*inputs)
    finally:
        for h in handles:
            h.remove()
    return ops


# ---- main ---------------------------------------------------------------------------------


def parse_sets(pairs, defaults, name):
    knobs = dict(defaults)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in defaults:
            raise ValueError(f"--set {pair}: model '{name}' knobs are "
                             f"{', '.join(sorted(defaults))} (expected key=value)")
        try:
            knobs[key] = int(value)
        except ValueError:
            raise ValueError(f"--set {pair}: expected an integer value") from None
        if knobs[key] < 1:
            raise ValueError(f"--set {pair}: must be > 0")
    return knobs


def export(name, knobs, out, reference, static, external, opset):
    import onnx

    defaults, make, _ = catalogue()[name]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    torch.manual_seed(0)
    model, inputs, input_names, output_names, axes, dims = make(knobs)
    model.eval()
    start = time.perf_counter()
    # Not under torch.no_grad(): without autograd, nn.MultiheadAttention (ViT) takes its fused
    # fast path, aten::_native_multi_head_attention, which has no ONNX export.
    torch.onnx.export(model, inputs, out, input_names=input_names, output_names=output_names,
                      opset_version=opset, do_constant_folding=True,
                      dynamic_axes=None if static else axes)
    if external:
        proto = onnx.load(out)
        location = out.rsplit("/", 1)[-1] + ".data"
        onnx.save_model(proto, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location)
    seconds = time.perf_counter() - start
    graph = onnx.load(out, load_external_data=False).graph
    summary = {"model": name, "onnx_nodes": len(graph.node), "opset": opset,
               "export_s": round(seconds, 3)}
    if reference:
        ops = reference_count(model, inputs)
        doc = {"model": name, "onnx_nodes": len(graph.node), "opset": opset,
               "knobs": knobs, "dims": dims,
               # The dims the file leaves symbolic: what hetsim's workload `dims:` must bind.
               "symbolic_dims": [] if static else sorted(
                   {axis for spec in axes.values() for axis in spec.values()}),
               "compute_ops": ops,
               "compute_flops": sum(o["flops"] for o in ops),
               "param_bytes": sum(p.numel() * 4 for p in model.parameters())}
        with open(reference, "w") as f:
            json.dump(doc, f, indent=1)
        summary["compute_flops"] = doc["compute_flops"]
    print(json.dumps(summary))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", nargs="?")
    parser.add_argument("--out")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--reference")
    parser.add_argument("--static", action="store_true")
    parser.add_argument("--external-data", action="store_true")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    # The exporter's TracerWarnings and shape-inference notes are noise for this tool.
    warnings.simplefilter("ignore")
    models = catalogue()
    if args.list:
        for name, (defaults, _, description) in models.items():
            knobs = " ".join(f"{k}={v}" for k, v in defaults.items())
            skip = TORCHVISION_SKIP.get(name)
            line = f"{name}\t{description} [{knobs}]"
            print(line + (f" SKIPPED: {skip}" if skip else ""))
        return 0
    try:
        if not args.name or not args.out:
            raise ValueError("expected NAME and --out FILE.onnx (or --list)")
        if args.name not in models:
            raise ValueError(f"unknown model '{args.name}'; --list prints the "
                             f"{len(models)} exportable names")
        if args.name in TORCHVISION_SKIP:
            raise ValueError(f"model '{args.name}' cannot be exported: "
                             f"{TORCHVISION_SKIP[args.name]}")
        knobs = parse_sets(args.set, models[args.name][0], args.name)
        if args.name in TORCHVISION_FIXED_IMAGE and knobs["image"] != TORCHVISION_FIXED_IMAGE[
                args.name]:
            raise ValueError(f"model '{args.name}' needs image={TORCHVISION_FIXED_IMAGE[args.name]}")
    except ValueError as e:
        print(f"export_models.py: {e}", file=sys.stderr)
        return 2
    export(args.name, knobs, args.out, args.reference, args.static, args.external_data,
           args.opset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
