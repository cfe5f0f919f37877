#include "importers/onnx_import.hpp"

#include <fcntl.h>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "sim/atomic_file.hpp"
#include "sim/op_table.hpp"

namespace hetsim::importers {

namespace {

namespace fs = std::filesystem;
using sim::Shape;

// Folding materialises values; past this many elements a constant is left to the runtime
// (ONNX Runtime folds larger ones too, but those are weight transforms, not shape arithmetic,
// and evaluating them would cost the import time and memory the benchmark bounds).
constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 16;

// sim::Graph::add_tensor's limit: no tensor of a hetsim graph has more elements, so a shape
// operand asking for more (Reshape, Expand, Tile, ConstantOfShape) is refused before ONNX's
// shape inference multiplies with it.
constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 50;

// The largest stride, dilation, kernel size, pad, group or block size hetsim accepts. ONNX
// inference multiplies these with each other and with dimensions in int64 (a block size of 2^32
// squares to 0, then divides by it); no model has a window wider than 2^31.
constexpr std::int64_t kMaxWindowValue = std::numeric_limits<std::int32_t>::max();

// Elements of `shape`, saturated at INT64_MAX, which a negative dimension gets too: every "small
// enough to fold" test then fails for a shape no tensor can have instead of wrapping around.
std::int64_t elements_of(const Shape& shape) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; }))
        return kMax;
    if (std::find(shape.begin(), shape.end(), 0) != shape.end())
        return 0;
    std::int64_t n = 1;
    for (const std::int64_t d : shape) {
        if (n > kMax / d)
            return kMax;
        n *= d;
    }
    return n;
}

// A value known at import time: an initializer, a Constant or a folded node's output.
// Integer and boolean tensors keep exact int64 values (Slice's INT64_MAX ends); floating point
// ones keep doubles. `has_values` is false for large constants whose shape alone is known.
struct ConstTensor {
    std::int32_t elem_type = onnx::TensorProto::FLOAT;
    Shape shape;
    bool has_values = false;
    bool is_int = false;
    std::vector<std::int64_t> ints;
    std::vector<double> reals;

    std::int64_t elements() const { return elements_of(shape); }
    double at(std::int64_t i) const {
        return is_int ? static_cast<double>(ints[static_cast<std::size_t>(i)])
                      : reals[static_cast<std::size_t>(i)];
    }
    std::int64_t int_at(std::int64_t i) const {
        return is_int ? ints[static_cast<std::size_t>(i)]
                      : static_cast<std::int64_t>(reals[static_cast<std::size_t>(i)]);
    }
    std::vector<std::int64_t> as_ints() const {
        std::vector<std::int64_t> out;
        for (std::int64_t i = 0; i < elements(); ++i)
            out.push_back(int_at(i));
        return out;
    }
};

bool is_integer_type(std::int32_t t) {
    using TP = onnx::TensorProto;
    return t == TP::INT64 || t == TP::INT32 || t == TP::INT16 || t == TP::INT8 || t == TP::UINT8 ||
           t == TP::UINT16 || t == TP::UINT32 || t == TP::UINT64 || t == TP::BOOL;
}

std::string elem_type_name(std::int32_t t) {
    return onnx::TensorProto_DataType_IsValid(t)
               ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t))
               : fmt::format("type {}", t);
}

// Bytes of one element of the numeric types read_tensor decodes.
std::int64_t element_size_bytes(std::int32_t t) {
    using TP = onnx::TensorProto;
    switch (t) {
        case TP::INT64:
        case TP::DOUBLE:
            return 8;
        case TP::INT32:
        case TP::FLOAT:
            return 4;
        default:
            return 1;
    }
}

std::optional<sim::DType> to_dtype(std::int32_t t) {
    using TP = onnx::TensorProto;
    switch (t) {
        case TP::FLOAT:
            return sim::DType::f32;
        case TP::FLOAT16:
            return sim::DType::f16;
        case TP::BFLOAT16:
            return sim::DType::bf16;
        case TP::INT64:
            return sim::DType::i64;
        case TP::INT32:
            return sim::DType::i32;
        case TP::BOOL:
            return sim::DType::boolean;
        case TP::INT8:
            return sim::DType::i8;
        default:
            return std::nullopt;
    }
}

std::optional<Shape> static_shape(const onnx::TypeProto& type) {
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return std::nullopt;
    Shape shape;
    for (const auto& d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
            return std::nullopt;
        shape.push_back(d.dim_value());
    }
    return shape;
}

// The first dimension of `type` that is not a known value: its symbolic name or "?".
std::string first_unknown_dim(const onnx::TypeProto& type) {
    if (!type.has_tensor_type() || !type.tensor_type().has_shape())
        return "(no shape)";
    for (const auto& d : type.tensor_type().shape().dim()) {
        if (!d.has_dim_value())
            return d.has_dim_param() ? fmt::format("'{}'", d.dim_param()) : std::string("?");
    }
    return "?";
}

// Calls fn on every node of `graph` and of the graphs its nodes hold (If branches, Loop
// bodies): ONNX's shape inference walks those too.
template <typename Fn>
void for_each_node(onnx::GraphProto& graph, const Fn& fn) {
    for (auto& node : *graph.mutable_node()) {
        fn(node);
        for (auto& attribute : *node.mutable_attribute()) {
            if (attribute.has_g())
                for_each_node(*attribute.mutable_g(), fn);
            for (auto& subgraph : *attribute.mutable_graphs())
                for_each_node(subgraph, fn);
        }
    }
}

// The ops whose shape inference is ONNX's convPoolShapeInference (or ConvTranspose's): a
// window of kernel_shape, strides, dilations and pads slid over the spatial axes.
bool is_window_op(const std::string& op) {
    return op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "ConvTranspose" ||
           op == "MaxPool" || op == "AveragePool" || op == "LpPool";
}

// The input that holds a window op's weight, or -1 (pooling has none).
int weight_input(const std::string& op) {
    if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose")
        return 1;
    return op == "QLinearConv" ? 3 : -1;
}

// An op type no ONNX schema has: inference skips a node renamed to it and leaves its outputs
// unknown (Importer::prepare_for_inference).
constexpr const char* kHeldBackOpType = "HetsimHeldBackFromInference";

// "[0,0]", the first 8 values of a long list.
template <typename Values>
std::string list_text(const Values& values) {
    std::vector<std::string> shown;
    for (const auto& v : values) {
        if (shown.size() == 8) {
            shown.emplace_back("...");
            break;
        }
        shown.push_back(fmt::format("{}", v));
    }
    return fmt::format("[{}]", fmt::join(shown, ","));
}

class Importer {
public:
    Importer(std::string path, const OnnxImportOptions& options)
        : path_(std::move(path)), options_(options) {}

    OnnxImportResult run();

private:
    [[noreturn]] void fail(const std::string& message) const {
        throw OnnxImportError(fmt::format("{}: {}", path_, message));
    }

    // The file an external-data `location` names, which must resolve inside the model's folder
    // (symlinks followed): a model file must not make hetsim read /etc/passwd.
    fs::path external_data_file(const std::string& location, const std::string& tensor) const;
    void parse();
    void check_versions();
    void bind_dims();
    void infer_shapes();
    void collect_types();
    // Checks before ONNX shape inference (section "checks before shape inference" below).
    void check_nodes();
    void check_node(const onnx::NodeProto& node) const;
    bool prepare_for_inference(
        onnx::NodeProto& node,
        std::vector<std::pair<onnx::NodeProto*, onnx::NodeProto>>& originals) const;
    std::optional<Shape> known_shape(const std::string& name) const;
    const ConstTensor* checkable_values(const std::string& name) const;
    void load_initializer_values();
    ConstTensor read_tensor(const onnx::TensorProto& t, bool want_values) const;
    bool fold_pass();
    std::optional<ConstTensor> evaluate(const onnx::NodeProto& node) const;
    void lift_constant_operands(const onnx::NodeProto& node, sim::Attributes& attrs,
                                std::vector<bool>& dropped);
    sim::Attributes convert_attributes(const onnx::NodeProto& node) const;
    sim::Graph build_graph();
    const ConstTensor* known(const std::string& name) const {
        auto it = consts_.find(name);
        return it == consts_.end() ? nullptr : &it->second;
    }
    const ConstTensor* known_values(const std::string& name) const {
        const ConstTensor* c = known(name);
        return c != nullptr && c->has_values ? c : nullptr;
    }

    std::string path_;
    OnnxImportOptions options_;
    onnx::ModelProto model_;
    std::int64_t opset_ = 0;
    std::unordered_map<std::string, int> opset_imports_;
    std::unordered_map<std::string, onnx::TypeProto> types_;  // after shape inference
    std::unordered_map<std::string, ConstTensor> consts_;
    std::unordered_set<std::string> graph_inputs_;  // fed per sample (not initializers)
    // Values of Constant nodes not folded yet, so that check_nodes sees them as operands before
    // the first inference.
    std::unordered_map<std::string, ConstTensor> constant_values_;
    OnnxImportResult result_;
};

