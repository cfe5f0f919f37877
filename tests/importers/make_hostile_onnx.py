#!/usr/bin/python3
"""Writes hostile ONNX models into DIR, with DIR/manifest.json saying what hetsim must answer.

  /usr/bin/python3 tests/importers/make_hostile_onnx.py DIR

Each model carries one attribute or constant operand that ONNX 1.12's shape inference divides
by, allocates from, loops on or indexes with unchecked (a stride of 0 was a SIGFPE, a Slice step
of 2^32 a hang, a weight of another rank a segfault), or that hetsim cannot hold. The manifest
lists, per file, the `dims` to bind and either the `error` text the import must fail with (the
node, the attribute or operand, and what is accepted) or, for models that must still import, an
`output` tensor and its `shape`. Generated at test time (no binaries in the repository); exits
77 without the onnx module.
"""
import json
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as error:
    print(f"make_hostile_onnx: {error}")
    sys.exit(77)

MAX_WINDOW = 2**31 - 1
CASES = []


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def ints(name, values, shape=None):
    array = np.array(values, dtype=np.int64)
    if shape is not None:
        array = array.reshape(shape)
    return numpy_helper.from_array(array, name)


def floats(name, values, shape=None):
    array = np.array(values, dtype=np.float32)
    if shape is not None:
        array = array.reshape(shape)
    return numpy_helper.from_array(array, name)


def case(name, nodes, inputs, initializers=(), outputs=("y",), opset=13, dims=None, error=None,
         shape=None):
    """One model: `inputs` are (name, shape) pairs of float inputs; outputs get no shape (ONNX
    infers them). The checker runs on every model: each is a valid ONNX file whose values only
    are wrong, as a hostile file would be."""
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        list(initializers))
    for output in graph.output:
        output.type.tensor_type.shape.SetInParent()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    entry = {"file": name + ".onnx", "dims": dims or {}}
    if error is not None:
        entry["error"] = error
    else:
        entry["output"] = outputs[0]
        entry["shape"] = shape
    CASES.append((model, entry))


X = [("x", [1, 1, 8, 8])]
W = weight("w", [2, 1, 3, 3])
node = helper.make_node
within = f"expected integers from 1 to {MAX_WINDOW}"

# --- windows: strides, dilations, kernel_shape, pads, group, auto_pad, weight rank ---
case("conv_strides_zero", [node("Conv", ["x", "w"], ["y"], name="conv0", strides=[0, 0])],
     [("x", ["batch", 1, 8, 8])], [W], dims={"batch": 1},
     error=f"node 'conv0' (Conv): attribute 'strides' [0,0]: {within}")
case("unnamed_conv_strides_zero", [node("Conv", ["x", "w"], ["y"], strides=[0, 0])], X, [W],
     error=f"the Conv node writing 'y': attribute 'strides' [0,0]: {within}")
case("maxpool_strides_zero",
     [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[0, 1])], X,
     error=f"node 'pool' (MaxPool): attribute 'strides' [0,1]: {within}")
case("averagepool_ceil_strides_zero",
     [node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], strides=[0, 0],
           ceil_mode=1)], X,
     error=f"node 'pool' (AveragePool): attribute 'strides' [0,0]: {within}")
case("convtranspose_strides_zero",
     [node("ConvTranspose", ["x", "wt"], ["y"], name="up", strides=[0, 0])], X,
     [weight("wt", [1, 2, 3, 3])],
     error=f"node 'up' (ConvTranspose): attribute 'strides' [0,0]: {within}")
case("conv_dilations_zero", [node("Conv", ["x", "w"], ["y"], name="c", dilations=[0, 1])], X, [W],
     error=f"node 'c' (Conv): attribute 'dilations' [0,1]: {within}")
case("maxpool_kernel_zero", [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[0, 3])], X,
     error=f"node 'pool' (MaxPool): attribute 'kernel_shape' [0,3]: {within}")
case("conv_pads_negative", [node("Conv", ["x", "w"], ["y"], name="c", pads=[-5, 0, 0, 0])], X,
     [W], error=f"node 'c' (Conv): attribute 'pads' [-5,0,0,0]: expected integers from 0 to "
     f"{MAX_WINDOW}")
