#include "sim/passes/split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "sim/op_table.hpp"

namespace hetsim::sim::passes {

namespace {

// How one input of the op is cut when its output is cut along an axis.
struct InputCut {
    int axis = -1;        // -1: the whole input goes to both parts
    bool window = false;  // a sliding-window spatial axis: each part reads the rows it needs
};

struct CutRule {
    std::vector<InputCut> inputs;
    std::string reason;  // non-empty: the op cannot be cut on this axis
};

const Shape& shape_of(const Graph& graph, int tensor) {
    return graph.tensor(tensor).shape;
}

int rank_of(const Shape& shape) {
    return static_cast<int>(shape.size());
}

int normalized(std::int64_t axis, int rank) {
    return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string string_attr(const Op& op, const std::string& key, const std::string& fallback) {
    const auto it = op.attrs.find(key);
    if (it == op.attrs.end())
        return fallback;
    if (const auto* s = std::get_if<std::string>(&it->second))
        return *s;
    return fallback;
}

// Broadcast alignment (trailing dimensions line up): the input's axis that carries output
// axis `axis`, or -1 when the input broadcasts along it (size 1 or missing).
int aligned_axis(const Shape& input, const Shape& output, int axis) {
    const int ia = axis - (rank_of(output) - rank_of(input));
    if (ia < 0 || input[static_cast<std::size_t>(ia)] != output[static_cast<std::size_t>(axis)])
        return -1;
    return ia;
}

CutRule refuse(std::string reason) {
    return CutRule{{}, std::move(reason)};
}

// The cut of every input when the output of `op` is cut along `axis` (EOP Table 2 ops and the
// rest of the op table where the cut is well defined).
CutRule cut_rule(const Graph& graph, const Op& op, int axis) {
    const Shape& out = shape_of(graph, op.outputs.at(0));
    const int rank = rank_of(out);
    CutRule rule;
    rule.inputs.resize(op.inputs.size());
    const auto input_shape = [&](std::size_t k) -> const Shape& {
        return shape_of(graph, op.inputs[k]);
    };
    for (int t : op.outputs) {
        if (shape_of(graph, t).size() != out.size())
            return refuse(fmt::format("its outputs differ in rank"));
    }
    switch (op_category(op.type)) {
        case OpCategory::elementwise:
            for (std::size_t k = 0; k < op.inputs.size(); ++k)
                rule.inputs[k].axis = aligned_axis(input_shape(k), out, axis);
            return rule;
        case OpCategory::normalization:
            if (op.type == "LayerNormalization") {
                const int first = normalized(op.attr_int("axis", -1), rank);
                if (axis >= first) {
                    return refuse(
                        fmt::format("axis {} is normalized over (a reduction axis)", axis));
                }
                rule.inputs[0].axis = axis;  // scale and bias span the normalized axes: shared
                return rule;
            }
            if (op.type == "InstanceNormalization" && axis >= 2)
                return refuse(fmt::format("axis {} is normalized over (a reduction axis)", axis));
            rule.inputs[0].axis = axis;
            // Per-channel parameters (scale, bias, mean, var) follow a channel cut.
            for (std::size_t k = 1; k < op.inputs.size(); ++k)
                rule.inputs[k].axis = axis == 1 ? 0 : -1;
            return rule;
        case OpCategory::reduction: {
            if (op.type == "Softmax" || op.type == "LogSoftmax") {
                if (axis == normalized(op.attr_int("axis", -1), rank))
                    return refuse(fmt::format("axis {} is its reduction axis", axis));
                rule.inputs[0].axis = axis;
                return rule;
            }
            if (op.type == "MaxPool" || op.type == "AveragePool") {
                if (string_attr(op, "auto_pad", "NOTSET") != "NOTSET")
                    return refuse("auto_pad windows are not cut (pads not explicit)");
                rule.inputs[0] = {axis, axis >= 2};
                return rule;
            }
            if (op.type == "GlobalAveragePool" || op.type == "GlobalMaxPool") {
                if (axis >= 2)
                    return refuse(fmt::format("axis {} is pooled over (a reduction axis)", axis));
                rule.inputs[0].axis = axis;
                return rule;
            }
            if (op.type.rfind("Reduce", 0) == 0 || op.type == "ArgMax" || op.type == "ArgMin") {
                if (op.inputs.size() > 1)
                    return refuse("its axes are a data input");
                const int in_rank = rank_of(input_shape(0));
                std::vector<int> reduced;
                if (op.type == "ArgMax" || op.type == "ArgMin") {
                    reduced.push_back(normalized(op.attr_int("axis", 0), in_rank));
                } else {
                    for (std::int64_t a : op.attr_ints("axes"))
                        reduced.push_back(normalized(a, in_rank));
                    if (reduced.empty()) {
                        for (int a = 0; a < in_rank; ++a)
                            reduced.push_back(a);
                    }
                }
                const bool keep = op.attr_int("keepdims", 1) != 0;
                int ia = -1;
                if (keep) {
                    ia = axis;
                } else {  // the axis-th axis the reduction keeps
                    for (int a = 0, kept = 0; a < in_rank; ++a) {
                        if (std::find(reduced.begin(), reduced.end(), a) != reduced.end())
                            continue;
                        if (kept++ == axis) {
                            ia = a;
                            break;
                        }
                    }
                }
                if (ia < 0 || std::find(reduced.begin(), reduced.end(), ia) != reduced.end())
                    return refuse(fmt::format("axis {} is its reduction axis", axis));
                rule.inputs[0].axis = ia;
                return rule;
            }
            return refuse(fmt::format("no split rule for {}", op.type));
        }
        case OpCategory::matmul: {
            if (op.type == "Gemm") {
                const bool ta = op.attr_int("transA", 0) != 0;
                const bool tb = op.attr_int("transB", 0) != 0;
                if (axis == 0)
                    rule.inputs[0].axis = ta ? 1 : 0;
                else
                    rule.inputs[1].axis = tb ? 0 : 1;
                if (op.inputs.size() > 2)
                    rule.inputs[2].axis = aligned_axis(input_shape(2), out, axis);
                return rule;
            }
            if (op.type != "MatMul")
                return refuse(fmt::format("no split rule for {}", op.type));
            const Shape& a = input_shape(0);
            const Shape& b = input_shape(1);
            if (a.size() < 2 || b.size() < 2)
                return refuse("a 1-D MatMul operand");
            if (axis == rank - 1) {  // N: the columns of B
                rule.inputs[1].axis = rank_of(b) - 1;
            } else if (axis == rank - 2) {  // M: the rows of A
                rule.inputs[0].axis = rank_of(a) - 2;
            } else {  // a batch axis of the product: each operand by broadcast alignment
                const auto batch_axis = [&](const Shape& s) {
                    const int ia = axis - (rank - rank_of(s));
                    return ia >= 0 && ia < rank_of(s) - 2 &&
                                   s[static_cast<std::size_t>(ia)] ==
                                       out[static_cast<std::size_t>(axis)]
                               ? ia
                               : -1;
                };
                rule.inputs[0].axis = batch_axis(a);
                rule.inputs[1].axis = batch_axis(b);
            }
            return rule;
        }
        case OpCategory::conv: {
            if (op.type != "Conv")
                return refuse(fmt::format("no split rule for {}", op.type));
            if (string_attr(op, "auto_pad", "NOTSET") != "NOTSET")
                return refuse("auto_pad windows are not cut (pads not explicit)");
            if (axis == 0) {
                rule.inputs[0].axis = 0;
            } else if (axis == 1) {
                if (op.attr_int("group", 1) != 1)
                    return refuse("the output channels of a grouped Conv");
                rule.inputs[1].axis = 0;
                if (op.inputs.size() > 2)
                    rule.inputs[2].axis = 0;
            } else {
                rule.inputs[0] = {axis, true};
            }
            return rule;
        }
        case OpCategory::data_movement: {
            if (op.type == "Transpose") {
                std::vector<std::int64_t> perm = op.attr_ints("perm");
                if (perm.empty()) {
                    for (int a = rank - 1; a >= 0; --a)
                        perm.push_back(a);
                }
                rule.inputs[0].axis = static_cast<int>(perm.at(static_cast<std::size_t>(axis)));
                return rule;
            }
            if (op.type == "Concat") {
                if (axis == normalized(op.attr_int("axis", 0), rank))
                    return refuse(fmt::format("axis {} is its concatenation axis", axis));
                for (auto& cut : rule.inputs)
                    cut.axis = axis;
                return rule;
            }
            if (op.type == "Split") {
                if (op.inputs.size() > 1)
                    return refuse("its sizes are a data input");
                if (axis == normalized(op.attr_int("axis", 0), rank))
                    return refuse(fmt::format("axis {} is its own split axis", axis));
                rule.inputs[0].axis = axis;
                return rule;
            }
            if (op.type == "Slice") {
                if (op.inputs.size() > 1)
                    return refuse("its bounds are data inputs");
                std::vector<std::int64_t> axes = op.attr_ints("axes");
                if (axes.empty()) {
                    for (std::size_t k = 0; k < op.attr_ints("starts").size(); ++k)
                        axes.push_back(static_cast<std::int64_t>(k));
                }
                for (std::int64_t a : axes) {
                    if (normalized(a, rank) == axis)
                        return refuse(fmt::format("axis {} is one it slices", axis));
                }
                rule.inputs[0].axis = axis;
                return rule;
            }
            return refuse(fmt::format("no split rule for {}", op.type));
        }
        case OpCategory::view:
            return refuse(fmt::format("{} is a view: it moves no data, nothing to split", op.type));
        case OpCategory::recurrent:
            return refuse(
                fmt::format("{} carries its state across the sequence; split the "
                            "unrolled cell's ops instead",
                            op.type));
        case OpCategory::fused:
            return refuse("a fused group; split before fusing");
        case OpCategory::unknown:
            break;
    }
    return refuse(fmt::format("no split rule for op type {}", op.type));
}

// Input rows [start, end) and the pads that a window op's output rows [lo, hi) on spatial axis
// `axis` need (ONNX Conv/pool: out = floor((in + pb + pe - eff_k) / s) + 1).
struct WindowRange {
    std::int64_t start = 0, end = 0, pad_begin = 0, pad_end = 0;
};

WindowRange window_range(const Graph& graph, const Op& op, int axis, std::int64_t lo,
                         std::int64_t hi) {
    const Shape& x = shape_of(graph, op.inputs[0]);
    const std::size_t i = static_cast<std::size_t>(axis - 2);
    std::vector<std::int64_t> kernel = op.attr_ints("kernel_shape");
    if (kernel.empty()) {  // Conv: from the weight
        const Shape& w = shape_of(graph, op.inputs[1]);
        kernel.assign(w.begin() + 2, w.end());
    }
    const auto at = [&](const std::string& key, std::size_t k, std::int64_t fallback) {
        const auto v = op.attr_ints(key);
        return k < v.size() ? v[k] : fallback;
    };
    const std::int64_t stride = at("strides", i, 1);
    const std::int64_t dilation = at("dilations", i, 1);
    const std::int64_t pad_begin = at("pads", i, 0);
    const std::int64_t eff_k = dilation * (kernel.at(i) - 1) + 1;
    const std::int64_t raw_start = lo * stride - pad_begin;
    const std::int64_t raw_end = (hi - 1) * stride - pad_begin + eff_k;
    WindowRange r;
    r.start = std::max<std::int64_t>(0, raw_start);
    r.end = std::min<std::int64_t>(x[static_cast<std::size_t>(axis)], raw_end);
    r.pad_begin = r.start - raw_start;
    r.pad_end = raw_end - r.end;
    return r;
}

Attributes with_window_pads(const Op& op, const Shape& x, int axis, const WindowRange& r) {
    Attributes attrs = op.attrs;
    const std::size_t sp = x.size() - 2;
    std::vector<std::int64_t> pads = op.attr_ints("pads");
    if (pads.empty())
        pads.assign(2 * sp, 0);
    const std::size_t i = static_cast<std::size_t>(axis - 2);
    pads[i] = r.pad_begin;
    pads[i + sp] = r.pad_end;
    attrs["pads"] = pads;
    return attrs;
}

double parse_share(const std::string& text) {
    std::size_t used = 0;
    double share = 0.0;
    try {
        share = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !(share > 0.0 && share < 1.0))
        throw GraphError(fmt::format("split: share must be a number in (0, 1), got '{}'", text));
    return share;
}

const std::string& required_arg(const Arguments& args, const std::string& key) {
    const auto it = args.find(key);
    if (it == args.end() || it->second.empty())
        throw GraphError(fmt::format("pass 'split' needs the argument '{}'", key));
    return it->second;
}

// Builds the parts of one op into `out`, which already holds every tensor of `graph` (same
// ids) and the ops before it: the input cuts, the two parts and the Concats.
class PartBuilder {
public:
    PartBuilder(const Graph& graph, Graph& out, const Op& op, int axis, const CutRule& rule)
        : graph_(graph), out_(out), op_(op), axis_(axis), rule_(rule) {}

    // The op's tensor `k` for output rows [lo, hi) of part `part`.
    int input_for(std::size_t k, int part, std::int64_t lo, std::int64_t hi,
                  const std::array<std::int64_t, 3>& bounds) {
        const int tensor = op_.inputs[k];
        const InputCut& cut = rule_.inputs[k];
        if (cut.axis < 0)
            return tensor;
        const Tensor& source = graph_.tensor(tensor);
        std::int64_t start = lo, end = hi;
        if (cut.window) {
            const WindowRange r = window_range(graph_, op_, axis_, lo, hi);
            start = r.start;
            end = r.end;
        }
        const std::int64_t whole = source.shape[static_cast<std::size_t>(cut.axis)];
        if (start == 0 && end == whole)
            return tensor;
        Shape shape = source.shape;
        shape[static_cast<std::size_t>(cut.axis)] = end - start;
        if (source.kind == TensorKind::weight) {
            // Constants are cut offline, once per (weight, axis, range), shared by every op
            // that cuts them the same way.
            const std::string name = fmt::format("{}#{}:{}-{}", source.name, cut.axis, start, end);
            if (auto id = out_.find_tensor(name))
                return *id;
            return out_.add_tensor(name, shape, source.dtype, TensorKind::weight);
        }
        const auto key = std::make_tuple(tensor, cut.axis, cut.window);
        if (!cut.window) {
            // One Split per input gives both parts (bounds = {0, n0, extent}).
            auto it = split_outputs_.find(key);
            if (it == split_outputs_.end()) {
                std::array<int, 2> parts{};
                for (int p = 0; p < 2; ++p) {
                    Shape ps = source.shape;
                    ps[static_cast<std::size_t>(cut.axis)] =
                        bounds[static_cast<std::size_t>(p + 1)] -
                        bounds[static_cast<std::size_t>(p)];
                    parts[static_cast<std::size_t>(p)] = out_.add_tensor(
                        fmt::format("{}#in{}#{}", op_.name, k, p), ps, source.dtype);
                }
                out_.add_op(
                    fmt::format("{}#split{}", op_.name, k), "Split", {tensor}, {parts[0], parts[1]},
                    {{"axis", std::int64_t{cut.axis}},
                     {"split",
                      std::vector<std::int64_t>{bounds[1] - bounds[0], bounds[2] - bounds[1]}},
                     {"split_of", op_.name}});
                it = split_outputs_.emplace(key, parts).first;
            }
            return it->second[static_cast<std::size_t>(part)];
        }
        const int sliced =
            out_.add_tensor(fmt::format("{}#in{}#{}", op_.name, k, part), shape, source.dtype);
        out_.add_op(fmt::format("{}#slice{}#{}", op_.name, k, part), "Slice", {tensor}, {sliced},
                    {{"starts", std::vector<std::int64_t>{start}},
                     {"ends", std::vector<std::int64_t>{end}},
                     {"axes", std::vector<std::int64_t>{cut.axis}},
                     {"split_of", op_.name}});
        return sliced;
    }

    // The part's attributes: the op's, window pads adjusted, and its provenance.
    Attributes part_attrs(int part, std::int64_t lo, std::int64_t hi) const {
        Attributes attrs = op_.attrs;
        const bool window = std::any_of(rule_.inputs.begin(), rule_.inputs.end(),
                                        [](const InputCut& c) { return c.window; });
        if (window) {
            attrs = with_window_pads(op_, shape_of(graph_, op_.inputs[0]), axis_,
                                     window_range(graph_, op_, axis_, lo, hi));
        }
        attrs["split_of"] = op_.name;
        attrs["split_part"] = std::int64_t{part};
        return attrs;
    }

private:
    const Graph& graph_;
    Graph& out_;
    const Op& op_;
    int axis_;
    const CutRule& rule_;
    std::map<std::tuple<int, int, bool>, std::array<int, 2>> split_outputs_;
};

}  // namespace

std::string_view to_string(SplitDim dim) {
    switch (dim) {
        case SplitDim::batch:
            return "batch";
        case SplitDim::hw:
            return "hw";
        case SplitDim::hw1w2:
            return "hw1w2";
    }
    return "batch";
}

std::optional<SplitDim> parse_split_dim(std::string_view text) {
    for (SplitDim d : kSplitDims) {
        if (to_string(d) == text)
            return d;
    }
    return std::nullopt;
}

SplitAxis split_axis(const Graph& graph, int op_id, SplitDim dim) {
    const Op& op = graph.op(op_id);
    SplitAxis result;
    if (op.outputs.empty()) {
        result.reason = "it has no output";
        return result;
    }
    const Shape& out = shape_of(graph, op.outputs[0]);
    const int rank = rank_of(out);
    switch (dim) {
        case SplitDim::batch:
            result.axis = rank >= 1 ? 0 : -1;
            break;
        case SplitDim::hw:
            result.axis = rank >= 4 ? 2 : (rank >= 2 ? 1 : -1);
            break;
        case SplitDim::hw1w2:
            result.axis = rank >= 2 ? rank - 1 : -1;
            break;
    }
    if (result.axis < 0) {
        result.reason =
            fmt::format("its output {} has no {} axis", sim::to_string(out), to_string(dim));
        return result;
    }
    result.extent = out[static_cast<std::size_t>(result.axis)];
    if (result.extent < 2) {
        result.reason = fmt::format("axis {} of its output {} has extent {}", result.axis,
                                    sim::to_string(out), result.extent);
        return result;
    }
    const CutRule rule = cut_rule(graph, op, result.axis);
    if (!rule.reason.empty())
        result.reason = rule.reason;
    return result;
}

std::int64_t first_part_extent(std::int64_t extent, double share) {
    return std::llround(share * static_cast<double>(extent));
}

Graph op_at_extent(const Graph& graph, int op_id, SplitDim dim, std::int64_t part_extent) {
    const Op& op = graph.op(op_id);
    const SplitAxis where = split_axis(graph, op_id, dim);
    if (!where.ok()) {
        throw GraphError(fmt::format("op '{}' ({}) cannot be split on {}: {}", op.name, op.type,
                                     to_string(dim), where.reason));
    }
    if (part_extent < 1 || part_extent > where.extent) {
        throw GraphError(
            fmt::format("op '{}': extent {} outside 1..{}", op.name, part_extent, where.extent));
    }
    const CutRule rule = cut_rule(graph, op, where.axis);
    Graph out(fmt::format("{}@{}={}", op.name, to_string(dim), part_extent));
    std::vector<int> inputs;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const Tensor& source = graph.tensor(op.inputs[k]);
        Shape shape = source.shape;
        const InputCut& cut = rule.inputs[k];
        if (cut.axis >= 0) {
            std::int64_t rows = part_extent;
            if (cut.window) {
                const WindowRange r = window_range(graph, op, where.axis, 0, part_extent);
                rows = r.end - r.start;
            }
            shape[static_cast<std::size_t>(cut.axis)] = rows;
        }
        const std::string name = fmt::format("in{}", k);
        if (auto id = out.find_tensor(name)) {
            inputs.push_back(*id);
            continue;
        }
        inputs.push_back(out.add_tensor(
            name, shape, source.dtype,
            source.kind == TensorKind::weight ? TensorKind::weight : TensorKind::input));
    }
    std::vector<int> outputs;
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
        const Tensor& source = graph.tensor(op.outputs[j]);
        Shape shape = source.shape;
        shape[static_cast<std::size_t>(where.axis)] = part_extent;
        outputs.push_back(out.add_tensor(fmt::format("out{}", j), shape, source.dtype));
    }
    Attributes attrs = op.attrs;
    if (std::any_of(rule.inputs.begin(), rule.inputs.end(),
                    [](const InputCut& c) { return c.window; })) {
        attrs = with_window_pads(op, shape_of(graph, op.inputs[0]), where.axis,
                                 window_range(graph, op, where.axis, 0, part_extent));
    }
    out.add_op(op.name, op.type, inputs, outputs, attrs);
    for (int t : outputs)
        out.mark_output(t);
    out.finalize();
    return out;
}