void Importer::parse() {
    std::error_code ec;
    if (!fs::exists(path_, ec))
        fail("no such file");
    // Checked before the open: a FIFO would block it forever and a directory fails only at the
    // read. The protobuf format stops at 2 GiB (the limit the parse below is given).
    if (const auto problem = sim::input_file_problem(path_, INT_MAX)) {
        fail(fmt::format("{}, expected an ONNX model file{}", *problem,
                         fs::is_regular_file(path_, ec)
                             ? " (a model over 2 GiB keeps its weights as external data)"
                             : ""));
    }
    // Parsed straight from the file: holding its bytes too would double the peak memory of a
    // model whose weights are inside the protobuf.
    const int fd = ::open(path_.c_str(), O_RDONLY);
    if (fd < 0)
        fail("cannot open the file");
    bool parsed = false;
    bool consumed = false;
    {
        google::protobuf::io::FileInputStream raw(fd);
        google::protobuf::io::CodedInputStream coded(&raw);
        // Older protobufs stop at 64 MB by default; the format's own limit is 2 GB (larger
        // models keep their weights as external data).
        coded.SetTotalBytesLimit(INT_MAX);
        parsed = model_.ParseFromCodedStream(&coded);
        consumed = coded.ConsumedEntireMessage();
    }
    ::close(fd);
    if (!parsed || !consumed)
        fail("not a valid ONNX model: the protobuf is corrupt or truncated");
    if (!model_.has_graph() || model_.ir_version() == 0 || model_.graph().output_size() == 0)
        fail("not a valid ONNX model: no ir_version or graph outputs (empty or truncated file)");
    result_.onnx_nodes = model_.graph().node_size();
}

void Importer::check_versions() {
    if (model_.ir_version() > onnx::IR_VERSION) {
        fail(fmt::format("IR version {} is newer than the ONNX library supports ({})",
                         model_.ir_version(), static_cast<int>(onnx::IR_VERSION)));
    }
    for (const auto& imp : model_.opset_import()) {
        const std::string domain = imp.domain() == "ai.onnx" ? "" : imp.domain();
        opset_imports_[imp.domain()] = static_cast<int>(imp.version());
        if (domain.empty()) {
            opset_ = imp.version();
            if (opset_ > max_supported_opset()) {
                fail(fmt::format(
                    "opset {} is newer than the installed ONNX library supports (at most {}); "
                    "export with opset_version={} or older",
                    opset_, max_supported_opset(), max_supported_opset()));
            }
        }
    }
    if (opset_ == 0)
        fail("the model imports no ai.onnx opset");
    try {
        onnx::checker::CheckerContext ctx;
        ctx.set_ir_version(static_cast<int>(model_.ir_version()));
        ctx.set_opset_imports(opset_imports_);
        ctx.set_model_dir(fs::path(path_).parent_path().string());
        onnx::checker::LexicalScopeContext lex;
        onnx::checker::check_graph(model_.graph(), ctx, lex);
    } catch (const onnx::checker::ValidationError& e) {
        // The checker's message is a paragraph; its first line says what is wrong.
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        fail(fmt::format("not a valid ONNX model: {}", what));
    }
}

void Importer::bind_dims() {
    std::set<std::string> initializer_names;
    for (const auto& init : model_.graph().initializer())
        initializer_names.insert(init.name());
    std::set<std::string> params;
    std::set<std::string> used;
    for (auto& input : *model_.mutable_graph()->mutable_input()) {
        if (initializer_names.count(input.name()) != 0)
            continue;  // IR < 4 lists initializers as inputs too
        graph_inputs_.insert(input.name());
        if (!input.type().has_tensor_type())
            fail(fmt::format("graph input '{}' is not a tensor", input.name()));
        auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
        int axis = 0;
        for (auto& d : *shape->mutable_dim()) {
            if (d.has_dim_value()) {
                ++axis;
                continue;
            }
            if (!d.has_dim_param() || d.dim_param().empty()) {
                fail(
                    fmt::format("dimension {} of input '{}' has neither a size nor a name; "
                                "re-export with a named dynamic axis or a fixed size",
                                axis, input.name()));
            }
            const std::string name = d.dim_param();
            params.insert(name);
            auto it = options_.dims.find(name);
            if (it == options_.dims.end()) {
                fail(
                    fmt::format("symbolic dimension '{}' (input '{}', axis {}) is not bound; "
                                "give it under the workload's dims: (dims: {{{}: 1}}; "
                                "hetsim inspect: --dim {}=1)",
                                name, input.name(), axis, name, name));
            }
            if (it->second < 1)
                fail(fmt::format("dims: '{}' must be >= 1, got {}", name, it->second));
            used.insert(name);
            d.set_dim_value(it->second);
            ++axis;
        }
    }
    for (const auto& [name, value] : options_.dims) {
        if (used.count(name) == 0) {
            fail(fmt::format(
                "dims: '{}' is not a symbolic dimension of the model's inputs "
                "(they have: {})",
                name,
                params.empty() ? std::string("none") : fmt::format("{}", fmt::join(params, ", "))));
        }
    }
    // Exporters record the symbolic output shapes and intermediate value_info; inference
    // recomputes them from the bound inputs.
    auto* g = model_.mutable_graph();
    g->clear_value_info();
    for (auto& out : *g->mutable_output()) {
        if (out.type().has_tensor_type())
            out.mutable_type()->mutable_tensor_type()->clear_shape();
    }
    // The bound inputs' shapes, for the checks before the first inference.
    collect_types();
    for (const auto& name : graph_inputs_) {
        const auto shape = known_shape(name);
        if (shape && elements_of(*shape) > kMaxTensorElements) {
            fail(fmt::format("input '{}' of shape {} has more than 2^50 elements, hetsim's limit",
                             name, sim::to_string(*shape)));
        }
    }
}

void Importer::infer_shapes() {
    check_nodes();
    // Rounds: a window op held back for its computed weight joins the next round once this one
    // gave the weight a shape; every round releases one at least, or is the last.
    for (;;) {
        std::vector<std::pair<onnx::NodeProto*, onnx::NodeProto>> originals;
        std::vector<onnx::NodeProto*> held_back;
        for_each_node(*model_.mutable_graph(), [&](onnx::NodeProto& node) {
            if (prepare_for_inference(node, originals))
                held_back.push_back(&node);
        });
        std::string error;
        try {
            // error_mode 0: a node ONNX cannot infer keeps unknown outputs instead of aborting;
            // collect_types/build_graph then name the tensor if hetsim needs its shape.
            onnx::ShapeInferenceOptions opts(/*check_type=*/false, /*error_mode=*/0,
                                             /*data_propagation=*/true);
            onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), opts);
        } catch (const std::exception& e) {
            error = e.what();
        }
        for (auto& [node, original] : originals)
            *node = std::move(original);
        if (!error.empty())
            fail(fmt::format("ONNX shape inference failed: {}", error.substr(0, error.find('\n'))));
        collect_types();
        bool released = false;
        for (const onnx::NodeProto* node : held_back) {
            const int w = weight_input(node->op_type());
            if (w < node->input_size() && known_shape(node->input(w))) {
                check_node(*node);
                released = true;
            }
        }
        if (!released)
            return;
    }
}

void Importer::collect_types() {
    types_.clear();
    const auto& g = model_.graph();
    for (const auto& v : g.input())
        types_[v.name()] = v.type();
    for (const auto& v : g.value_info())
        types_[v.name()] = v.type();
    for (const auto& v : g.output())
        types_[v.name()] = v.type();
}

ConstTensor Importer::read_tensor(const onnx::TensorProto& t, bool want_values) const {
    ConstTensor c;
    c.elem_type = t.data_type();
    for (auto d : t.dims())
        c.shape.push_back(d);
    // Before any count or allocation is made from the dimensions.
    if (elements_of(c.shape) > kMaxTensorElements) {
        fail(
            fmt::format("tensor '{}' has shape {}; hetsim accepts dimensions >= 0 and at most "
                        "2^50 elements",
                        t.name(), sim::to_string(c.shape)));
    }
    c.is_int = is_integer_type(c.elem_type);
    const std::int64_t n = c.elements();
    using TP = onnx::TensorProto;
    const bool numeric = c.is_int || c.elem_type == TP::FLOAT || c.elem_type == TP::DOUBLE;
    if (!want_values || !numeric || n > kMaxFoldedElements)
        return c;
    std::string raw;
    if (t.data_location() == TP::EXTERNAL) {
        std::string location;
        std::int64_t offset = 0;
        std::int64_t length = -1;
        // ONNX writes offset and length as decimal text; anything else is a broken file.
        const auto byte_count = [&](const std::string& key, const std::string& text) {
            std::int64_t v = -1;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || end != text.data() + text.size() || v < 0)
                fail(fmt::format("external data of tensor '{}': {} '{}' is not a byte count",
                                 t.name(), key, text));
            return v;
        };
        for (const auto& kv : t.external_data()) {
            if (kv.key() == "location")
                location = kv.value();
            else if (kv.key() == "offset")
                offset = byte_count("offset", kv.value());
            else if (kv.key() == "length")
                length = byte_count("length", kv.value());
        }
        const fs::path file = external_data_file(location, t.name());
        std::error_code size_error;
        const auto file_bytes = static_cast<std::int64_t>(fs::file_size(file, size_error));
        if (size_error)
            fail(fmt::format("external data '{}' of tensor '{}' cannot be opened", file.string(),
                             t.name()));
        if (length < 0)
            length = n * element_size_bytes(c.elem_type);
        // Checked before anything is allocated: a length from the file is not trusted.
        if (offset > file_bytes || length > file_bytes - offset)
            fail(
                fmt::format("external data '{}' of tensor '{}' is truncated: {} bytes at offset "
                            "{} asked, the file has {}",
                            file.string(), t.name(), length, offset, file_bytes));
        std::ifstream in(file, std::ios::binary);
        if (!in)
            fail(fmt::format("external data '{}' of tensor '{}' cannot be opened", file.string(),
                             t.name()));
        in.seekg(offset);
        raw.resize(static_cast<std::size_t>(length));
        in.read(raw.data(), length);
        if (in.gcount() != length)
            fail(fmt::format("external data '{}' of tensor '{}' is truncated", file.string(),
                             t.name()));
    } else if (t.has_raw_data()) {
        raw = t.raw_data();
    }
    auto take_raw = [&](auto sample) {
        using T = decltype(sample);
        if (raw.size() < static_cast<std::size_t>(n) * sizeof(T))
            fail(fmt::format("tensor '{}' holds {} bytes, its shape needs {}", t.name(), raw.size(),
                             static_cast<std::size_t>(n) * sizeof(T)));
        for (std::int64_t i = 0; i < n; ++i) {
            T v;
            std::memcpy(&v, raw.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
            if constexpr (std::is_floating_point_v<T>)
                c.reals.push_back(static_cast<double>(v));
            else
                c.ints.push_back(static_cast<std::int64_t>(v));
        }
    };
    const bool from_raw = !raw.empty() || n == 0;
    // Values come from raw_data when it is set, else from the typed field ONNX keeps them in.
    auto take = [&](auto sample, const auto& field) {
        if (from_raw)
            take_raw(sample);
        else if constexpr (std::is_floating_point_v<decltype(sample)>)
            c.reals.assign(field.begin(), field.end());
        else
            c.ints.assign(field.begin(), field.end());
    };
    switch (c.elem_type) {
        case TP::INT64:
            take(std::int64_t{}, t.int64_data());
            break;
        case TP::INT32:
            take(std::int32_t{}, t.int32_data());
            break;
        case TP::BOOL:
        case TP::UINT8:
            take(std::uint8_t{}, t.int32_data());
            break;
        case TP::INT8:
            take(std::int8_t{}, t.int32_data());
            break;
        case TP::FLOAT:
            take(float{}, t.float_data());
            break;
        case TP::DOUBLE:
            take(double{}, t.double_data());
            break;
        default:
            return c;  // other integer widths: shape only
    }
    const std::size_t have = c.is_int ? c.ints.size() : c.reals.size();
    if (static_cast<std::int64_t>(have) != n) {
        fail(fmt::format("tensor '{}' holds {} values, its shape {} needs {}", t.name(), have,
                         sim::to_string(c.shape), n));
    }
    c.has_values = true;
    return c;
}

