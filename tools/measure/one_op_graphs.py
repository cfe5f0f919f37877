"""One-op graphs in hetsim's JSON graph format, shared by the fit-set scripts.

The operands are weights, resident in each device's memory: a paper's operator time excludes
loading them (lee2022 Fig. 8; xu2022 §5.1).
"""
import json
import os


def binary_op_graph(name, op, a, b, out):
    """A graph of one `op` reading weights a and b and writing the activation c."""
    return {
        "name": name,
        "tensors": [
            {"name": "a", "shape": a, "dtype": "float32", "kind": "weight"},
            {"name": "b", "shape": b, "dtype": "float32", "kind": "weight"},
            {"name": "c", "shape": out, "dtype": "float32", "kind": "activation"},
        ],
        "ops": [{"name": "op", "type": op, "inputs": ["a", "b"], "outputs": ["c"], "attrs": {}}],
        "outputs": ["c"],
    }


def write_graph(directory, graph):
    """Writes `graph` as <directory>/<its name>.json."""
    with open(os.path.join(directory, graph["name"] + ".json"), "w") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")