case("conv_strides_huge", [node("Conv", ["x", "w"], ["y"], name="c", strides=[2**40, 1])], X, [W],
     error=f"node 'c' (Conv): attribute 'strides' [1099511627776,1]: {within}")
case("maxpool_ceil_mode_two",
     [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], ceil_mode=2)], X,
     error="node 'pool' (MaxPool): attribute 'ceil_mode' 2: expected an integer from 0 to 1")
case("conv_auto_pad_unknown", [node("Conv", ["x", "w"], ["y"], name="c", auto_pad="SAME")], X,
     [W], error="node 'c' (Conv): attribute 'auto_pad' \"SAME\": expected NOTSET, SAME_UPPER, "
     "SAME_LOWER or VALID")
case("conv_group_zero", [node("Conv", ["x", "w"], ["y"], name="c", group=0)], X, [W],
     error=f"node 'c' (Conv): attribute 'group' 0: expected an integer from 1 to {MAX_WINDOW}")
case("conv_group_not_dividing", [node("Conv", ["x", "w"], ["y"], name="c", group=3)],
     [("x", [1, 3, 8, 8])], [W],
     error="node 'c' (Conv): attribute 'group' 3: expected a divisor of the 2 output channels of "
     "weight 'w' of shape [2,1,3,3]")
case("conv_group_channels_differ", [node("Conv", ["x", "w4"], ["y"], name="c", group=2)],
     [("x", [1, 4, 8, 8])], [weight("w4", [4, 1, 3, 3])],
     error="node 'c' (Conv): attribute 'group' 2 with weight 'w4' of shape [4,1,3,3]: expected "
     "group x 1 input channels, input 'x' of shape [1,4,8,8] has 4")
case("conv_weight_rank", [node("Conv", ["x", "w5"], ["y"], name="c")], X,
     [weight("w5", [2, 1, 3, 3, 3])],
     error="node 'c' (Conv): input 'x' of shape [1,1,8,8] and weight 'w5' of shape [2,1,3,3,3]: "
     "expected a weight of the input's rank")
case("convtranspose_weight_rank", [node("ConvTranspose", ["x", "w1"], ["y"], name="up")], X,
     [weight("w1", [2])],
     error="node 'up' (ConvTranspose): weight 'w1' of shape [2]: expected [C, M/group, k1, ...], "
     "rank 3 or more")
# The weight is computed, so its rank is known only after inference: the Conv is held back
# from inference until then, then refused.
case("conv_computed_weight_rank",
     [node("Mul", ["w5", "one"], ["wc"], name="scale"), node("Conv", ["x", "wc"], ["y"], name="c")],
     X, [weight("w5", [2, 1, 3, 3, 3]), floats("one", [1.0], [])],
     error="node 'c' (Conv): input 'x' of shape [1,1,8,8] and weight 'wc' of shape [2,1,3,3,3]: "
     "expected a weight of the input's rank")
case("depthtospace_blocksize_huge",
     [node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2**32)], X,
     error=f"node 'd2s' (DepthToSpace): attribute 'blocksize' 4294967296: expected an integer "
     f"from 1 to {MAX_WINDOW}")
case("spacetodepth_blocksize_zero",
     [node("SpaceToDepth", ["x"], ["y"], name="s2d", blocksize=0)], X,
     error="node 's2d' (SpaceToDepth): attribute 'blocksize' 0: expected an integer from 1")

# --- shapes given as values: Reshape, Expand, Tile, ConstantOfShape, Resize ---
limit = "at most 2^50 elements in all (hetsim's limit)"
case("reshape_huge", [node("Reshape", ["x", "shape"], ["y"], name="r")], X,
     [ints("shape", [2**62, 4])],
     error=f"node 'r' (Reshape): shape 'shape' [4611686018427387904,4]: expected dimensions >= 1, "
     f"0 (the input's dimension) or one -1 (inferred), {limit}")
case("reshape_two_inferred", [node("Reshape", ["x", "shape"], ["y"], name="r")], X,
     [ints("shape", [-1, -1])],
     error="node 'r' (Reshape): shape 'shape' [-1,-1]: expected dimensions >= 1, 0 (the input's "
     "dimension) or one -1 (inferred)")