void Importer::load_initializer_values() {
    for (auto& init : *model_.mutable_graph()->mutable_initializer()) {
        ConstTensor c = read_tensor(init, /*want_values=*/true);
        // Only shapes matter past this point; dropping the bytes of the weights keeps the
        // repeated shape inference cheap and the memory at the size of the graph.
        if (!c.has_values) {
            init.clear_raw_data();
            init.clear_float_data();
        }
        consts_[init.name()] = std::move(c);
    }
}

// --- constant evaluation ---------------------------------------------------------------------
// Only what shape arithmetic in PyTorch exports needs; anything else is left unfolded.

std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank) {
    return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> strides_of(const Shape& shape) {
    std::vector<std::int64_t> s(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;)
        s[i - 1] = s[i] * shape[i];
    return s;
}

std::optional<Shape> broadcast(const std::vector<const ConstTensor*>& in) {
    std::size_t rank = 0;
    for (const auto* t : in)
        rank = std::max(rank, t->shape.size());
    Shape out(rank, 1);
    for (const auto* t : in) {
        const std::size_t off = rank - t->shape.size();
        for (std::size_t i = 0; i < t->shape.size(); ++i) {
            const std::int64_t d = t->shape[i];
            if (d == out[off + i] || d == 1)
                continue;
            if (out[off + i] != 1)
                return std::nullopt;
            out[off + i] = d;
        }
    }
    return out;
}

// Flat index into `t` of the broadcast output element `flat` of `out`.
std::int64_t broadcast_index(const ConstTensor& t, const Shape& out, std::int64_t flat) {
    const std::size_t off = out.size() - t.shape.size();
    const auto out_strides = strides_of(out);
    const auto in_strides = strides_of(t.shape);
    std::int64_t index = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t coord = (flat / out_strides[i]) % out[i];
        if (i >= off && t.shape[i - off] != 1)
            index += coord * in_strides[i - off];
    }
    return index;
}

ConstTensor make_result(std::int32_t elem_type, Shape shape) {
    ConstTensor c;
    c.elem_type = elem_type;
    c.shape = std::move(shape);
    c.is_int = is_integer_type(elem_type);
    c.has_values = true;
    return c;
}

void push(ConstTensor& c, double value) {
    if (c.is_int)
        c.ints.push_back(static_cast<std::int64_t>(value));
    else
        c.reals.push_back(value);
}

void push_from(ConstTensor& c, const ConstTensor& src, std::int64_t i) {
    if (c.is_int && src.is_int)
        c.ints.push_back(src.ints[static_cast<std::size_t>(i)]);
    else
        push(c, src.at(i));
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
    for (const auto& a : node.attribute()) {
        if (a.name() == name)
            return &a;
    }
    return nullptr;
}

std::int64_t attr_int(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
    const auto* a = find_attr(node, name);
    return a != nullptr ? a->i() : fallback;
}

// --- checks before shape inference -----------------------------------------------------------
// ONNX 1.12's shape inference trusts a node's attributes and constant operands: a stride of 0
// divides by zero (SIGFPE), a block size of 2^32 squares to 0 and is divided by, a weight of
// another rank than its input is read past its end, a Slice step of 2^32 never ends the loop of
// its data propagation, an Einsum letter outside a-z indexes a stack array, and a SAME-padded
// window counts its input size down one stride at a time. Every node is checked before
// inference sees it; a value ONNX or hetsim cannot take is refused naming the node, the
// attribute or operand, and what is accepted.

std::string node_label(const onnx::NodeProto& node) {
    if (!node.name().empty())
        return fmt::format("node '{}' ({})", node.name(), node.op_type());
    return fmt::format("the {} node writing '{}'", node.op_type(),
                       node.output_size() > 0 ? node.output(0) : std::string());
}

// `text` in double quotes, bytes outside printable ASCII as \xNN: one line, whatever the file
// holds.
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\')
            out += c;
        else
            out += fmt::format("\\x{:02x}", byte);
    }
    return out + "\"";
}

std::optional<Shape> Importer::known_shape(const std::string& name) const {
    if (name.empty())
        return std::nullopt;
    if (const ConstTensor* c = known(name))
        return c->shape;
    if (auto it = constant_values_.find(name); it != constant_values_.end())
        return it->second.shape;
    if (auto it = types_.find(name); it != types_.end())
        return static_shape(it->second);
    return std::nullopt;
}

const ConstTensor* Importer::checkable_values(const std::string& name) const {
    if (const ConstTensor* c = known_values(name))
        return c;
    auto it = constant_values_.find(name);
    return it != constant_values_.end() && it->second.has_values ? &it->second : nullptr;
}

void Importer::check_nodes() {
    constant_values_.clear();
    for_each_node(*model_.mutable_graph(), [&](onnx::NodeProto& node) {
        if (node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx") &&
            node.output_size() == 1 && known(node.output(0)) == nullptr) {
            if (auto value = evaluate(node))
                constant_values_.emplace(node.output(0), std::move(*value));
        }
    });
    for_each_node(*model_.mutable_graph(), [&](onnx::NodeProto& node) { check_node(node); });
}