namespace {

// One op to split, checked against the graph.
struct SplitRequest {
    int op = -1;
    SplitAxis where;
    std::int64_t n0 = 0;
};

SplitRequest check_request(const Graph& graph, const std::string& name, const std::string& dim_text,
                           const std::string& share_text) {
    const std::optional<SplitDim> dim = parse_split_dim(dim_text);
    if (!dim) {
        throw GraphError(fmt::format("split: dim must be batch, hw or hw1w2, got '{}'", dim_text));
    }
    const double share = parse_share(share_text);
    const std::optional<int> id = graph.find_op(name);
    if (!id)
        throw GraphError(fmt::format("split: graph '{}' has no op '{}'", graph.name(), name));
    const Op& op = graph.op(*id);
    SplitRequest request;
    request.op = *id;
    request.where = split_axis(graph, *id, *dim);
    if (!request.where.ok()) {
        throw GraphError(fmt::format("split: op '{}' ({}) cannot be split on {}: {}", name, op.type,
                                     dim_text, request.where.reason));
    }
    request.n0 = first_part_extent(request.where.extent, share);
    if (request.n0 <= 0 || request.n0 >= request.where.extent) {
        throw GraphError(
            fmt::format("split: share {} of op '{}''s extent {} on {} rounds to an empty part",
                        share, name, request.where.extent, dim_text));
    }
    return request;
}

// "name:dim:share;name:dim:share" (the `ops=` form).
std::vector<SplitRequest> parse_requests(const Graph& graph, const std::string& list) {
    std::vector<SplitRequest> requests;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ';')) {
        if (item.empty())
            continue;
        // The op name may hold ':' itself; dim and share are the last two fields.
        const auto second = item.rfind(':');
        const auto first = second == std::string::npos ? second : item.rfind(':', second - 1);
        if (first == std::string::npos || second == std::string::npos || first == 0) {
            throw GraphError(fmt::format("split: ops entry '{}' is not <op>:<dim>:<share>", item));
        }
        requests.push_back(check_request(graph, item.substr(0, first),
                                         item.substr(first + 1, second - first - 1),
                                         item.substr(second + 1)));
    }
    if (requests.empty())
        throw GraphError("split: ops lists no op");
    return requests;
}

}  // namespace

