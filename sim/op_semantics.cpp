// Shape inference and FLOP formulas for the ONNX operators hetsim's workloads and importers use;
// sim/op_table.cpp says which formula each op type uses.
// The semantics follow the ONNX operator specification (broadcasting as in numpy); where an
// operator exists in an attribute form (opset < 10) and an input form, the attribute form is
// what we infer from: the model zoo writes static values as attributes, and for an imported
// input-form op without them we return std::nullopt and trust the declared shapes.
#include "sim/op_semantics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

namespace hetsim::sim {

namespace {

std::string op_label(const Op& op) {
    return fmt::format("op '{}' ({})", op.name, op.type);
}

std::string shapes_text(const Shapes& shapes) {
    std::vector<std::string> parts;
    parts.reserve(shapes.size());
    for (const auto& s : shapes)
        parts.push_back(to_string(s));
    return fmt::format("{}", fmt::join(parts, " and "));
}

[[noreturn]] void fail(const Op& op, const std::string& what) {
    throw GraphError(fmt::format("{}: {}", op_label(op), what));
}

void expect_inputs(const Op& op, const Shapes& in, std::size_t min_count, std::size_t max_count) {
    if (in.size() < min_count || in.size() > max_count) {
        if (min_count == max_count) {
            fail(op, fmt::format("expects {} inputs, has {}", min_count, in.size()));
        }
        fail(op, fmt::format("expects {} to {} inputs, has {}", min_count, max_count, in.size()));
    }
}

// Normalizes a possibly negative axis against `rank`; throws when out of range.
std::int64_t normalize_axis(const Op& op, std::int64_t axis, std::int64_t rank,
                            const Shape& shape) {
    if (axis < -rank || axis >= rank) {
        fail(op, fmt::format("axis {} is out of range for input shape {}", axis, to_string(shape)));
    }
    return axis < 0 ? axis + rank : axis;
}

std::int64_t rank_of(const Shape& s) {
    return static_cast<std::int64_t>(s.size());
}

std::size_t idx(std::int64_t i) {
    return static_cast<std::size_t>(i);
}

// An Einsum equation ("bij,bjk->bik", spaces allowed) resolved against its operand shapes:
// the size of every index letter and the output's letters. std::nullopt for the ellipsis form
// ("...ij"), whose broadcast dimensions hetsim does not resolve (the declared shape is trusted).
struct EinsumIndices {
    std::map<char, std::int64_t> size;
    std::string output;
};

std::optional<EinsumIndices> resolve_einsum(const Op& op, const Shapes& in) {
    std::string equation;
    if (auto it = op.attrs.find("equation");
        it != op.attrs.end() && std::holds_alternative<std::string>(it->second))
        equation = std::get<std::string>(it->second);
    equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
    if (equation.empty())
        fail(op, "Einsum needs its 'equation' attribute");
    if (equation.find("...") != std::string::npos)
        return std::nullopt;
    const auto arrow = equation.find("->");
    const std::string lhs = equation.substr(0, arrow);
    std::vector<std::string> terms;
    for (std::size_t start = 0;;) {
        const auto comma = lhs.find(',', start);
        terms.push_back(lhs.substr(start, comma - start));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    if (terms.size() != in.size()) {
        fail(op, fmt::format("equation '{}' has {} operands, the op {}", equation, terms.size(),
                             in.size()));
    }
    EinsumIndices r;
    std::map<char, int> uses;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (terms[t].size() != in[t].size()) {
            fail(op, fmt::format("equation term '{}' has rank {}, operand {} is {}", terms[t],
                                 terms[t].size(), t, to_string(in[t])));
        }
        for (std::size_t k = 0; k < terms[t].size(); ++k) {
            const char c = terms[t][k];
            ++uses[c];
            auto [it, fresh] = r.size.emplace(c, in[t][k]);
            if (!fresh && it->second != in[t][k]) {
                // Size-1 dimensions broadcast (ONNX Einsum follows numpy).
                if (it->second == 1)
                    it->second = in[t][k];
                else if (in[t][k] != 1)
                    fail(op, fmt::format("index '{}' is {} in one operand and {} in another", c,
                                         it->second, in[t][k]));
            }
        }
    }
    if (arrow != std::string::npos) {
        r.output = equation.substr(arrow + 2);
    } else {
        // Implicit output: the letters used once, in alphabetical order.
        for (const auto& [c, n] : uses) {
            if (n == 1)
                r.output += c;
        }
    }
    for (char c : r.output) {
        if (r.size.count(c) == 0)
            fail(op, fmt::format("output index '{}' is in no operand of '{}'", c, equation));
    }
    return r;
}
}  // namespace

// --- matrix products ------------------------------------------------------------------------

std::optional<Shapes> infer_matmul_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 2, 2);
    Shape a = in[0];
    Shape b = in[1];
    if (a.empty() || b.empty()) {
        fail(op, fmt::format("MatMul operands must have rank >= 1, got {}", shapes_text(in)));
    }
    // numpy.matmul: a 1-D left operand is a row vector, a 1-D right operand a column vector;
    // the added dimension is removed from the result.
    const bool a_vec = a.size() == 1;
    const bool b_vec = b.size() == 1;
    if (a_vec)
        a.insert(a.begin(), 1);
    if (b_vec)
        b.push_back(1);
    const std::int64_t k_a = a.back();
    const std::int64_t k_b = b[b.size() - 2];
    if (k_a != k_b) {
        fail(op, fmt::format("MatMul inner dimensions differ ({} vs {}): {}", k_a, k_b,
                             shapes_text(in)));
    }
    Shape batch_a(a.begin(), a.end() - 2);
    Shape batch_b(b.begin(), b.end() - 2);
    Shape out = broadcast_shapes(
        batch_a, batch_b,
        fmt::format("{}: MatMul batch dimensions of {}", op_label(op), shapes_text(in)));
    if (!a_vec)
        out.push_back(a[a.size() - 2]);
    if (!b_vec)
        out.push_back(b.back());
    return Shapes{out};
}