void Importer::check_node(const onnx::NodeProto& node) const {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
        return;  // ONNX has no inference for other domains
    const std::string& op = node.op_type();
    const auto refuse = [&](const std::string& what, const std::string& accepted) {
        fail(fmt::format("{}: {}: {}", node_label(node), what, accepted));
    };
    // An INT or INTS attribute, when present, within [lowest, highest].
    const auto attribute_within = [&](const char* name, std::int64_t lowest, std::int64_t highest) {
        const auto* a = find_attr(node, name);
        if (a == nullptr)
            return;
        const bool single = a->type() == onnx::AttributeProto::INT;
        std::vector<std::int64_t> values(a->ints().begin(), a->ints().end());
        if (single)
            values = {a->i()};
        for (const std::int64_t v : values) {
            if (v < lowest || v > highest) {
                refuse(fmt::format("attribute '{}' {}", name,
                                   single ? std::to_string(a->i()) : list_text(a->ints())),
                       fmt::format("expected {} from {} to {}", single ? "an integer" : "integers",
                                   lowest, highest));
            }
        }
    };
    // Operand `index` when its values are known: an initializer, a Constant or a folded node.
    const auto operand = [&](int index) -> const ConstTensor* {
        return index < node.input_size() && !node.input(index).empty()
                   ? checkable_values(node.input(index))
                   : nullptr;
    };
    const auto operand_text = [&](int index, const char* role, const ConstTensor& c) {
        return c.is_int ? fmt::format("{} '{}' {}", role, node.input(index), list_text(c.ints))
                        : fmt::format("{} '{}' {}", role, node.input(index), list_text(c.reals));
    };
    // Dimensions given as values (Reshape's target, Expand's, ConstantOfShape's, Tile's
    // repeats): each at least `lowest`, and the positive ones at most 2^50 elements together.
    const auto dims_within = [&](const std::string& what, const std::vector<std::int64_t>& values,
                                 std::int64_t lowest, const std::string& accepted) {
        std::int64_t product = 1;
        for (const std::int64_t v : values) {
            if (v < lowest)
                refuse(what, accepted);
            if (v > 0) {
                if (product > kMaxTensorElements / v)
                    refuse(what, accepted + ", at most 2^50 elements in all (hetsim's limit)");
                product *= v;
            }
        }
    };

    if (is_window_op(op)) {
        attribute_within("strides", 1, kMaxWindowValue);
        attribute_within("dilations", 1, kMaxWindowValue);
        attribute_within("kernel_shape", 1, kMaxWindowValue);
        attribute_within("pads", 0, kMaxWindowValue);
        attribute_within("output_padding", 0, kMaxWindowValue);
        attribute_within("output_shape", 0, kMaxTensorElements);
        attribute_within("ceil_mode", 0, 1);
        if (const auto* a = find_attr(node, "auto_pad")) {
            const std::string& pad = a->s();
            if (pad != "NOTSET" && pad != "SAME_UPPER" && pad != "SAME_LOWER" && pad != "VALID") {
                refuse(fmt::format("attribute 'auto_pad' {}", quoted(pad)),
                       "expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
            }
        }
        const int w = weight_input(op);
        if (w < 0)
            return;
        attribute_within("group", 1, kMaxWindowValue);
        // At least 1 also when the attribute is not an INT (the checker compares types only for
        // the schemas it knows): it divides below.
        const std::int64_t group = std::max<std::int64_t>(1, attr_int(node, "group", 1));
        const bool transposed = op == "ConvTranspose";
        const auto weight =
            w < node.input_size() ? known_shape(node.input(w)) : std::optional<Shape>();
        if (!weight)
            return;
        const std::string weight_text =
            fmt::format("weight '{}' of shape {}", node.input(w), sim::to_string(*weight));
        if (weight->size() < 3) {
            refuse(weight_text, transposed ? "expected [C, M/group, k1, ...], rank 3 or more"
                                           : "expected [M, C/group, k1, ...], rank 3 or more");
        }
        if ((*weight)[0] % group != 0) {
            refuse(fmt::format("attribute 'group' {}", group),
                   fmt::format("expected a divisor of the {} {} channels of {}", (*weight)[0],
                               transposed ? "input" : "output", weight_text));
        }
        const auto input = known_shape(node.input(0));
        if (!input)
            return;
        const std::string input_text =
            fmt::format("input '{}' of shape {}", node.input(0), sim::to_string(*input));
        if (input->size() != weight->size())
            refuse(fmt::format("{} and {}", input_text, weight_text),
                   "expected a weight of the input's rank");
        const std::int64_t channels = (*input)[1];
        const bool fits = transposed ? channels == (*weight)[0]
                                     : channels % group == 0 && channels / group == (*weight)[1];
        if (!fits) {
            refuse(fmt::format("attribute 'group' {} with {}", group, weight_text),
                   transposed ? fmt::format("expected {} input channels, {} has {}", (*weight)[0],
                                            input_text, channels)
                              : fmt::format("expected group x {} input channels, {} has {}",
                                            (*weight)[1], input_text, channels));
        }
        return;
    }
    if (op == "DepthToSpace" || op == "SpaceToDepth") {
        attribute_within("blocksize", 1, kMaxWindowValue);
        return;
    }
    if (op == "Reshape") {
        const auto check = [&](const std::string& what, const std::vector<std::int64_t>& dims) {
            const std::string accepted =
                "expected dimensions >= 1, 0 (the input's dimension) or one -1 (inferred)";
            if (std::count(dims.begin(), dims.end(), -1) > 1)
                refuse(what, accepted);
            dims_within(what, dims, -1, accepted);
        };
        if (const auto* a = find_attr(node, "shape"))
            check(fmt::format("attribute 'shape' {}", list_text(a->ints())),
                  {a->ints().begin(), a->ints().end()});
        else if (const ConstTensor* c = operand(1))
            check(operand_text(1, "shape", *c), c->as_ints());
        return;
    }
    if (op == "Expand" || op == "Tile" || op == "ConstantOfShape") {
        const int index = op == "ConstantOfShape" ? 0 : 1;
        const char* role = op == "Tile" ? "repeats" : "shape";
        if (const ConstTensor* c = operand(index)) {
            dims_within(operand_text(index, role, *c), c->as_ints(), 0,
                        op == "Tile" ? "expected repeats >= 0" : "expected dimensions >= 0");
        }
        return;
    }
    if (op == "Split" || op == "SplitToSequence") {
        std::string what;
        std::vector<std::int64_t> sizes;
        bool scalar = false;
        if (const auto* a = find_attr(node, "split")) {
            what = fmt::format("attribute 'split' {}", list_text(a->ints()));
            sizes.assign(a->ints().begin(), a->ints().end());
        } else if (const ConstTensor* c = operand(1)) {
            what = operand_text(1, "split", *c);
            sizes = c->as_ints();
            scalar = c->shape.empty();
        }
        if (what.empty())
            return;
        // SplitToSequence's scalar split is a chunk size, which ONNX divides by.
        const std::int64_t lowest = scalar ? 1 : 0;
        if (std::any_of(sizes.begin(), sizes.end(), [&](std::int64_t v) { return v < lowest; }))
            refuse(what, scalar ? "expected a chunk size >= 1" : "expected sizes >= 0");
        if (op == "Split" && static_cast<int>(sizes.size()) != node.output_size())
            refuse(what, fmt::format("expected {} sizes, one per output", node.output_size()));
        return;
    }
    if (op == "Gather") {
        const auto data = known_shape(node.input(0));
        if (!data)
            return;
        const std::string data_text =
            fmt::format("data '{}' of shape {}", node.input(0), sim::to_string(*data));
        const auto rank = static_cast<std::int64_t>(data->size());
        if (rank == 0)
            refuse(data_text, "expected a tensor of rank 1 or more");
        const std::int64_t axis = attr_int(node, "axis", 0);
        if (axis < -rank || axis >= rank) {
            refuse(
                fmt::format("attribute 'axis' {}", axis),
                fmt::format("expected an axis of {}, from {} to {}", data_text, -rank, rank - 1));
        }
        const std::int64_t dim = (*data)[static_cast<std::size_t>(normalize_axis(axis, rank))];
        if (const ConstTensor* indices = operand(1)) {
            for (std::int64_t i = 0; i < indices->elements(); ++i) {
                const std::int64_t index = indices->int_at(i);
                if (index < -dim || index >= dim) {
                    refuse(fmt::format("indices '{}' hold {}", node.input(1), index),
                           fmt::format("expected indices from {} to {} into axis {} of {}", -dim,
                                       dim - 1, axis, data_text));
                }
            }
        }
        return;
    }
    if (op == "Slice") {
        // ONNX propagates a Slice of a shape with an int loop counter: a step past int32 never
        // reaches the end.
        if (const ConstTensor* steps = operand(4)) {
            for (const std::int64_t step : steps->as_ints()) {
                if (step == 0 || step < -kMaxWindowValue || step > kMaxWindowValue) {
                    refuse(operand_text(4, "steps", *steps),
                           fmt::format("expected non-zero steps from {} to {}", -kMaxWindowValue,
                                       kMaxWindowValue));
                }
            }
        }
        return;
    }
    if (op == "Range") {
        const std::array<const char*, 3> roles{"start", "limit", "delta"};
        std::array<const ConstTensor*, 3> values{};
        for (int i = 0; i < 3; ++i) {
            values[static_cast<std::size_t>(i)] = operand(i);
            const ConstTensor* c = values[static_cast<std::size_t>(i)];
            if (c != nullptr && c->elements() != 1) {
                refuse(fmt::format("{} '{}' of shape {}", roles[static_cast<std::size_t>(i)],
                                   node.input(i), sim::to_string(c->shape)),
                       "expected a scalar");
            }
        }
        if (values[0] == nullptr || values[1] == nullptr || values[2] == nullptr)
            return;
        const double start = values[0]->at(0);
        const double limit = values[1]->at(0);
        const double delta = values[2]->at(0);
        const double count = std::ceil((limit - start) / delta);
        if (delta == 0.0 || !std::isfinite(delta) || !(count <= kMaxTensorElements)) {
            refuse(fmt::format("start {:g}, limit {:g}, delta {:g}", start, limit, delta),
                   "expected a non-zero finite delta and at most 2^50 elements (hetsim's limit)");
        }
        return;
    }
    if (op == "Resize" || op == "Upsample") {
        std::vector<double> scales;
        std::string what;
        const int scales_input = op == "Upsample" || opset_ < 11 ? 1 : 2;
        if (const auto* a = find_attr(node, "scales")) {
            scales.assign(a->floats().begin(), a->floats().end());
            what = fmt::format("attribute 'scales' {}", list_text(a->floats()));
        } else if (const ConstTensor* c = operand(scales_input)) {
            for (std::int64_t i = 0; i < c->elements(); ++i)
                scales.push_back(c->at(i));
            what = operand_text(scales_input, "scales", *c);
        }
        for (const double scale : scales) {
            if (!(scale > 0.0 && scale <= static_cast<double>(kMaxWindowValue)))
                refuse(what, fmt::format("expected scales above 0, at most {}", kMaxWindowValue));
        }
        if (op == "Resize" && opset_ >= 11) {
            if (const ConstTensor* sizes = operand(3))
                dims_within(operand_text(3, "sizes", *sizes), sizes->as_ints(), 0,
                            "expected sizes >= 0");
        }
        return;
    }
    if (op == "Pad") {
        std::string what;
        std::vector<std::int64_t> pads;
        if (const auto* a = find_attr(node, "pads")) {
            what = fmt::format("attribute 'pads' {}", list_text(a->ints()));
            pads.assign(a->ints().begin(), a->ints().end());
        } else if (const ConstTensor* c = operand(1)) {
            what = operand_text(1, "pads", *c);
            pads = c->as_ints();
        }
        for (const std::int64_t pad : pads) {
            if (pad < -kMaxTensorElements || pad > kMaxTensorElements)
                refuse(what, "expected pads from -2^50 to 2^50");
        }
        return;
    }
    if (op == "Transpose") {
        if (const auto* a = find_attr(node, "perm")) {
            const auto n = static_cast<std::int64_t>(a->ints_size());
            std::vector<bool> seen(static_cast<std::size_t>(n), false);
            for (const std::int64_t p : a->ints()) {
                if (p < 0 || p >= n || seen[static_cast<std::size_t>(p)]) {
                    refuse(fmt::format("attribute 'perm' {}", list_text(a->ints())),
                           fmt::format("expected a permutation of 0 to {}", n - 1));
                }
                seen[static_cast<std::size_t>(p)] = true;
            }
        }
        return;
    }
    if (op == "Einsum") {
        const auto* a = find_attr(node, "equation");
        std::string equation = a != nullptr ? a->s() : std::string();
        equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
        const auto arrow = equation.find("->");
        const std::string lhs = equation.substr(0, arrow);
        const std::string rhs = arrow == std::string::npos ? "" : equation.substr(arrow + 2);
        // Without "->" ONNX counts each lowercase letter in an array of 26: anything else
        // indexes outside it.
        const auto only = [](const std::string& part, bool upper, bool comma) {
            return std::all_of(part.begin(), part.end(), [&](char c) {
                return (c >= 'a' && c <= 'z') || (upper && c >= 'A' && c <= 'Z') || c == '.' ||
                       (comma && c == ',');
            });
        };
        if (!only(lhs, arrow != std::string::npos, true) || !only(rhs, true, false)) {
            refuse(fmt::format("attribute 'equation' {}", quoted(a != nullptr ? a->s() : "")),
                   "expected letters, ',' between operands, '...' and at most one '->' (lowercase "
                   "letters only without '->')");
        }
        return;
    }
}

// ONNX's inference of a window op reads more than the attributes say in two cases, which are
// rewritten for the inference only (`originals` restores them; hetsim's graph keeps the file's
// attributes):
//  - SAME padding with a stride > 1: ONNX counts the input size down one stride at a time (an
//    input of 2^40 takes hours); a 1-wide unpadded window gives the same ceil(input / stride);
//  - a weight without kernel_shape: ONNX takes the kernel from the weight without comparing its
//    rank with the input's, and reads past the shape when they differ; as an attribute it is
//    compared. A weight whose shape is not known yet holds the node back from inference
//    (returns true): it joins once inference has given the weight a shape that check_node
//    accepts.
bool Importer::prepare_for_inference(
    onnx::NodeProto& node,
    std::vector<std::pair<onnx::NodeProto*, onnx::NodeProto>>& originals) const {
    if ((!node.domain().empty() && node.domain() != "ai.onnx") || !is_window_op(node.op_type()))
        return false;
    const auto set_ints = [&](const char* name, const std::vector<std::int64_t>& values) {
        auto* a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (const std::int64_t v : values)
            a->add_ints(v);
    };
    const auto drop = [&](const std::set<std::string>& names) {
        auto* attributes = node.mutable_attribute();
        for (int i = attributes->size(); i-- > 0;) {
            if (names.count(attributes->Get(i).name()) != 0)
                attributes->DeleteSubrange(i, 1);
        }
    };
    const auto* auto_pad = find_attr(node, "auto_pad");
    const auto* strides = find_attr(node, "strides");
    const bool same =
        auto_pad != nullptr && (auto_pad->s() == "SAME_UPPER" || auto_pad->s() == "SAME_LOWER");
    const bool strided =
        strides != nullptr && std::any_of(strides->ints().begin(), strides->ints().end(),
                                          [](std::int64_t s) { return s > 1; });
    if (same && strided && node.op_type() != "ConvTranspose") {
        originals.emplace_back(&node, node);
        const std::vector<std::int64_t> ones(static_cast<std::size_t>(strides->ints_size()), 1);
        drop({"auto_pad", "pads", "dilations", "ceil_mode", "kernel_shape"});
        set_ints("kernel_shape", ones);
        return false;
    }
    const int w = weight_input(node.op_type());
    if (w < 0 || find_attr(node, "kernel_shape") != nullptr)
        return false;
    const auto weight = w < node.input_size() ? known_shape(node.input(w)) : std::optional<Shape>();
    originals.emplace_back(&node, node);
    if (weight && weight->size() >= 3) {
        set_ints("kernel_shape", Shape(weight->begin() + 2, weight->end()));
        return false;
    }
    node.set_op_type(kHeldBackOpType);
    return true;
}

std::optional<ConstTensor> Importer::evaluate(const onnx::NodeProto& node) const {
    const std::string& op = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx")
        return std::nullopt;
    // Operand i with known values, or nullptr (also for an absent optional input).
    auto in = [&](int i) -> const ConstTensor* {
        if (i >= node.input_size() || node.input(i).empty())
            return nullptr;
        return known_values(node.input(i));
    };
    auto all_inputs_known = [&] {
        for (const auto& name : node.input()) {
            if (!name.empty() && known_values(name) == nullptr)
                return false;
        }
        return true;
    };
    using TP = onnx::TensorProto;

    if (op == "Constant") {
        if (const auto* a = find_attr(node, "value")) {
            return read_tensor(a->t(), true);
        }
        // value_int / value_float are rank 0, value_ints / value_floats rank 1.
        auto listed = [](std::int32_t type, const auto& values, bool scalar) {
            ConstTensor c = make_result(
                type, scalar ? Shape{} : Shape{static_cast<std::int64_t>(values.size())});
            if (c.is_int)
                c.ints.assign(values.begin(), values.end());
            else
                c.reals.assign(values.begin(), values.end());
            return c;
        };
        if (const auto* a = find_attr(node, "value_int"))
            return listed(TP::INT64, std::vector<std::int64_t>{a->i()}, true);
        if (const auto* a = find_attr(node, "value_ints"))
            return listed(TP::INT64, a->ints(), false);
        if (const auto* a = find_attr(node, "value_float"))
            return listed(TP::FLOAT, std::vector<double>{a->f()}, true);
        if (const auto* a = find_attr(node, "value_floats"))
            return listed(TP::FLOAT, a->floats(), false);
        return std::nullopt;
    }
    if (op == "Shape" || op == "Size") {
        auto it = types_.find(node.input(0));
        const ConstTensor* c = known(node.input(0));
        std::optional<Shape> shape;
        if (c != nullptr)
            shape = c->shape;
        else if (it != types_.end())
            shape = static_shape(it->second);
        if (!shape)
            return std::nullopt;
        if (op == "Size") {
            ConstTensor r = make_result(TP::INT64, {});
            r.ints.push_back(elements_of(*shape));
            return r;
        }
        const auto rank = static_cast<std::int64_t>(shape->size());
        std::int64_t start =
            std::clamp<std::int64_t>(normalize_axis(attr_int(node, "start", 0), rank), 0, rank);
        std::int64_t end =
            std::clamp<std::int64_t>(normalize_axis(attr_int(node, "end", rank), rank), 0, rank);
        ConstTensor r = make_result(TP::INT64, {std::max<std::int64_t>(0, end - start)});
        for (std::int64_t i = start; i < end; ++i)
            r.ints.push_back((*shape)[static_cast<std::size_t>(i)]);
        return r;
    }
    if (!all_inputs_known())
        return std::nullopt;
    const ConstTensor* x = in(0);

    if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
        op == "Flatten") {
        if (x == nullptr)
            return std::nullopt;
        // Values are unchanged; the output shape is what inference says (the lifted form is
        // checked by Graph::finalize), or computed here for the common forms.
        ConstTensor r = *x;
        auto it = types_.find(node.output(0));
        std::optional<Shape> out = it != types_.end() ? static_shape(it->second) : std::nullopt;
        if (!out && op == "Reshape" && in(1) != nullptr) {
            Shape target = in(1)->as_ints();
            std::int64_t known_product = 1;
            int infer_at = -1;
            for (std::size_t i = 0; i < target.size(); ++i) {
                if (target[i] == 0 && i < x->shape.size())
                    target[i] = x->shape[i];
                if (target[i] == -1)
                    infer_at = static_cast<int>(i);
                else
                    known_product *= target[i];
            }
            if (infer_at >= 0 && known_product > 0)
                target[static_cast<std::size_t>(infer_at)] = x->elements() / known_product;
            out = target;
        }
        if (!out && (op == "Unsqueeze" || op == "Squeeze")) {
            std::vector<std::int64_t> axes;
            if (const auto* a = find_attr(node, "axes"))
                axes.assign(a->ints().begin(), a->ints().end());
            else if (in(1) != nullptr)
                axes = in(1)->as_ints();
            Shape s = x->shape;
            if (op == "Unsqueeze") {
                const auto rank = static_cast<std::int64_t>(s.size() + axes.size());
                for (auto& a : axes)
                    a = normalize_axis(a, rank);
                std::sort(axes.begin(), axes.end());
                for (auto a : axes) {
                    // An axis past the output's rank is the model's error, which ONNX's
                    // inference and Graph::finalize name; it is not folded.
                    if (a < 0 || a > static_cast<std::int64_t>(s.size()))
                        return std::nullopt;
                    s.insert(s.begin() + a, 1);
                }
            } else {
                Shape kept;
                for (std::size_t i = 0; i < s.size(); ++i) {
                    const bool drop =
                        axes.empty()
                            ? s[i] == 1
                            : std::find_if(axes.begin(), axes.end(), [&](auto a) {
                                  return normalize_axis(a, static_cast<std::int64_t>(s.size())) ==
                                         static_cast<std::int64_t>(i);
                              }) != axes.end();
                    if (!drop)
                        kept.push_back(s[i]);
                }
                s = kept;
            }
            out = s;
        }
        if (!out || elements_of(*out) != x->elements())
            return std::nullopt;
        r.shape = *out;
        return r;
    }
    if (op == "Cast") {
        if (x == nullptr)
            return std::nullopt;
        const auto to = static_cast<std::int32_t>(attr_int(node, "to", TP::FLOAT));
        ConstTensor r = make_result(to, x->shape);
        for (std::int64_t i = 0; i < x->elements(); ++i)
            push(r, to == TP::BOOL ? (x->at(i) != 0.0 ? 1.0 : 0.0) : x->at(i));
        return r;
    }
    if (op == "Gather") {
        const ConstTensor* idx = in(1);
        if (x == nullptr || idx == nullptr || x->shape.empty())
            return std::nullopt;
        const auto rank = static_cast<std::int64_t>(x->shape.size());
        const std::int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
        if (axis < 0 || axis >= rank)
            return std::nullopt;
        Shape out(x->shape.begin(), x->shape.begin() + axis);
        out.insert(out.end(), idx->shape.begin(), idx->shape.end());
        out.insert(out.end(), x->shape.begin() + axis + 1, x->shape.end());
        if (elements_of(out) > kMaxFoldedElements)
            return std::nullopt;
        std::int64_t outer = 1;
        for (std::int64_t i = 0; i < axis; ++i)
            outer *= x->shape[static_cast<std::size_t>(i)];
        std::int64_t inner = 1;
        for (std::int64_t i = axis + 1; i < rank; ++i)
            inner *= x->shape[static_cast<std::size_t>(i)];
        const std::int64_t dim = x->shape[static_cast<std::size_t>(axis)];
        ConstTensor r = make_result(x->elem_type, out);
        for (std::int64_t o = 0; o < outer; ++o) {
            for (std::int64_t k = 0; k < idx->elements(); ++k) {
                std::int64_t j = idx->int_at(k);
                if (j < 0)
                    j += dim;
                if (j < 0 || j >= dim)
                    return std::nullopt;
                for (std::int64_t i = 0; i < inner; ++i)
                    push_from(r, *x, (o * dim + j) * inner + i);
            }
        }
        return r;
    }
    if (op == "Concat") {
        std::vector<const ConstTensor*> parts;
        for (int i = 0; i < node.input_size(); ++i) {
            if (in(i) == nullptr)
                return std::nullopt;
            parts.push_back(in(i));
        }
        if (parts.empty() || parts[0]->shape.empty())
            return std::nullopt;
        const auto rank = static_cast<std::int64_t>(parts[0]->shape.size());
        const std::int64_t axis = normalize_axis(attr_int(node, "axis", 0), rank);
        if (axis < 0 || axis >= rank)
            return std::nullopt;
        Shape out = parts[0]->shape;
        out[static_cast<std::size_t>(axis)] = 0;
        for (const auto* p : parts) {
            if (static_cast<std::int64_t>(p->shape.size()) != rank)
                return std::nullopt;
            out[static_cast<std::size_t>(axis)] += p->shape[static_cast<std::size_t>(axis)];
        }
        if (elements_of(out) > kMaxFoldedElements)
            return std::nullopt;
        std::int64_t outer = 1;
        for (std::int64_t i = 0; i < axis; ++i)
            outer *= out[static_cast<std::size_t>(i)];
        ConstTensor r = make_result(parts[0]->elem_type, out);
        for (std::int64_t o = 0; o < outer; ++o) {
            for (const auto* p : parts) {
                const std::int64_t block = o == 0 && outer == 0 ? 0 : p->elements() / outer;
                for (std::int64_t i = 0; i < block; ++i)
                    push_from(r, *p, o * block + i);
            }
        }
        return r;
    }
    if (op == "Slice") {
        // ONNX Slice (opset 10+): per listed axis, start/end clamped to the dimension, any
        // non-zero step; every output element copied from its source coordinate.
        if (x == nullptr || x->shape.empty() || in(1) == nullptr || in(2) == nullptr)
            return std::nullopt;
        const auto rank = static_cast<std::int64_t>(x->shape.size());
        const auto starts = in(1)->as_ints();
        const auto ends = in(2)->as_ints();
        std::vector<std::int64_t> axes;
        if (in(3) != nullptr) {
            axes = in(3)->as_ints();
        } else {
            for (std::size_t i = 0; i < starts.size(); ++i)
                axes.push_back(static_cast<std::int64_t>(i));
        }
        const auto steps =
            in(4) != nullptr ? in(4)->as_ints() : std::vector<std::int64_t>(starts.size(), 1);
        if (ends.size() != starts.size() || axes.size() != starts.size() ||
            steps.size() != starts.size())
            return std::nullopt;
        std::vector<std::int64_t> first(x->shape.size(), 0);
        std::vector<std::int64_t> step(x->shape.size(), 1);
        Shape out = x->shape;
        for (std::size_t k = 0; k < starts.size(); ++k) {
            const std::int64_t axis = normalize_axis(axes[k], rank);
            if (axis < 0 || axis >= rank || steps[k] == 0)
                return std::nullopt;
            const auto ax = static_cast<std::size_t>(axis);
            const std::int64_t dim = x->shape[ax];
            std::int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
            std::int64_t end = ends[k] < 0 ? ends[k] + dim : ends[k];
            std::int64_t count = 0;
            if (steps[k] > 0) {
                start = std::clamp<std::int64_t>(start, 0, dim);
                end = std::clamp<std::int64_t>(end, 0, dim);
                count = end > start ? (end - start + steps[k] - 1) / steps[k] : 0;
            } else {
                start = std::clamp<std::int64_t>(start, -1, dim - 1);
                end = std::clamp<std::int64_t>(end, -1, dim - 1);
                count = start > end ? (start - end - steps[k] - 1) / -steps[k] : 0;
            }
            first[ax] = start;
            step[ax] = steps[k];
            out[ax] = count;
        }
        if (elements_of(out) > kMaxFoldedElements)
            return std::nullopt;
        ConstTensor r = make_result(x->elem_type, out);
        const auto out_strides = strides_of(out);
        const auto in_strides = strides_of(x->shape);
        for (std::int64_t flat = 0; flat < elements_of(out); ++flat) {
            std::int64_t src = 0;
            for (std::size_t i = 0; i < out.size(); ++i) {
                const std::int64_t coord = (flat / out_strides[i]) % out[i];
                src += (first[i] + coord * step[i]) * in_strides[i];
            }
            push_from(r, *x, src);
        }
        return r;
    }
    static const std::set<std::string> binary{"Add",  "Sub",     "Mul", "Div", "Equal",
                                              "Less", "Greater", "Max", "Min", "Where",
                                              "Mod",  "And",     "Or",  "Pow"};
    if (binary.count(op) != 0) {
        std::vector<const ConstTensor*> operands;
        for (int i = 0; i < node.input_size(); ++i) {
            if (in(i) == nullptr)
                return std::nullopt;
            operands.push_back(in(i));
        }
        if (operands.size() != (op == "Where" ? 3U : 2U))
            return std::nullopt;
        const auto out = broadcast(operands);
        if (!out || elements_of(*out) > kMaxFoldedElements)
            return std::nullopt;
        const bool logical =
            op == "Equal" || op == "Less" || op == "Greater" || op == "And" || op == "Or";
        const ConstTensor& value_type = op == "Where" ? *operands[1] : *operands[0];
        ConstTensor r = make_result(logical ? TP::BOOL : value_type.elem_type, *out);
        const bool integer = !logical && r.is_int;
        for (std::int64_t i = 0; i < elements_of(*out); ++i) {
            if (op == "Where") {
                const bool cond = operands[0]->at(broadcast_index(*operands[0], *out, i)) != 0.0;
                const ConstTensor& pick = cond ? *operands[1] : *operands[2];
                push_from(r, pick, broadcast_index(pick, *out, i));
                continue;
            }
            const std::int64_t ia = broadcast_index(*operands[0], *out, i);
            const std::int64_t ib = broadcast_index(*operands[1], *out, i);
            if (integer && operands[0]->is_int && operands[1]->is_int) {
                const std::int64_t a = operands[0]->ints[static_cast<std::size_t>(ia)];
                const std::int64_t b = operands[1]->ints[static_cast<std::size_t>(ib)];
                std::int64_t v = 0;
                if (op == "Add")
                    v = a + b;
                else if (op == "Sub")
                    v = a - b;
                else if (op == "Mul")
                    v = a * b;
                else if (op == "Div" || op == "Mod") {
                    if (b == 0)
                        return std::nullopt;
                    v = op == "Div" ? a / b : a % b;
                } else if (op == "Max")
                    v = std::max(a, b);
                else if (op == "Min")
                    v = std::min(a, b);
                else
                    return std::nullopt;
                r.ints.push_back(v);
                continue;
            }
            const double a = operands[0]->at(ia);
            const double b = operands[1]->at(ib);
            double v = 0.0;
            if (op == "Add")
                v = a + b;
            else if (op == "Sub")
                v = a - b;
            else if (op == "Mul")
                v = a * b;
            else if (op == "Div")
                v = a / b;
            else if (op == "Pow")
                v = std::pow(a, b);
            else if (op == "Max")
                v = std::max(a, b);
            else if (op == "Min")
                v = std::min(a, b);
            else if (op == "Equal")
                v = a == b ? 1.0 : 0.0;
            else if (op == "Less")
                v = a < b ? 1.0 : 0.0;
            else if (op == "Greater")
                v = a > b ? 1.0 : 0.0;
            else if (op == "And")
                v = (a != 0.0 && b != 0.0) ? 1.0 : 0.0;
            else if (op == "Or")
                v = (a != 0.0 || b != 0.0) ? 1.0 : 0.0;
            else
                return std::nullopt;
            push(r, v);
        }
        return r;
    }
    if (op == "Neg" || op == "Abs" || op == "Sqrt" || op == "Floor" || op == "Ceil" ||
        op == "Not") {
        if (x == nullptr)
            return std::nullopt;
        ConstTensor r = make_result(x->elem_type, x->shape);
        for (std::int64_t i = 0; i < x->elements(); ++i) {
            const double a = x->at(i);
            if (op == "Neg")
                push(r, -a);
            else if (op == "Abs")
                push(r, std::abs(a));
            else if (op == "Sqrt")
                push(r, std::sqrt(a));
            else if (op == "Floor")
                push(r, std::floor(a));
            else if (op == "Ceil")
                push(r, std::ceil(a));
            else
                push(r, a != 0.0 ? 0.0 : 1.0);
        }
        return r;
    }
    if (op == "ConstantOfShape") {
        if (x == nullptr)
            return std::nullopt;
        const Shape out = x->as_ints();
        if (elements_of(out) > kMaxFoldedElements)
            return std::nullopt;
        ConstTensor fill = make_result(TP::FLOAT, {1});
        fill.reals.push_back(0.0);
        if (const auto* a = find_attr(node, "value")) {
            if (ConstTensor v = read_tensor(a->t(), true); v.has_values && v.elements() == 1)
                fill = std::move(v);
        }
        ConstTensor r = make_result(fill.elem_type, out);
        for (std::int64_t i = 0; i < elements_of(out); ++i)
            push_from(r, fill, 0);
        return r;
    }
    if (op == "Range") {
        if (x == nullptr || in(1) == nullptr || in(2) == nullptr || x->elements() != 1 ||
            in(1)->elements() != 1 || in(2)->elements() != 1)
            return std::nullopt;
        const double start = x->at(0);
        const double limit = in(1)->at(0);
        const double delta = in(2)->at(0);
        if (delta == 0.0)
            return std::nullopt;
        // Compared as a double: a count past int64 (a tiny delta) must not be converted.
        const double count = std::max(0.0, std::ceil((limit - start) / delta));
        if (!(count <= static_cast<double>(kMaxFoldedElements)))
            return std::nullopt;
        const auto n = static_cast<std::int64_t>(count);
        ConstTensor r = make_result(x->elem_type, {n});
        for (std::int64_t i = 0; i < n; ++i)
            push(r, start + static_cast<double>(i) * delta);
        return r;
    }
    if (op == "Transpose") {
        if (x == nullptr || elements_of(x->shape) > kMaxFoldedElements)
            return std::nullopt;
        const std::size_t rank = x->shape.size();
        std::vector<std::int64_t> perm;
        if (const auto* a = find_attr(node, "perm"))
            perm.assign(a->ints().begin(), a->ints().end());
        if (perm.empty()) {
            for (std::size_t i = rank; i-- > 0;)
                perm.push_back(static_cast<std::int64_t>(i));
        }
        if (perm.size() != rank)
            return std::nullopt;
        std::vector<bool> seen(rank, false);
        for (const std::int64_t p : perm) {
            if (p < 0 || p >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(p)])
                return std::nullopt;  // not a permutation: ONNX and Graph::finalize name it
            seen[static_cast<std::size_t>(p)] = true;
        }
        Shape out(rank);
        for (std::size_t i = 0; i < rank; ++i)
            out[i] = x->shape[static_cast<std::size_t>(perm[i])];
        const auto out_strides = strides_of(out);
        const auto in_strides = strides_of(x->shape);
        ConstTensor r = make_result(x->elem_type, out);
        for (std::int64_t flat = 0; flat < x->elements(); ++flat) {
            std::int64_t src = 0;
            for (std::size_t i = 0; i < rank; ++i) {
                const std::int64_t coord = (flat / out_strides[i]) % out[i];
                src += coord * in_strides[static_cast<std::size_t>(perm[i])];
            }
            push_from(r, *x, src);
        }
        return r;
    }
    if (op == "Expand") {
        if (x == nullptr || in(1) == nullptr)
            return std::nullopt;
        ConstTensor target = make_result(x->elem_type, in(1)->as_ints());
        const auto out = broadcast({x, &target});
        if (!out || elements_of(*out) > kMaxFoldedElements)
            return std::nullopt;
        ConstTensor r = make_result(x->elem_type, *out);
        for (std::int64_t i = 0; i < elements_of(*out); ++i)
            push_from(r, *x, broadcast_index(*x, *out, i));
        return r;
    }
    return std::nullopt;
}

