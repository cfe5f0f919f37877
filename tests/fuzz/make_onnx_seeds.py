#!/usr/bin/python3
"""Writes small ONNX models into DIR: the seed corpus of the `onnx` fuzz harness.

  /usr/bin/python3 tests/fuzz/make_onnx_seeds.py DIR

Generated at test time (no binaries in the repository) with onnx.helper: a Gemm MLP with a
symbolic batch, a conv block, an attention-like MatMul/Softmax/Transpose/Reshape chain, an LSTM,
and a model whose weight lives in external data beside it. Exits 77 (ctest: skipped) without the
onnx module.
"""
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as error:
    print(f"make_onnx_seeds: {error}; the onnx harness runs without ONNX seeds")
    sys.exit(77)


def weight(name, *shape):
    rng = np.random.default_rng(len(name))
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def save(model, directory, name):
    model.opset_import[0].version = 13
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(directory, name))


def mlp():
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [weight("w1", 32, 16), weight("b1", 32), weight("w2", 4, 32), weight("b2", 4)])
    return helper.make_model(graph)


def conv_block():
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"]),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"]),
             helper.make_node("Flatten", ["g"], ["y"])]
    graph = helper.make_graph(
        nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [weight("w", 8, 3, 3, 3), weight("b", 8), weight("s", 8), weight("o", 8), weight("m", 8),
         numpy_helper.from_array(np.ones(8, np.float32), "v")])
    return helper.make_model(graph)


def attention():
    shape = numpy_helper.from_array(np.array([1, 8, 2, 8], np.int64), "shape")
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]),
             helper.make_node("Reshape", ["q", "shape"], ["qh"]),
             helper.make_node("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
             helper.make_node("Transpose", ["qh"], ["kt"], perm=[0, 2, 3, 1]),
             helper.make_node("MatMul", ["qt", "kt"], ["scores"]),
             helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
             helper.make_node("MatMul", ["probs", "qt"], ["ctx"]),
             helper.make_node("ReduceMean", ["ctx"], ["y"], axes=[-1], keepdims=0)]
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seq", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8])],
        [weight("wq", 16, 16), shape])
    return helper.make_model(graph)


def lstm():
    hidden = 8
    nodes = [helper.make_node("LSTM", ["x", "w", "r", "b"], ["y", "h"], hidden_size=hidden)]
    graph = helper.make_graph(
        nodes, "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 1, 1, 8]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 1, 8])],
        [weight("w", 1, 4 * hidden, 4), weight("r", 1, 4 * hidden, hidden),
         weight("b", 1, 8 * hidden)])
    return helper.make_model(graph)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    save(mlp(), directory, "mlp.onnx")
    save(conv_block(), directory, "conv.onnx")
    save(attention(), directory, "attention.onnx")
    save(lstm(), directory, "lstm.onnx")
    external = mlp()
    external.opset_import[0].version = 13
    onnx.save(external, os.path.join(directory, "external.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="external.bin", size_threshold=0)
    print(f"make_onnx_seeds: 5 models in {directory}")


if __name__ == "__main__":
    main()