std::optional<Shapes> infer_einsum_shapes(const Op& op, const Shapes& in) {
    // ONNX 1.12's own inference gives Einsum's rank only; the sizes follow from the equation.
    const auto indices = resolve_einsum(op, in);
    if (!indices)
        return std::nullopt;
    Shape out;
    for (char c : indices->output)
        out.push_back(indices->size.at(c));
    return Shapes{out};
}

std::optional<Shapes> infer_gemm_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 2, 3);
    const Shape& a = in[0];
    const Shape& b = in[1];
    if (a.size() != 2 || b.size() != 2) {
        fail(op, fmt::format("Gemm operands A and B must be 2-D, got {}", shapes_text({a, b})));
    }
    const bool trans_a = op.attr_int("transA", 0) != 0;
    const bool trans_b = op.attr_int("transB", 0) != 0;
    const std::int64_t m = trans_a ? a[1] : a[0];
    const std::int64_t k_a = trans_a ? a[0] : a[1];
    const std::int64_t k_b = trans_b ? b[1] : b[0];
    const std::int64_t n = trans_b ? b[0] : b[1];
    if (k_a != k_b) {
        fail(op, fmt::format("Gemm inner dimensions differ ({} vs {}, transA={}, transB={}): {}",
                             k_a, k_b, trans_a ? 1 : 0, trans_b ? 1 : 0, shapes_text({a, b})));
    }
    Shape out{m, n};
    if (in.size() == 3) {
        // C is unidirectionally broadcast to (M, N).
        const Shape c = in[2];
        const Shape bc = broadcast_shapes(out, c,
                                          fmt::format("{}: Gemm bias {} does not broadcast to {}",
                                                      op_label(op), to_string(c), to_string(out)));
        if (bc != out) {
            fail(op, fmt::format("Gemm bias {} does not broadcast to {}", to_string(c),
                                 to_string(out)));
        }
    }
    return Shapes{out};
}

// --- reductions and normalisations ----------------------------------------------------------

std::optional<Shapes> infer_reduce_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 2);
    if (in.size() == 2 && op.attrs.count("axes") == 0)
        return std::nullopt;  // opset-18 form
    const Shape& x = in[0];
    const std::int64_t r = rank_of(x);
    const bool keepdims = op.attr_int("keepdims", 1) != 0;
    std::vector<std::int64_t> axes = op.attr_ints("axes");
    std::vector<bool> reduced(idx(r), false);
    if (axes.empty()) {
        if (op.attr_int("noop_with_empty_axes", 0) != 0)
            return Shapes{x};
        std::fill(reduced.begin(), reduced.end(), true);  // reduce over all axes
    }
    for (auto a : axes) {
        auto n = normalize_axis(op, a, r, x);
        if (reduced[idx(n)])
            fail(op, fmt::format("axis {} is listed twice in axes", a));
        reduced[idx(n)] = true;
    }
    Shape out;
    for (std::int64_t i = 0; i < r; ++i) {
        if (!reduced[idx(i)]) {
            out.push_back(x[idx(i)]);
        } else if (keepdims) {
            out.push_back(1);
        }
    }
    return Shapes{out};
}

std::optional<Shapes> infer_argminmax_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const Shape& x = in[0];
    auto axis = normalize_axis(op, op.attr_int("axis", 0), rank_of(x), x);
    Shape out = x;
    if (op.attr_int("keepdims", 1) != 0) {
        out[idx(axis)] = 1;
    } else {
        out.erase(out.begin() + axis);
    }
    return Shapes{out};
}

std::optional<Shapes> infer_layernorm_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 3);
    const Shape& x = in[0];
    auto axis = normalize_axis(op, op.attr_int("axis", -1), rank_of(x), x);
    Shape normalized(x.begin() + axis, x.end());
    for (std::size_t i = 1; i < in.size(); ++i) {
        // Scale and bias broadcast to the normalized dimensions.
        Shape bc = broadcast_shapes(normalized, in[i],
                                    fmt::format("{}: LayerNormalization parameter of {}",
                                                op_label(op), shapes_text({x, in[i]})));
        if (bc != normalized) {
            fail(op, fmt::format("LayerNormalization parameter {} does not match normalized "
                                 "dimensions of {}",
                                 to_string(in[i]), to_string(x)));
        }
    }
    Shape stat(x.begin(), x.begin() + axis);
    stat.resize(x.size(), 1);  // Mean and InvStdDev keep the reduced axes as 1
    return Shapes{x, stat, stat};
}