// One pass of constant folding over the nodes in file order (ONNX requires topological
// order). Folded nodes leave the graph; their outputs become initializers so that the next
// shape inference sees them as constants (Reshape's target shape, for instance).
bool Importer::fold_pass() {
    auto* g = model_.mutable_graph();
    std::unordered_set<std::string> graph_outputs;
    for (const auto& o : g->output())
        graph_outputs.insert(o.name());
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    bool changed = false;
    for (auto& node : *g->mutable_node()) {
        bool folded = false;
        // A node whose single output is a graph output stays an op: the model computes it.
        if (node.output_size() == 1 && graph_outputs.count(node.output(0)) == 0) {
            // Its operands may have been folded earlier in this pass.
            check_node(node);
            if (auto value = evaluate(node)) {
                if (value->has_values && value->elements() <= kMaxFoldedElements) {
                    onnx::TensorProto* t = g->add_initializer();
                    t->set_name(node.output(0));
                    t->set_data_type(value->elem_type);
                    for (auto d : value->shape)
                        t->add_dims(d);
                    if (value->is_int) {
                        // int64_data holds every integer type but the 32-bit family, which
                        // ONNX keeps in int32_data.
                        const bool wide = value->elem_type == onnx::TensorProto::INT64 ||
                                          value->elem_type == onnx::TensorProto::UINT32 ||
                                          value->elem_type == onnx::TensorProto::UINT64;
                        for (auto v : value->ints) {
                            if (wide)
                                t->add_int64_data(v);
                            else
                                t->add_int32_data(static_cast<std::int32_t>(v));
                        }
                    } else if (value->elem_type == onnx::TensorProto::DOUBLE) {
                        for (auto v : value->reals)
                            t->add_double_data(v);
                    } else if (value->elem_type == onnx::TensorProto::FLOAT) {
                        for (auto v : value->reals)
                            t->add_float_data(static_cast<float>(v));
                    } else {
                        // A float16/bfloat16 constant: its values stay host-side only.
                        g->mutable_initializer()->RemoveLast();
                        t = nullptr;
                    }
                    if (t != nullptr) {
                        consts_[node.output(0)] = std::move(*value);
                        folded = true;
                    }
                } else if (node.op_type() == "Constant") {
                    // A large constant (a weight written as a Constant node): keep its shape,
                    // make it an initializer without evaluating its values.
                    if (const auto* a = find_attr(node, "value")) {
                        onnx::TensorProto* t = g->add_initializer();
                        *t = a->t();
                        t->set_name(node.output(0));
                        consts_[node.output(0)] = std::move(*value);
                        folded = true;
                    }
                }
            }
        }
        if (folded) {
            ++result_.folded_nodes;
            changed = true;
        } else {
            *kept.Add() = std::move(node);
        }
    }
    g->mutable_node()->Swap(&kept);
    return changed;
}