case("expand_huge", [node("Expand", ["x", "shape"], ["y"], name="e")], X,
     [ints("shape", [2**40, 2**40, 8, 8])],
     error=f"node 'e' (Expand): shape 'shape' [1099511627776,1099511627776,8,8]: expected "
     f"dimensions >= 0, {limit}")
case("tile_negative", [node("Tile", ["x", "repeats"], ["y"], name="t")], X,
     [ints("repeats", [1, 1, -3, 1])],
     error="node 't' (Tile): repeats 'repeats' [1,1,-3,1]: expected repeats >= 0")
case("tile_huge", [node("Tile", ["x", "repeats"], ["y"], name="t")], X,
     [ints("repeats", [2**40, 2**40, 1, 1])],
     error=f"node 't' (Tile): repeats 'repeats' [1099511627776,1099511627776,1,1]: expected "
     f"repeats >= 0, {limit}")
case("constantofshape_huge",
     [node("ConstantOfShape", ["dims"], ["z"], name="zeros"), node("Add", ["x", "z"], ["y"])], X,
     [ints("dims", [2**32, 2**32, 4])],
     error=f"node 'zeros' (ConstantOfShape): shape 'dims' [4294967296,4294967296,4]: expected "
     f"dimensions >= 0, {limit}")
case("constantofshape_negative",
     [node("ConstantOfShape", ["dims"], ["z"], name="zeros"), node("Add", ["x", "z"], ["y"])], X,
     [ints("dims", [-4])],
     error="node 'zeros' (ConstantOfShape): shape 'dims' [-4]: expected dimensions >= 0")
case("resize_scale_zero",
     [node("Resize", ["x", "", "scales"], ["y"], name="up")], X,
     [floats("scales", [1, 1, 0, 1])],
     error="node 'up' (Resize): scales 'scales' [1,1,0,1]: expected scales above 0")

# --- Split, Gather, Slice, Range, Transpose, Einsum ---
case("split_negative", [node("Split", ["x", "sizes"], ["y", "y2"], name="s", axis=2)], X,
     [ints("sizes", [10, -2])], outputs=("y", "y2"),
     error="node 's' (Split): split 'sizes' [10,-2]: expected sizes >= 0")
case("split_count", [node("Split", ["x", "sizes"], ["y", "y2"], name="s", axis=2)], X,
     [ints("sizes", [8])], outputs=("y", "y2"),
     error="node 's' (Split): split 'sizes' [8]: expected 2 sizes, one per output")
case("split_attribute_negative",
     [node("Split", ["x"], ["y", "y2"], name="s", axis=2, split=[10, -2])], X, opset=11,
     outputs=("y", "y2"), error="node 's' (Split): attribute 'split' [10,-2]: expected sizes >= 0")
case("splittosequence_zero",
     [node("SplitToSequence", ["x", "chunk"], ["seq"], name="s", axis=2),
      node("ConcatFromSequence", ["seq"], ["y"], axis=2)], X, [ints("chunk", 0, [])],
     error="node 's' (SplitToSequence): split 'chunk' [0]: expected a chunk size >= 1")
case("gather_index_out_of_range",
     [node("Gather", ["table", "index"], ["g"], name="g"), node("Add", ["x", "g"], ["y"])], X,
     [weight("table", [3]), ints("index", [7])],
     error="node 'g' (Gather): indices 'index' hold 7: expected indices from -3 to 2 into axis 0 "
     "of data 'table' of shape [3]")
case("gather_axis_out_of_range",
     [node("Gather", ["table", "index"], ["g"], name="g", axis=5), node("Add", ["x", "g"], ["y"])],
     X, [weight("table", [3]), ints("index", [0])],
     error="node 'g' (Gather): attribute 'axis' 5: expected an axis of data 'table' of shape [3], "
     "from -1 to 0")