std::optional<Shapes> infer_batchnorm_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 5, 5);
    const Shape& x = in[0];
    if (x.size() < 2) {
        fail(op, fmt::format("BatchNormalization input must be N x C x ..., got {}", to_string(x)));
    }
    const Shape channel{x[1]};
    for (std::size_t i = 1; i < 5; ++i) {
        if (in[i] != channel) {
            fail(op, fmt::format("BatchNormalization parameter {} must be {} for input {}",
                                 to_string(in[i]), to_string(channel), to_string(x)));
        }
    }
    return Shapes{x, channel, channel};
}

// --- data movement --------------------------------------------------------------------------

std::optional<Shapes> infer_transpose_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const Shape& x = in[0];
    std::vector<std::int64_t> perm = op.attr_ints("perm");
    if (perm.empty()) {
        for (auto i = rank_of(x) - 1; i >= 0; --i)
            perm.push_back(i);  // default: reverse
    }
    if (perm.size() != x.size()) {
        fail(op, fmt::format("perm [{}] does not match rank of input {}", fmt::join(perm, ","),
                             to_string(x)));
    }
    std::vector<bool> used(x.size(), false);
    Shape out;
    for (auto p : perm) {
        auto n = normalize_axis(op, p, rank_of(x), x);
        if (used[idx(n)]) {
            fail(op, fmt::format("perm [{}] is not a permutation", fmt::join(perm, ",")));
        }
        used[idx(n)] = true;
        out.push_back(x[idx(n)]);
    }
    return Shapes{out};
}

std::optional<Shapes> infer_reshape_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 2);
    if (op.attrs.count("shape") == 0)
        return std::nullopt;  // target only in a data input
    const Shape& x = in[0];
    const std::vector<std::int64_t> target = op.attr_ints("shape");
    const bool allow_zero = op.attr_int("allowzero", 0) != 0;
    Shape out;
    int infer_at = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
        std::int64_t d = target[i];
        if (d == 0 && !allow_zero) {
            if (i >= x.size()) {
                fail(op, fmt::format("target shape [{}] copies dimension {} (0) that input {} "
                                     "does not have",
                                     fmt::join(target, ","), i, to_string(x)));
            }
            d = x[i];
        } else if (d == -1) {
            if (infer_at >= 0) {
                fail(op,
                     fmt::format("target shape [{}] has more than one -1", fmt::join(target, ",")));
            }
            infer_at = static_cast<int>(i);
            d = 1;
        } else if (d < 0) {
            fail(op, fmt::format("target shape [{}] has invalid dimension {}",
                                 fmt::join(target, ","), d));
        }
        out.push_back(d);
    }
    const std::int64_t total = element_count(x);
    const std::int64_t known = element_count(out);
    if (infer_at >= 0) {
        if (known == 0 || total % known != 0) {
            fail(op,
                 fmt::format("cannot reshape {} to [{}]", to_string(x), fmt::join(target, ",")));
        }
        out[idx(infer_at)] = total / known;
    } else if (known != total) {
        fail(op, fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", to_string(x),
                             total, to_string(out), known));
    }
    return Shapes{out};
}

std::optional<Shapes> infer_gather_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 2, 2);
    const Shape& data = in[0];
    const Shape& indices = in[1];
    if (data.empty())
        fail(op, "Gather data must have rank >= 1, got []");
    auto axis = normalize_axis(op, op.attr_int("axis", 0), rank_of(data), data);
    Shape out(data.begin(), data.begin() + axis);
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), data.begin() + axis + 1, data.end());
    return Shapes{out};
}

std::optional<Shapes> infer_concat_shapes(const Op& op, const Shapes& in) {
    if (in.empty())
        fail(op, "expects at least 1 input, has 0");
    const Shape& first = in[0];
    auto axis = normalize_axis(op, op.attr_int("axis", 0), rank_of(first), first);
    Shape out = first;
    for (std::size_t i = 1; i < in.size(); ++i) {
        bool ok = in[i].size() == first.size();
        for (std::size_t d = 0; ok && d < first.size(); ++d) {
            if (static_cast<std::int64_t>(d) != axis && in[i][d] != first[d])
                ok = false;
        }
        if (!ok) {
            fail(op, fmt::format("Concat on axis {} of incompatible shapes {}", axis,
                                 shapes_text({first, in[i]})));
        }
        out[idx(axis)] += in[i][idx(axis)];
    }
    return Shapes{out};
}

std::optional<Shapes> infer_split_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 2);
    const Shape& x = in[0];
    auto axis = normalize_axis(op, op.attr_int("axis", 0), rank_of(x), x);
    const std::int64_t dim = x[idx(axis)];
    std::vector<std::int64_t> sizes = op.attr_ints("split");
    if (sizes.empty()) {
        if (in.size() == 2)
            return std::nullopt;  // sizes only in a data input: trust declared
        const auto parts = static_cast<std::int64_t>(op.outputs.size());
        if (parts == 0 || dim % parts != 0) {
            fail(op, fmt::format("cannot split dimension {} of {} into {} equal parts", axis,
                                 to_string(x), parts));
        }
        sizes.assign(idx(parts), dim / parts);
    }
    if (!op.outputs.empty() && sizes.size() != op.outputs.size()) {
        fail(op, fmt::format("split sizes [{}] give {} outputs but the op declares {}",
                             fmt::join(sizes, ","), sizes.size(), op.outputs.size()));
    }
    std::int64_t sum = 0;
    for (auto s : sizes) {
        if (s < 0)
            fail(op, fmt::format("negative split size {}", s));
        sum += s;
    }
    if (sum != dim) {
        fail(op, fmt::format("split sizes [{}] sum to {} but dimension {} of {} is {}",
                             fmt::join(sizes, ","), sum, axis, to_string(x), dim));
    }
    Shapes outs;
    for (auto s : sizes) {
        Shape o = x;
        o[idx(axis)] = s;
        outs.push_back(std::move(o));
    }
    return outs;
}