sim::Attributes Importer::convert_attributes(const onnx::NodeProto& node) const {
    sim::Attributes attrs;
    for (const auto& a : node.attribute()) {
        switch (a.type()) {
            case onnx::AttributeProto::INT:
                attrs[a.name()] = static_cast<std::int64_t>(a.i());
                break;
            case onnx::AttributeProto::FLOAT:
                attrs[a.name()] = static_cast<double>(a.f());
                break;
            case onnx::AttributeProto::STRING:
                attrs[a.name()] = a.s();
                break;
            case onnx::AttributeProto::INTS:
                attrs[a.name()] = std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
                break;
            case onnx::AttributeProto::FLOATS:
                attrs[a.name()] = std::vector<double>(a.floats().begin(), a.floats().end());
                break;
            default:
                // Tensor, graph and sparse attributes (a Constant's value, an If's branches)
                // carry no cost information hetsim reads.
                break;
        }
    }
    return attrs;
}

// Opset 13 moved these operands from attributes to inputs; hetsim's op table reads them as
// attributes (the opset-11 form), which lets Graph::finalize check ONNX's inferred shapes
// against hetsim's own formulas. A lifted operand is dropped from the op's inputs; it must
// be the op's last present input so that the positions of the others stay.
void Importer::lift_constant_operands(const onnx::NodeProto& node, sim::Attributes& attrs,
                                      std::vector<bool>& dropped) {
    struct Lift {
        std::string_view op;
        std::vector<std::pair<int, std::string_view>> operands;  // input index -> attribute
    };
    static const std::vector<Lift> lifts{
        {"Reshape", {{1, "shape"}}},
        {"Unsqueeze", {{1, "axes"}}},
        {"Squeeze", {{1, "axes"}}},
        {"Split", {{1, "split"}}},
        {"Slice", {{1, "starts"}, {2, "ends"}, {3, "axes"}, {4, "steps"}}},
        {"ReduceMean", {{1, "axes"}}},
        {"ReduceSum", {{1, "axes"}}},
        {"ReduceMax", {{1, "axes"}}},
        {"ReduceMin", {{1, "axes"}}},
        {"ReduceProd", {{1, "axes"}}},
        {"ReduceSumSquare", {{1, "axes"}}},
    };
    const auto it = std::find_if(lifts.begin(), lifts.end(),
                                 [&](const Lift& l) { return l.op == node.op_type(); });
    if (it == lifts.end())
        return;
    // All present operands of the lift must be known, else nothing is lifted.
    for (const auto& [index, attr] : it->operands) {
        if (index < node.input_size() && !node.input(index).empty() &&
            known_values(node.input(index)) == nullptr)
            return;
    }
    for (const auto& [index, attr] : it->operands) {
        if (index >= node.input_size() || node.input(index).empty())
            continue;
        attrs[std::string(attr)] = known_values(node.input(index))->as_ints();
        dropped[static_cast<std::size_t>(index)] = true;
        ++result_.lifted_operands;
    }
}