PassResult split_op(const Graph& graph, const Arguments& args) {
    // One op (op=, dim=, share=) or several at once (ops=<op>:<dim>:<share>;...): a placer that
    // splits hundreds of ops rebuilds the graph once, not once per op.
    std::vector<SplitRequest> requests;
    if (const auto it = args.find("ops"); it != args.end()) {
        if (args.count("op") || args.count("dim") || args.count("share"))
            throw GraphError("split: give either ops= or op=, dim= and share=, not both");
        requests = parse_requests(graph, it->second);
    } else {
        requests.push_back(check_request(graph, required_arg(args, "op"), required_arg(args, "dim"),
                                         required_arg(args, "share")));
    }
    std::map<int, const SplitRequest*> by_op;
    for (const SplitRequest& r : requests) {
        if (!by_op.emplace(r.op, &r).second) {
            throw GraphError(fmt::format("split: op '{}' is listed twice", graph.op(r.op).name));
        }
    }

    PassResult result{Graph(graph.name()), {}};
    Graph& out = result.graph;
    for (const Tensor& t : graph.tensors())
        out.add_tensor(t.name, t.shape, t.dtype, t.kind);
    for (int o = 0; o < graph.op_count(); ++o) {
        const Op& op = graph.op(o);
        const auto request = by_op.find(o);
        if (request == by_op.end()) {
            out.add_op(op.name, op.type, op.inputs, op.outputs, op.attrs);
            result.origin.push_back({o});
            continue;
        }
        const SplitAxis& where = request->second->where;
        const CutRule rule = cut_rule(graph, op, where.axis);
        const std::array<std::int64_t, 3> bounds{0, request->second->n0, where.extent};
        PartBuilder builder(graph, out, op, where.axis, rule);
        // The parts, each reading its cut of every input and writing its rows of every output.
        std::vector<std::array<int, 2>> part_outputs(op.outputs.size());
        for (int part = 0; part < 2; ++part) {
            const std::int64_t lo = bounds[static_cast<std::size_t>(part)];
            const std::int64_t hi = bounds[static_cast<std::size_t>(part + 1)];
            std::vector<int> inputs;
            for (std::size_t k = 0; k < op.inputs.size(); ++k) {
                const std::size_t before = static_cast<std::size_t>(out.op_count());
                inputs.push_back(builder.input_for(k, part, lo, hi, bounds));
                for (std::size_t added = before; added < static_cast<std::size_t>(out.op_count());
                     ++added)
                    result.origin.push_back({});
            }
            std::vector<int> outputs;
            for (std::size_t j = 0; j < op.outputs.size(); ++j) {
                const Tensor& whole = graph.tensor(op.outputs[j]);
                Shape shape = whole.shape;
                shape[static_cast<std::size_t>(where.axis)] = hi - lo;
                const int t =
                    out.add_tensor(fmt::format("{}#{}", whole.name, part), shape, whole.dtype);
                part_outputs[j][static_cast<std::size_t>(part)] = t;
                outputs.push_back(t);
            }
            out.add_op(fmt::format("{}#{}", op.name, part), op.type, inputs, outputs,
                       builder.part_attrs(part, lo, hi));
            result.origin.push_back({o});
        }
        for (std::size_t j = 0; j < op.outputs.size(); ++j) {
            out.add_op(fmt::format("{}#concat{}", op.name, j), "Concat",
                       {part_outputs[j][0], part_outputs[j][1]}, {op.outputs[j]},
                       {{"axis", std::int64_t{where.axis}}, {"split_of", op.name}});
            result.origin.push_back({});
        }
    }
    for (const Tensor& t : graph.tensors()) {
        if (t.is_graph_output)
            out.mark_output(*out.find_tensor(t.name));
    }
    out.finalize();
    return result;
}

}  // namespace hetsim::sim::passes