std::optional<Shapes> infer_slice_shapes(const Op& op, const Shapes& in) {
    if (in.empty())
        fail(op, "expects at least 1 input, has 0");
    if (op.attrs.count("starts") == 0 || op.attrs.count("ends") == 0) {
        return std::nullopt;  // opset >= 10 input form without static values
    }
    const Shape& x = in[0];
    const auto starts = op.attr_ints("starts");
    const auto ends = op.attr_ints("ends");
    auto axes = op.attr_ints("axes");
    auto steps = op.attr_ints("steps");
    if (axes.empty()) {
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<int>(i));
    }
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
        fail(op, "starts, ends, axes and steps must have the same length");
    }
    Shape out = x;
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        auto axis = normalize_axis(op, axes[i], rank_of(x), x);
        if (!seen.insert(axis).second)
            fail(op, fmt::format("axis {} sliced twice", axis));
        const std::int64_t dim = x[idx(axis)];
        const std::int64_t step = steps[i];
        if (step == 0)
            fail(op, "Slice step must not be 0");
        std::int64_t start = starts[i];
        std::int64_t end = ends[i];
        // Clamping as in the ONNX specification (ends may be INT64_MAX for "to the end").
        if (start < 0)
            start += dim;
        if (end < 0 && end > std::numeric_limits<std::int64_t>::min() + dim)
            end += dim;
        std::int64_t len = 0;
        if (step > 0) {
            start = std::clamp<std::int64_t>(start, 0, dim);
            end = std::clamp<std::int64_t>(end, 0, dim);
            len = end > start ? (end - start + step - 1) / step : 0;
        } else {
            start = std::clamp<std::int64_t>(start, 0, dim - 1);
            end = std::clamp<std::int64_t>(end, -1, dim - 1);
            len = start > end ? (start - end + (-step) - 1) / (-step) : 0;
        }
        out[idx(axis)] = len;
    }
    return Shapes{out};
}

std::optional<Shapes> infer_unsqueeze_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 2);
    const Shape& x = in[0];
    const auto axes = op.attr_ints("axes");
    if (axes.empty()) {
        if (in.size() == 2)
            return std::nullopt;  // opset-13 form: axes in a data input
        fail(op, "Unsqueeze needs the 'axes' attribute");
    }
    const std::int64_t out_rank = rank_of(x) + static_cast<std::int64_t>(axes.size());
    std::vector<bool> inserted(idx(out_rank), false);
    for (auto a : axes) {
        if (a < -out_rank || a >= out_rank) {
            fail(op, fmt::format("axis {} is out of range for output rank {} (input {})", a,
                                 out_rank, to_string(x)));
        }
        auto n = a < 0 ? a + out_rank : a;
        if (inserted[idx(n)])
            fail(op, fmt::format("axis {} is listed twice in axes", a));
        inserted[idx(n)] = true;
    }
    Shape out;
    std::size_t next = 0;
    for (std::int64_t i = 0; i < out_rank; ++i) {
        out.push_back(inserted[idx(i)] ? 1 : x[next++]);
    }
    return Shapes{out};
}

std::optional<Shapes> infer_squeeze_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 2);
    const Shape& x = in[0];
    const auto axes = op.attr_ints("axes");
    if (axes.empty() && in.size() == 2)
        return std::nullopt;  // opset-13 form
    std::vector<bool> drop(x.size(), false);
    if (axes.empty()) {
        for (std::size_t i = 0; i < x.size(); ++i)
            drop[i] = x[i] == 1;
    }
    for (auto a : axes) {
        auto n = normalize_axis(op, a, rank_of(x), x);
        if (x[idx(n)] != 1) {
            fail(op, fmt::format("cannot squeeze axis {} of size {} in {}", a, x[idx(n)],
                                 to_string(x)));
        }
        drop[idx(n)] = true;
    }
    Shape out;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!drop[i])
            out.push_back(x[i]);
    }
    return Shapes{out};
}

std::optional<Shapes> infer_flatten_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const Shape& x = in[0];
    std::int64_t axis = op.attr_int("axis", 1);
    if (axis < -rank_of(x) || axis > rank_of(x)) {
        fail(op, fmt::format("axis {} is out of range for input shape {}", axis, to_string(x)));
    }
    if (axis < 0)
        axis += rank_of(x);
    return Shapes{Shape{element_count(Shape(x.begin(), x.begin() + axis)),
                        element_count(Shape(x.begin() + axis, x.end()))}};
}