sim::Graph Importer::build_graph() {
    const auto& g = model_.graph();
    sim::Graph graph(fs::path(path_).stem().string());
    std::unordered_map<std::string, int> tensor_id;
    std::unordered_map<std::string, const onnx::TensorProto*> initializer;
    for (const auto& init : g.initializer())
        initializer[init.name()] = &init;

    auto dtype_of = [&](const std::string& name, std::int32_t elem_type, const std::string& node) {
        auto d = to_dtype(elem_type);
        if (!d) {
            fail(
                fmt::format("tensor '{}'{} has element type {}, which hetsim does not model "
                            "(float, float16, bfloat16, int64, int32, bool)",
                            name, node.empty() ? "" : fmt::format(" (node '{}')", node),
                            elem_type_name(elem_type)));
        }
        return *d;
    };
    for (const auto& input : g.input()) {
        if (graph_inputs_.count(input.name()) == 0)
            continue;
        const auto shape = static_shape(input.type());
        if (!shape)
            fail(fmt::format("input '{}' has no static shape", input.name()));
        tensor_id[input.name()] =
            graph.add_tensor(input.name(), *shape,
                             dtype_of(input.name(), input.type().tensor_type().elem_type(), ""),
                             sim::TensorKind::input);
    }
    // A weight (initializer or folded constant) becomes a tensor when an op first reads it.
    auto weight_tensor = [&](const std::string& name, const std::string& node) -> int {
        if (auto it = tensor_id.find(name); it != tensor_id.end())
            return it->second;
        Shape shape;
        std::int32_t elem_type = 0;
        if (auto it = initializer.find(name); it != initializer.end()) {
            shape.assign(it->second->dims().begin(), it->second->dims().end());
            elem_type = it->second->data_type();
        } else if (const ConstTensor* c = known(name)) {
            shape = c->shape;
            elem_type = c->elem_type;
        } else {
            return -1;
        }
        const int id =
            graph.add_tensor(name, shape, dtype_of(name, elem_type, node), sim::TensorKind::weight);
        tensor_id[name] = id;
        return id;
    };
    // ONNX marks an absent optional input with an empty name; a zero-element placeholder keeps
    // the positions of the inputs after it.
    int absent = -1;
    std::map<std::string, int> unknown;
    std::map<std::string, std::string> unknown_example;
    for (const auto& node : g.node()) {
        const std::string name = node.name().empty()
                                     ? fmt::format("{}_{}", node.op_type(), graph.op_count())
                                     : node.name();
        const bool known_type = (node.domain().empty() || node.domain() == "ai.onnx") &&
                                sim::find_op_info(node.op_type()) != nullptr;
        if (!known_type) {
            ++unknown[node.op_type()];
            unknown_example.emplace(node.op_type(), name);
        }
        sim::Attributes attrs = convert_attributes(node);
        std::vector<bool> dropped(static_cast<std::size_t>(node.input_size()), false);
        lift_constant_operands(node, attrs, dropped);
        std::vector<int> inputs;
        for (int i = 0; i < node.input_size(); ++i) {
            if (dropped[static_cast<std::size_t>(i)])
                continue;
            const std::string& in = node.input(i);
            if (in.empty()) {
                bool later = false;
                for (int j = i + 1; j < node.input_size(); ++j)
                    later =
                        later || (!node.input(j).empty() && !dropped[static_cast<std::size_t>(j)]);
                if (!later)
                    break;
                if (absent < 0)
                    absent =
                        graph.add_tensor("<absent>", {0}, sim::DType::f32, sim::TensorKind::weight);
                inputs.push_back(absent);
                continue;
            }
            int id = -1;
            if (auto it = tensor_id.find(in); it != tensor_id.end())
                id = it->second;
            else
                id = weight_tensor(in, name);
            if (id < 0)
                fail(
                    fmt::format("node '{}' ({}) reads '{}', which no node, input or "
                                "initializer defines",
                                name, node.op_type(), in));
            inputs.push_back(id);
        }
        // Output shapes: ONNX's inference, else hetsim's own formula for the op.
        std::optional<sim::Shapes> own;
        auto own_shapes = [&]() -> const std::optional<sim::Shapes>& {
            if (!own) {
                own.emplace();
                const sim::OpInfo* info = sim::find_op_info(node.op_type());
                if (info != nullptr && info->infer_shapes != nullptr) {
                    sim::Op probe;
                    probe.name = name;
                    probe.type = node.op_type();
                    probe.attrs = attrs;
                    sim::Shapes in_shapes;
                    for (int id : inputs)
                        in_shapes.push_back(graph.tensor(id).shape);
                    try {
                        if (auto s = info->infer_shapes(probe, in_shapes))
                            *own = *s;
                    } catch (const sim::GraphError&) {
                    }
                }
            }
            return own;
        };
        std::vector<int> outputs;
        for (int k = 0; k < node.output_size(); ++k) {
            std::string out = node.output(k);
            const bool unnamed = out.empty();
            if (unnamed) {
                bool later = false;
                for (int j = k + 1; j < node.output_size(); ++j)
                    later = later || !node.output(j).empty();
                if (!later)
                    break;
                out = fmt::format("{}/unused_output_{}", name, k);
            }
            std::optional<Shape> shape;
            std::int32_t elem_type = onnx::TensorProto::FLOAT;
            if (auto it = types_.find(out); it != types_.end() && !unnamed) {
                shape = static_shape(it->second);
                if (it->second.has_tensor_type() && it->second.tensor_type().elem_type() != 0)
                    elem_type = it->second.tensor_type().elem_type();
            }
            if (!shape && own_shapes() && static_cast<int>(own_shapes()->size()) > k)
                shape = (*own_shapes())[static_cast<std::size_t>(k)];
            if (!shape) {
                const auto it = types_.find(out);
                fail(fmt::format(
                    "cannot infer the shape of '{}', output {} of node '{}' ({}): dimension {} "
                    "is unknown{}",
                    out, k, name, node.op_type(),
                    it == types_.end() ? std::string("(no shape)") : first_unknown_dim(it->second),
                    known_type ? "" : "; hetsim does not know this op type either"));
            }
            if (tensor_id.count(out) != 0)
                fail(fmt::format("tensor '{}' is produced twice (node '{}')", out, name));
            const int id = graph.add_tensor(out, *shape, dtype_of(out, elem_type, name));
            tensor_id[out] = id;
            outputs.push_back(id);
        }
        try {
            graph.add_op(name, node.op_type(), inputs, outputs, attrs);
        } catch (const sim::GraphError& e) {
            fail(e.what());
        }
    }
    if (!unknown.empty()) {
        if (options_.unknown_ops == UnknownOps::error) {
            std::vector<std::string> listed;
            for (const auto& [type, count] : unknown)
                listed.push_back(fmt::format(
                    "'{}' (node '{}'{})", type, unknown_example[type],
                    count > 1 ? fmt::format(" and {} more", count - 1) : std::string()));
            fail(
                fmt::format("hetsim cannot cost op type {}; add it to the op table "
                            "(sim/op_table.cpp) or import with unknown_ops: zero-cost",
                            fmt::join(listed, ", ")));
        }
        result_.zero_cost_ops = unknown;
    }
    for (const auto& out : g.output()) {
        auto it = tensor_id.find(out.name());
        if (it != tensor_id.end() && graph.tensor(it->second).producer >= 0)
            graph.mark_output(it->second);
    }
    try {
        graph.finalize();
    } catch (const sim::GraphError& e) {
        fail(e.what());
    }
    return graph;
}