slice_steps = f"expected non-zero steps from {-MAX_WINDOW} to {MAX_WINDOW}"
case("slice_step_huge",
     [node("Shape", ["x"], ["s"], name="shape"),
      node("Slice", ["s", "starts", "ends", "axes", "steps"], ["part"], name="sl"),
      node("Reshape", ["x", "part"], ["y"], name="r")], X,
     [ints("starts", [0]), ints("ends", [4]), ints("axes", [0]), ints("steps", [2**32])],
     error=f"node 'sl' (Slice): steps 'steps' [4294967296]: {slice_steps}")
case("slice_step_zero_from_constant",
     [node("Constant", [], ["steps"], name="steps_node", value=ints("v", [0])),
      node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"], name="sl")], X,
     [ints("starts", [0]), ints("ends", [4]), ints("axes", [2])],
     error=f"node 'sl' (Slice): steps 'steps' [0]: {slice_steps}")
case("range_not_scalar",
     [node("Range", ["start", "limit", "delta"], ["r"], name="range"),
      node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT), node("Add", ["x", "rf"], ["y"])], X,
     [ints("start", [], [0]), ints("limit", 5, []), ints("delta", 1, [])],
     error="node 'range' (Range): start 'start' of shape [0]: expected a scalar")
case("range_delta_zero",
     [node("Range", ["start", "limit", "delta"], ["r"], name="range"),
      node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT), node("Add", ["x", "rf"], ["y"])], X,
     [ints("start", 0, []), ints("limit", 5, []), ints("delta", 0, [])],
     error="node 'range' (Range): start 0, limit 5, delta 0: expected a non-zero finite delta")
case("range_huge",
     [node("Range", ["start", "limit", "delta"], ["r"], name="range"), node("Add", ["x", "r"],
                                                                          ["y"])], X,
     [floats("start", 0, []), floats("limit", 1, []), floats("delta", 1e-30, [])],
     error="node 'range' (Range): start 0, limit 1, delta 1e-30: expected a non-zero finite delta "
     "and at most 2^50 elements")
case("transpose_not_a_permutation",
     [node("Transpose", ["x"], ["y"], name="t", perm=[0, 0, 1, 2])], X,
     error="node 't' (Transpose): attribute 'perm' [0,0,1,2]: expected a permutation of 0 to 3")
case("einsum_uppercase_implicit", [node("Einsum", ["x"], ["y"], name="e", equation="ABCD")], X,
     error="node 'e' (Einsum): attribute 'equation' \"ABCD\": expected letters")
case("einsum_stray_characters", [node("Einsum", ["x"], ["y"], name="e", equation="ab#d")], X,
     error="node 'e' (Einsum): attribute 'equation' \"ab#d\": expected letters")
# An Unsqueeze of a constant at an axis past the output: hetsim's constant folding used to
# insert there (a heap corruption); now ONNX's inference and hetsim both decline it.
case("unsqueeze_axis_out_of_range",
     [node("Unsqueeze", ["table", "axes"], ["u"], name="u"), node("Add", ["x", "u"], ["y"])], X,
     [weight("table", [3]), ints("axes", [9])],
     error="cannot infer the shape of 'u', output 0 of node 'u' (Unsqueeze)")

# --- models that must still import, with ONNX's own shapes ---
# SAME padding with stride 2 over an input of 4e11: ONNX counts the input down one stride at a
# time (minutes); hetsim gives inference a 1-wide window with the same ceil(input / stride).
case("maxpool_same_huge_input",
     [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[3, 1], strides=[2, 1],
           auto_pad="SAME_UPPER")], [("x", [1, 1, 400000000001, 1])],
     shape=[1, 1, 200000000001, 1])
case("conv_same_lower_stride", [node("Conv", ["x", "w"], ["y"], name="c", strides=[2, 3],
                                      auto_pad="SAME_LOWER", dilations=[2, 1])],
     [("x", [1, 1, 7, 8])], [W], shape=[1, 2, 4, 3])
case("conv_computed_weight",
     [node("Mul", ["w", "one"], ["wc"], name="scale"), node("Conv", ["x", "wc"], ["y"], name="c")],
     X, [W, floats("one", [1.0], [])], shape=[1, 2, 6, 6])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    manifest = []
    for model, entry in CASES:
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(directory, entry["file"]))
        manifest.append(entry)
    with open(os.path.join(directory, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=1)


if __name__ == "__main__":
    main()