// --- convolution and pooling ----------------------------------------------------------------

namespace {

// Spatial output sizes of a sliding window (Conv, pooling) per the ONNX formula.
Shape window_output(const Op& op, const Shape& x, const std::vector<std::int64_t>& kernel,
                    bool ceil_mode) {
    const std::size_t sp = x.size() - 2;
    if (kernel.size() != sp) {
        fail(op, fmt::format("kernel_shape [{}] does not match the spatial rank of input {}",
                             fmt::join(kernel, ","), to_string(x)));
    }
    auto strides = op.attr_ints("strides");
    auto dilations = op.attr_ints("dilations");
    auto pads = op.attr_ints("pads");
    if (strides.empty())
        strides.assign(sp, 1);
    if (dilations.empty())
        dilations.assign(sp, 1);
    if (pads.empty())
        pads.assign(2 * sp, 0);
    if (strides.size() != sp || dilations.size() != sp || pads.size() != 2 * sp) {
        fail(op, fmt::format("strides/dilations/pads do not match the spatial rank of input {}",
                             to_string(x)));
    }
    std::string auto_pad = "NOTSET";
    if (auto it = op.attrs.find("auto_pad"); it != op.attrs.end()) {
        if (auto* s = std::get_if<std::string>(&it->second))
            auto_pad = *s;
    }
    Shape out;
    for (std::size_t i = 0; i < sp; ++i) {
        const std::int64_t in_dim = x[2 + i];
        const std::int64_t s = strides[i];
        if (s <= 0)
            fail(op, "strides must be positive");
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            out.push_back((in_dim + s - 1) / s);
            continue;
        }
        const std::int64_t eff_k = dilations[i] * (kernel[i] - 1) + 1;
        const std::int64_t padded = auto_pad == "VALID" ? in_dim : in_dim + pads[i] + pads[i + sp];
        if (padded < eff_k) {
            fail(op, fmt::format("kernel [{}] is larger than padded input {}",
                                 fmt::join(kernel, ","), to_string(x)));
        }
        const std::int64_t span = padded - eff_k;
        out.push_back((ceil_mode ? (span + s - 1) / s : span / s) + 1);
    }
    return out;
}

}  // namespace

std::optional<Shapes> infer_conv_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 2, 3);
    const Shape& x = in[0];
    const Shape& w = in[1];
    if (x.size() < 3 || w.size() != x.size()) {
        fail(op, fmt::format("Conv expects X (N x C x spatial) and W of the same rank, got {}",
                             shapes_text({x, w})));
    }
    const std::int64_t group = op.attr_int("group", 1);
    if (group <= 0 || x[1] != w[1] * group || w[0] % group != 0) {
        fail(op,
             fmt::format("Conv channels do not match (group {}): {}", group, shapes_text({x, w})));
    }
    auto kernel = op.attr_ints("kernel_shape");
    if (kernel.empty())
        kernel.assign(w.begin() + 2, w.end());
    if (!std::equal(kernel.begin(), kernel.end(), w.begin() + 2, w.end())) {
        fail(op, fmt::format("kernel_shape [{}] does not match weight {}", fmt::join(kernel, ","),
                             to_string(w)));
    }
    if (in.size() == 3 && in[2] != Shape{w[0]}) {
        fail(op, fmt::format("Conv bias {} must be [{}]", to_string(in[2]), w[0]));
    }
    Shape out{x[0], w[0]};
    Shape sp = window_output(op, x, kernel, false);
    out.insert(out.end(), sp.begin(), sp.end());
    return Shapes{out};
}

std::optional<Shapes> infer_pool_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const Shape& x = in[0];
    if (x.size() < 3) {
        fail(op, fmt::format("{} expects N x C x spatial input, got {}", op.type, to_string(x)));
    }
    const auto kernel = op.attr_ints("kernel_shape");
    if (kernel.empty())
        fail(op, fmt::format("{} needs 'kernel_shape'", op.type));
    Shape out{x[0], x[1]};
    Shape sp = window_output(op, x, kernel, op.attr_int("ceil_mode", 0) != 0);
    out.insert(out.end(), sp.begin(), sp.end());
    return Shapes{out, out};  // MaxPool's optional Indices output has the same shape
}

std::optional<Shapes> infer_global_pool_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const Shape& x = in[0];
    if (x.size() < 3) {
        fail(op, fmt::format("{} expects N x C x spatial input, got {}", op.type, to_string(x)));
    }
    Shape out{x[0], x[1]};
    out.resize(x.size(), 1);
    return Shapes{out};
}

namespace {

double elements(const Shape& s) {
    return static_cast<double>(element_count(s));
}

double output_elements(const OpOperands& o) {
    return o.outputs.empty() ? 0.0 : elements(o.outputs[0]);
}

void expect_some_input(const Op& op, const Shapes& in) {
    if (in.empty())
        fail(op, "expects at least 1 input, has 0");
}

}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& context) {
    const std::size_t rank = std::max(a.size(), b.size());
    Shape out(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
        // Align trailing dimensions; missing leading dimensions count as 1.
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da == db || db == 1) {
            out[i] = da;
        } else if (da == 1) {
            out[i] = db;
        } else {
            throw GraphError(fmt::format("{}: shapes {} and {} are not broadcastable", context,
                                         to_string(a), to_string(b)));
        }
    }
    return out;
}