fs::path Importer::external_data_file(const std::string& location,
                                      const std::string& tensor) const {
    const fs::path folder =
        fs::path(path_).parent_path().empty() ? fs::path(".") : fs::path(path_).parent_path();
    const fs::path relative(location);
    const auto refuse = [&](const std::string& why) {
        fail(
            fmt::format("external data '{}' of tensor '{}' {}; it must be a file inside the "
                        "model's folder '{}'",
                        location, tensor, why, folder.string()));
    };
    if (location.empty())
        refuse("has no location");
    if (relative.is_absolute())
        refuse("is an absolute path");
    std::error_code ec;
    const fs::path root = fs::canonical(folder, ec);
    if (ec)
        refuse("cannot be resolved");
    const fs::path file = fs::canonical(folder / relative, ec);
    if (ec) {
        fail(fmt::format("external data '{}' of tensor '{}' cannot be opened",
                         (folder / relative).string(), tensor));
    }
    const fs::path inside = file.lexically_relative(root);
    if (inside.empty() || *inside.begin() == "..")
        refuse(fmt::format("resolves to '{}', outside the model's folder", file.string()));
    if (!fs::is_regular_file(file))
        refuse("is not a regular file");
    return file;
}

OnnxImportResult Importer::run() {
    parse();
    check_versions();
    bind_dims();
    load_initializer_values();
    // Inference and folding alternate until nothing more folds: a folded Reshape target lets
    // the next inference give static shapes further down, which lets more Shape nodes fold.
    infer_shapes();
    // Every round folds at least one node, so this ends; a chain of n dependent reshapes
    // (ShuffleNet's channel shuffles) takes n rounds.
    while (fold_pass())
        infer_shapes();
    result_.opset = opset_;
    result_.graph = build_graph();
    return std::move(result_);
}

}  // namespace

std::int64_t max_supported_opset() {
    const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = map.find(onnx::ONNX_DOMAIN);
    return it == map.end() ? 0 : it->second.second;
}

OnnxImportResult import_onnx(const std::string& path, const OnnxImportOptions& options) {
    return Importer(path, options).run();
}

}  // namespace hetsim::importers