// --- element-wise and shape-of ops ----------------------------------------------------------

std::optional<Shapes> infer_broadcast_shapes(const Op& op, const Shapes& in) {
    expect_some_input(op, in);
    Shape out = in[0];
    for (std::size_t i = 1; i < in.size(); ++i) {
        out = broadcast_shapes(
            out, in[i], fmt::format("{}: cannot broadcast {}", op_label(op), shapes_text(in)));
    }
    return Shapes{out};
}

std::optional<Shapes> infer_binary_broadcast_shapes(const Op& op, const Shapes& in) {
    expect_some_input(op, in);
    expect_inputs(op, in, 2, 2);
    return infer_broadcast_shapes(op, in);
}

std::optional<Shapes> infer_where_shapes(const Op& op, const Shapes& in) {
    expect_some_input(op, in);
    expect_inputs(op, in, 3, 3);
    return infer_broadcast_shapes(op, in);
}

std::optional<Shapes> infer_same_shapes(const Op& op, const Shapes& in) {
    expect_some_input(op, in);
    return Shapes{in[0], in[0]};  // Dropout's optional mask matches its output
}

std::optional<Shapes> infer_shape_op_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    const std::int64_t r = rank_of(in[0]);
    std::int64_t start = op.attr_int("start", 0);
    std::int64_t end = op.attr_int("end", r);
    if (start < 0)
        start += r;
    if (end < 0)
        end += r;
    start = std::clamp<std::int64_t>(start, 0, r);
    end = std::clamp<std::int64_t>(end, 0, r);
    return Shapes{Shape{std::max<std::int64_t>(0, end - start)}};
}

std::optional<Shapes> infer_size_op_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 1, 1);
    return Shapes{Shape{}};
}

// --- recurrent ------------------------------------------------------------------------------

namespace {

// Gates per cell (ONNX LSTM: i, o, f, c; GRU: z, r, h; RNN: one).
std::int64_t recurrent_gates(std::string_view type) {
    return type == "LSTM" ? 4 : type == "GRU" ? 3 : 1;
}

std::int64_t recurrent_directions(const Op& op) {
    if (auto it = op.attrs.find("direction"); it != op.attrs.end()) {
        if (const auto* d = std::get_if<std::string>(&it->second)) {
            if (*d == "bidirectional")
                return 2;
            if (*d != "forward" && *d != "reverse") {
                fail(op,
                     fmt::format("direction '{}' must be forward, reverse or bidirectional", *d));
            }
        }
    }
    return 1;
}

}  // namespace

// ONNX LSTM / GRU / RNN (opset 7-14 operator specification, "Inputs" and "Outputs"): X is
// [seq_length, batch_size, input_size] ([batch, seq, input] with layout = 1), W is
// [num_directions, G*hidden_size, input_size], R is [num_directions, G*hidden_size,
// hidden_size], the optional B is [num_directions, 2*G*hidden_size]; Y is [seq_length,
// num_directions, batch_size, hidden_size] and Y_h (and LSTM's Y_c) [num_directions,
// batch_size, hidden_size] (layout 1: [batch, seq, dirs, H] and [batch, dirs, H]).
std::optional<Shapes> infer_recurrent_shapes(const Op& op, const Shapes& in) {
    expect_inputs(op, in, 3, 8);
    const Shape& x = in[0];
    const Shape& w = in[1];
    const Shape& r = in[2];
    if (x.size() != 3 || w.size() != 3 || r.size() != 3) {
        fail(op, fmt::format("{} expects X, W and R of rank 3, got {}", op.type,
                             shapes_text({x, w, r})));
    }
    const std::int64_t dirs = recurrent_directions(op);
    const std::int64_t gates = recurrent_gates(op.type);
    const std::int64_t hidden = op.attr_int("hidden_size", r[2]);
    const bool batch_first = op.attr_int("layout", 0) != 0;
    const std::int64_t seq = batch_first ? x[1] : x[0];
    const std::int64_t batch = batch_first ? x[0] : x[1];
    const Shape w_expected{dirs, gates * hidden, x[2]};
    const Shape r_expected{dirs, gates * hidden, hidden};
    if (w != w_expected || r != r_expected) {
        fail(op, fmt::format("{} with hidden_size {} and {} direction(s) on X {} expects W {} and "
                             "R {}, got {}",
                             op.type, hidden, dirs, to_string(x), to_string(w_expected),
                             to_string(r_expected), shapes_text({w, r})));
    }
    if (in.size() >= 4 && in[3] != Shape{dirs, 2 * gates * hidden}) {
        fail(op, fmt::format("{} bias B {} must be [{},{}]", op.type, to_string(in[3]), dirs,
                             2 * gates * hidden));
    }
    const Shape y = batch_first ? Shape{batch, seq, dirs, hidden} : Shape{seq, dirs, batch, hidden};
    const Shape state = batch_first ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
    if (op.type == "LSTM")
        return Shapes{y, state, state};
    return Shapes{y, state};
}

double recurrent_cell_flops(std::string_view op_type, std::int64_t batch, std::int64_t input,
                            std::int64_t hidden, bool bias) {
    const std::int64_t gates = recurrent_gates(op_type);
    // Element-wise work per batch row, as the unrolled generators emit it: LSTM: 3 adds over
    // the G*H gates (two biases, x W + h R) and 3 Sigmoid + 2 Tanh + 3 Mul + 1 Add over H
    // (12H + 9H = 21H). GRU (linear_before_reset): 2 bias adds over G*H and 11 ops over H
    // (2 Add + 2 Sigmoid for z and r; Mul, Add, Tanh for n; Sub, 2 Mul, Add for h'): 17H.
    // RNN: 2 bias adds, x W + h R, the activation: 4H.
    const std::int64_t per_row = op_type == "LSTM"  ? 21 * hidden
                                 : op_type == "GRU" ? 17 * hidden
                                                    : 4 * hidden;
    const std::int64_t bias_adds = 2 * gates * hidden;
    const double elementwise = static_cast<double>(bias ? per_row : per_row - bias_adds);
    return 2.0 * static_cast<double>(batch * gates * hidden * (input + hidden)) +
           static_cast<double>(batch) * elementwise;
}

// --- FLOP counts: the functions the table rows point at --------------------------------------

double flops_none(const OpOperands& /*operands*/) {
    return 0.0;
}

double flops_matmul(const OpOperands& o) {
    const Shapes& in = o.inputs;
    if (in.size() < 2 || in[0].empty())
        return 0.0;
    // One multiply-add per output element and inner index: 2*M*N*K times the batch.
    return 2.0 * output_elements(o) * static_cast<double>(in[0].back());
}

double flops_einsum(const OpOperands& o) {
    // A contraction of two or more operands: one multiply-add per point of the space of all
    // indices (2 FLOPs, as MatMul's 2*M*N*K). One operand (a transpose, trace or sum): one
    // operation per input element.
    if (!o.floating_point || o.inputs.empty())
        return 0.0;
    const auto indices = resolve_einsum(o.op, o.inputs);
    if (!indices)
        return 0.0;
    if (o.inputs.size() == 1)
        return static_cast<double>(element_count(o.inputs[0]));
    double points = 1.0;
    for (const auto& [c, size] : indices->size)
        points *= static_cast<double>(size);
    return 2.0 * points;
}

double flops_gemm(const OpOperands& o) {
    const Shapes& in = o.inputs;
    if (in.size() < 2 || in[0].size() != 2)
        return 0.0;
    const double out_elems = output_elements(o);
    const double k = static_cast<double>(o.op.attr_int("transA", 0) != 0 ? in[0][0] : in[0][1]);
    // 2*M*N*K, plus one add per output element for the bias C (lee2022 §4.2: Gemm time is
    // the MatMul plus an element-wise addition).
    return 2.0 * out_elems * k + (in.size() >= 3 ? out_elems : 0.0);
}

double flops_conv(const OpOperands& o) {
    const Shapes& in = o.inputs;
    if (in.size() < 2 || in[1].size() < 3)
        return 0.0;
    // 2*N*Cout*Hout*Wout*(Cin/group)*kh*kw: W is [Cout, Cin/group, kh, kw], so the product
    // of W's trailing dimensions is (Cin/group)*kh*kw. The bias add is not counted.
    const Shape& w = in[1];
    return 2.0 * output_elements(o) * elements(Shape(w.begin() + 1, w.end()));
}

double flops_window_pool(const OpOperands& o) {
    return output_elements(o) * elements(o.op.attr_ints("kernel_shape"));
}

double flops_global_pool(const OpOperands& o) {
    // Every input element is visited once.
    return o.inputs.empty() ? 0.0 : elements(o.inputs[0]);
}

double flops_softmax(const OpOperands& o) {
    // max, subtract, exp, sum, divide: ~5 operations per element.
    return 5.0 * output_elements(o);
}

double flops_layernorm(const OpOperands& o) {
    // As its ONNX decomposition (ReduceMean, Sub, Pow, ReduceMean, Div, Mul, Add: 7 per
    // element), so a fused and a decomposed graph cost the same arithmetic.
    return 7.0 * output_elements(o);
}

double flops_batchnorm(const OpOperands& o) {
    return 2.0 * output_elements(o);  // inference: folded into one scale and one shift
}

// Integer and boolean arithmetic (shape computations such as Div(size, heads), mask and
// position-id bookkeeping) is not floating-point work: the two formulas below count only when
// some operand or result is floating point.
double flops_per_output_element(const OpOperands& o) {
    if (!o.floating_point)
        return 0.0;
    // One operation per output element. Pow, Erf, Div, Sqrt and Tanh are several instructions
    // on a real core, but each is one element-wise operator in the CG the devices' cost models
    // are calibrated on (lee2022 §4.2: all element-wise operators take the same time), so they
    // count 1 too.
    return output_elements(o);
}

double flops_resize(const OpOperands& o) {
    // ONNX Resize: "nearest" copies one input element per output element (no arithmetic);
    // "linear" blends the 2^k neighbours along the k resized axes, "cubic" the 4^k, each a
    // multiply-add (2 FLOPs). Only the trailing spatial axes of an NCHW tensor are resized.
    if (!o.floating_point || o.inputs.empty())
        return 0.0;
    const std::string mode = [&] {
        auto it = o.op.attrs.find("mode");
        return it != o.op.attrs.end() && std::holds_alternative<std::string>(it->second)
                   ? std::get<std::string>(it->second)
                   : std::string("nearest");
    }();
    if (mode == "nearest")
        return 0.0;
    const double spatial_axes = std::max<double>(0.0, static_cast<double>(o.inputs[0].size()) - 2);
    const double neighbours = std::pow(mode == "cubic" ? 4.0 : 2.0, spatial_axes);
    return 2.0 * neighbours * output_elements(o);
}

double flops_per_input_element(const OpOperands& o) {
    if (!o.floating_point)
        return 0.0;
    return o.inputs.empty() ? 0.0 : elements(o.inputs[0]);  // one operation per input element
}

double flops_recurrent(const OpOperands& o) {
    const Shapes& in = o.inputs;
    if (in.size() < 3 || in[0].size() != 3 || in[2].size() != 3)
        return 0.0;
    const bool batch_first = o.op.attr_int("layout", 0) != 0;
    const std::int64_t seq = batch_first ? in[0][1] : in[0][0];
    const std::int64_t batch = batch_first ? in[0][0] : in[0][1];
    const std::int64_t dirs = in[1].empty() ? 1 : in[1][0];
    const std::int64_t hidden = o.op.attr_int("hidden_size", in[2][2]);
    // Every step of every direction is one cell. LSTM peepholes (input P) are not counted.
    return static_cast<double>(seq * dirs) *
           recurrent_cell_flops(o.op.type, batch, in[0][2], hidden, in.size() >= 4);
}

// --- matrix products inside ops --------------------------------------------------------------

std::optional<GemmDims> matmul_dims(const Op& op, const Shapes& in) {
    if (in.size() < 2 || in[0].empty() || in[1].empty())
        return std::nullopt;
    const Shape& a = in[0];
    const Shape& b = in[1];
    if (op.type == "Gemm") {
        if (a.size() != 2 || b.size() != 2)
            return std::nullopt;
        const bool trans_a = op.attr_int("transA", 0) != 0;
        const bool trans_b = op.attr_int("transB", 0) != 0;
        return GemmDims{1.0,
                        static_cast<double>(trans_a ? a[1] : a[0]),
                        static_cast<double>(trans_b ? b[0] : b[1]),
                        static_cast<double>(trans_a ? a[0] : a[1]),
                        static_cast<double>(a[1]),
                        static_cast<double>(b[1])};
    }
    GemmDims d;
    d.a_row = static_cast<double>(a.back());
    d.b_row = static_cast<double>(b.back());
    d.m = a.size() >= 2 ? static_cast<double>(a[a.size() - 2]) : 1.0;
    d.k = static_cast<double>(a.back());
    d.n = b.size() >= 2 ? static_cast<double>(b.back()) : 1.0;
    // The batch is the broadcast of both operands' leading dimensions.
    const std::size_t lead_a = a.size() > 2 ? a.size() - 2 : 0;
    const std::size_t lead_b = b.size() > 2 ? b.size() - 2 : 0;
    const std::size_t lead = std::max(lead_a, lead_b);
    for (std::size_t i = 0; i < lead; ++i) {
        const std::int64_t da = i + lead_a >= lead ? a[i + lead_a - lead] : 1;
        const std::int64_t db = i + lead_b >= lead ? b[i + lead_b - lead] : 1;
        d.batch *= static_cast<double>(std::max(da, db));
    }
    return d;
}

std::optional<GemmDims> conv_gemm_dims(const Op& op, const Shapes& in, const Shape& out) {
    if (op.type != "Conv" || in.size() < 2 || in[1].size() < 3 || out.size() < 3)
        return std::nullopt;
    const Shape& w = in[1];
    const double group = static_cast<double>(std::max<std::int64_t>(1, op.attr_int("group", 1)));
    GemmDims d;
    d.batch = group;
    d.m = static_cast<double>(out[0]) * elements(Shape(out.begin() + 2, out.end()));
    d.n = static_cast<double>(w[0]) / group;
    d.k = elements(Shape(w.begin() + 1, w.end()));
    return d;
}

std::optional<RecurrentDims> recurrent_dims(const Op& op, const Shapes& in) {
    if (in.size() < 3 || in[0].size() != 3 || in[2].size() != 3)
        return std::nullopt;
    RecurrentDims d;
    const bool batch_first = op.attr_int("layout", 0) != 0;
    d.seq = batch_first ? in[0][1] : in[0][0];
    d.batch = batch_first ? in[0][0] : in[0][1];
    d.input = in[0][2];
    d.directions = in[1].empty() ? 1 : in[1][0];
    d.hidden = op.attr_int("hidden_size", in[2][2]);
    d.gates = recurrent_gates(op.type);
    return d;
}

double flops_fused(const OpOperands& o) {
    return o.op.attr_float("fused_flops", 0.0);
}

// --- bytes -----------------------------------------------------------------------------------

OpBytes all_operand_bytes(const Graph& graph, const Op& op) {
    OpBytes b;
    for (int t : op.inputs)
        b.read += graph.tensor(t).size_bytes();
    for (int t : op.outputs)
        b.written += graph.tensor(t).size_bytes();
    return b;
}

}  // namespace hetsim::sim
