#include "placement/eop/eop_placer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

#include "placement/eop/analysis.hpp"
#include "placement/placer_args.hpp"
#include "sim/passes/passes.hpp"
#include "sim/passes/split.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::eop {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const char* mode_name(EopMode mode) {
    switch (mode) {
        case EopMode::eop:
            return "eop";
        case EopMode::equal:
            return "eop.equal";
        case EopMode::fixed:
            return "eop.fixed";
    }
    return "eop";
}

ArgumentSchema schema(EopMode mode) {
    ArgumentSchema s(mode_name(mode));
    s.number("key_share", 0.0, 1.0, "0.95",
             "key operators: the fewest ops (longest first on their faster device) that take "
             "this share of the time (§3.3: > 95 %); only they are split");
    s.choice("key_by", {"op", "type"}, "op",
             "key operators chosen op by op, or by op type (every op of the types that take "
             "key_share of the time, as Table 5 lists them)");
    if (mode == EopMode::eop) {
        s.choice("conditions", {"c1", "c2", "c3"}, "c3",
                 "§5.1: c1 balances each key op (Eq. 5, Eq. 3); c2 tunes adjacent pairs "
                 "(Algorithm 2) over every op, no key-operator selection; c3 both (EOP)");
        s.number("step", 0.001, 0.5, "0.01", "ratio grid (§3.2 Step 3: 0.01)");
        s.integer("samples", 3, 4096, "24",
                  "samples per op, dimension and device for the pattern fit (§3.2 Step 1)");
        s.text("dims", "batch+hw+hw1w2",
               "partition dimensions to consider, joined by '+' (Table 2)");
    } else {
        s.text("dims", "batch+hw+hw1w2",
               "the first of these the op can be split on is used ('+'-joined; Table 2)");
    }
    return s;
}

std::vector<sim::passes::SplitDim> parse_dims(const std::string& placer, const std::string& text) {
    std::vector<sim::passes::SplitDim> dims;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, '+')) {
        const auto dim = sim::passes::parse_split_dim(item);
        if (!dim) {
            throw PlacementError(fmt::format(
                "placer '{}': dims: '{}' is not batch, hw or hw1w2 (join them with '+')", placer,
                item));
        }
        // A dimension twice (`batch+batch`) was silently taken once.
        if (std::find(dims.begin(), dims.end(), *dim) != dims.end()) {
            throw PlacementError(
                fmt::format("placer '{}': dims: '{}' is listed twice", placer, item));
        }
        dims.push_back(*dim);
    }
    if (dims.empty())
        throw PlacementError(fmt::format("placer '{}': dims is empty", placer));
    return dims;
}

}  // namespace

// --- Eq. 2-5 and Algorithm 2 ------------------------------------------------------------------

std::int64_t SplitModel::part0_extent(double share) const {
    return sim::passes::first_part_extent(extent, share);
}

double SplitModel::time_s(double share) const {
    const std::int64_t n0 = part0_extent(share);
    if (n0 <= 0)
        return gpu_whole_s;
    if (n0 >= extent)
        return cpu_whole_s;
    return std::max(cpu_s(n0), gpu_s(extent - n0)) + cm_s(n0);
}

namespace {

// The grid 0, step, 2 step, ..., 1 (the last point exactly 1).
std::vector<double> share_grid(double step) {
    std::vector<double> grid;
    const auto points = static_cast<int>(std::llround(1.0 / step));
    for (int k = 0; k <= points; ++k)
        grid.push_back(std::min(1.0, k * step));
    if (grid.back() < 1.0)
        grid.push_back(1.0);
    return grid;
}

}  // namespace

double balance_share(const SplitModel& model, double step) {
    double best_share = -1.0, best_gap = kInf, best_time = kInf;
    for (double share : share_grid(step)) {
        const std::int64_t n0 = model.part0_extent(share);
        if (n0 <= 0 || n0 >= model.extent)
            continue;
        const double gap = std::abs(model.gpu_s(model.extent - n0) - model.cpu_s(n0));
        const double time = model.time_s(share);
        if (gap < best_gap || (gap == best_gap && time < best_time)) {
            best_share = share;
            best_gap = gap;
            best_time = time;
        }
    }
    // Eq. 3: split only when it beats the op unsplit.
    const double unsplit = std::min(model.cpu_whole_s, model.gpu_whole_s);
    if (best_share >= 0.0 && best_time < unsplit)
        return best_share;
    return model.cpu_whole_s < model.gpu_whole_s ? 1.0 : 0.0;
}

std::pair<double, double> tune_pair(const SplitModel& a, double share_a, const SplitModel& b,
                                    double share_b, double step) {
    std::pair<double, double> best{share_a, share_b};
    double best_time = a.time_s(share_a) + b.time_s(share_b);
    for (int direction : {+1, -1}) {
        for (int k = 1;; ++k) {
            const double sa = share_a + direction * k * step;
            const double sb = share_b - direction * k * step;
            if (sa < -1e-9 || sa > 1.0 + 1e-9 || sb < -1e-9 || sb > 1.0 + 1e-9)
                break;
            const double ca = std::clamp(sa, 0.0, 1.0), cb = std::clamp(sb, 0.0, 1.0);
            const double time = a.time_s(ca) + b.time_s(cb);
            if (time < best_time) {
                best_time = time;
                best = {ca, cb};
            }
        }
    }
    return best;
}

std::vector<double> tune_chain(const std::vector<const SplitModel*>& models,
                               std::vector<double> shares, double step) {
    for (std::size_t k = 1; k < models.size(); ++k) {
        if (models[k - 1] && models[k]) {
            std::tie(shares[k - 1], shares[k]) =
                tune_pair(*models[k - 1], shares[k - 1], *models[k], shares[k], step);
        }
    }
    return shares;
}

// --- AT (Eq. 4) -------------------------------------------------------------------------------

double at_seconds(const sim::Graph& original, const sim::Placement& placement,
                  const sim::Platform& platform) {
    const sim::Graph& graph = sim::placed_graph(original, placement);
    const int host = sim::first_device(platform, platform.host_component);
    std::map<std::string, std::vector<int>> groups;
    double total = 0.0;
    for (int o = 0; o < graph.op_count(); ++o) {
        const sim::Op& op = graph.op(o);
        if (const auto it = op.attrs.find("split_of"); it != op.attrs.end()) {
            groups[std::get<std::string>(it->second)].push_back(o);
            continue;
        }
        const int device = placement.device_of_op.at(static_cast<std::size_t>(o));
        total += platform.device(device).model->op_time_s(graph, op);
    }
    const auto home = [&](int tensor) {
        const int producer = graph.tensor(tensor).producer;
        return producer >= 0 ? placement.device_of_op.at(static_cast<std::size_t>(producer)) : host;
    };
    for (const auto& [name, ops] : groups)
        total += group_seconds(graph, ops, placement.device_of_op, home, platform, nullptr);
    return total;
}

// --- the placer -------------------------------------------------------------------------------

EopPlacer::EopPlacer(EopMode mode, const std::string& arguments)
    : mode_(mode), arguments_(arguments) {
    const PlacerArguments args = schema(mode).parse(arguments);
    key_share_ = args.number("key_share");
    key_by_type_ = args.choice("key_by") == "type";
    dims_ = args.text("dims");
    parse_dims(mode_name(mode), dims_);
    if (mode == EopMode::eop) {
        conditions_ = args.choice("conditions");
        step_ = args.number("step");
        samples_ = static_cast<int>(args.integer("samples"));
    }
}

std::string EopPlacer::name() const {
    return join_placer_spec(mode_name(mode_), arguments_);
}

PlacerInfo EopPlacer::info(EopMode mode) {
    const char* description = "";
    switch (mode) {
        case EopMode::eop:
            description =
                "xu2022 EOP: key operators split between CPU and GPU by pattern models, Eq. 5 "
                "balance, Eq. 3, and collaborative tuning of adjacent pairs (Algorithm 2)";
            break;
        case EopMode::equal:
            description = "xu2022's Equal baseline: every key operator split 0.5 / 0.5";
            break;
        case EopMode::fixed:
            description =
                "xu2022's Fixed baseline: one ratio per subgraph, GPU share s/(1+s), s = "
                "t_cpu/t_gpu of the subgraph";
            break;
    }
    const ArgumentSchema s = schema(mode);
    return PlacerInfo{mode_name(mode), s.usage(), description,
                      [mode](const std::string& a) { return std::make_unique<EopPlacer>(mode, a); },
                      s.key_help()};
}

PlacementResult EopPlacer::place(const PlacementContext& context) {
    const auto [cpu, gpu] = cpu_and_gpu(context.platform, mode_name(mode_));
    AnalysisOptions options;
    options.key_share = mode_ == EopMode::eop && conditions_ == "c2" ? 1.0 : key_share_;
    options.key_by_type = key_by_type_;
    options.step = step_;
    options.samples = samples_;
    options.dims = parse_dims(mode_name(mode_), dims_);
    options.fit_patterns = mode_ == EopMode::eop;
    if (context.wants_progress())
        options.on_progress = [&context](int done, int total) {
            context.report_progress({done, total, "key ops", "", 0.0});
        };
    Analysis analysis = analyse(context.graph, context.platform, cpu, gpu, options);

    // The CPU share of every key op.
    std::vector<double> share(analysis.key.size(), -1.0);
    if (mode_ == EopMode::eop) {
        for (std::size_t k = 0; k < analysis.key.size(); ++k) {
            if (analysis.key[k].model)
                share[k] = balance_share(*analysis.key[k].model, step_);
        }
        if (conditions_ != "c1") {
            // Algorithm 2 over adjacent key ops in topological order; a key op that cannot be
            // split is left out of the chain (its neighbours become adjacent).
            std::vector<const SplitModel*> chain;
            std::vector<double> chain_shares;
            std::vector<std::size_t> index;
            for (std::size_t k = 0; k < analysis.key.size(); ++k) {
                if (!analysis.key[k].model)
                    continue;
                chain.push_back(&*analysis.key[k].model);
                chain_shares.push_back(share[k]);
                index.push_back(k);
            }
            chain_shares = tune_chain(chain, std::move(chain_shares), step_);
            for (std::size_t c = 0; c < index.size(); ++c)
                share[index[c]] = chain_shares[c];
        }
    } else if (mode_ == EopMode::equal) {
        for (std::size_t k = 0; k < analysis.key.size(); ++k) {
            if (analysis.key[k].model)
                share[k] = 0.5;
        }
    } else {
        // Fixed: per subgraph, s = t_cpu / t_gpu over all its ops; CPU share 1 / (1 + s).
        std::map<std::string, std::pair<double, double>> subgraph_s;
        for (int o = 0; o < context.graph.op_count(); ++o) {
            auto& [c, g] = subgraph_s[subgraph_of(context.graph.op(o).name)];
            c += analysis.cpu_s[static_cast<std::size_t>(o)];
            g += analysis.gpu_s[static_cast<std::size_t>(o)];
        }
        for (std::size_t k = 0; k < analysis.key.size(); ++k) {
            if (!analysis.key[k].model)
                continue;
            const auto& [c, g] =
                subgraph_s.at(subgraph_of(context.graph.op(analysis.key[k].op).name));
            const double s = c / g;
            share[k] = std::isfinite(s) ? 1.0 / (1.0 + s) : 0.0;
        }
    }

    // The rewrite: one split step per key op whose share leaves both parts non-empty.
    const int n = context.graph.op_count();
    std::vector<int> device(static_cast<std::size_t>(n));
    for (int o = 0; o < n; ++o)
        device[static_cast<std::size_t>(o)] = analysis.faster_device(o);
    std::string split_list;  // the one `split` step: ops=<op>:<dim>:<share>;...
    std::map<std::string, int> home_of_split;
    double estimated_at = 0.0;
    std::vector<bool> is_key(static_cast<std::size_t>(n), false);
    int split_count = 0;
    for (std::size_t k = 0; k < analysis.key.size(); ++k) {
        const KeyOp& key = analysis.key[k];
        is_key[static_cast<std::size_t>(key.op)] = true;
        if (!key.model) {
            estimated_at += analysis.best_s(key.op);
            continue;
        }
        estimated_at += key.model->time_s(share[k]);
        const std::int64_t n0 = key.model->part0_extent(share[k]);
        const std::string& op_name = context.graph.op(key.op).name;
        if (n0 <= 0) {
            device[static_cast<std::size_t>(key.op)] = gpu;
        } else if (n0 >= key.model->extent) {
            device[static_cast<std::size_t>(key.op)] = cpu;
        } else {
            split_list +=
                fmt::format("{}{}:{}:{:.17g}", split_list.empty() ? "" : ";", op_name,
                            sim::passes::to_string(key.dim),
                            static_cast<double>(n0) / static_cast<double>(key.model->extent));
            home_of_split[op_name] = analysis.faster_device(key.op);
            ++split_count;
        }
    }
    for (int o = 0; o < n; ++o) {
        if (!is_key[static_cast<std::size_t>(o)])
            estimated_at += analysis.best_s(o);
    }

    PlacementResult result;
    sim::Placement& placement = result.placement;
    if (split_list.empty()) {
        placement.device_of_op = device;
    } else {
        placement.rewrite = sim::passes::apply(context.graph, {{"split", {{"ops", split_list}}}});
        const sim::Graph& g = *placement.rewrite.graph;
        placement.device_of_op.resize(static_cast<std::size_t>(g.op_count()));
        for (int o = 0; o < g.op_count(); ++o) {
            const sim::Op& op = g.op(o);
            int d = -1;
            if (const auto part = op.attrs.find("split_part"); part != op.attrs.end()) {
                d = std::get<std::int64_t>(part->second) == 0 ? cpu : gpu;
            } else if (const auto of = op.attrs.find("split_of"); of != op.attrs.end()) {
                d = home_of_split.at(std::get<std::string>(of->second));
            } else {
                d = device[static_cast<std::size_t>(
                    placement.rewrite.origin.at(static_cast<std::size_t>(o)).at(0))];
            }
            placement.device_of_op[static_cast<std::size_t>(o)] = d;
        }
    }
    const double at = at_seconds(context.graph, placement, context.platform);
    result.profile_runs = analysis.profile_runs;
    result.stats["key_ops"] = std::to_string(analysis.key.size());
    result.stats["ops"] = std::to_string(n);
    result.stats["key_time_share"] = fmt::format("{:.4f}", analysis.key_time_share);
    result.stats["split_ops"] = std::to_string(split_count);
    result.stats["estimated_at_s"] = fmt::format("{:.9g}", estimated_at);
    result.stats["at_s"] = fmt::format("{:.9g}", at);
    if (mode_ == EopMode::eop)
        result.stats["conditions"] = conditions_;
    result.tables["ratios"] = ratio_table(context.graph, analysis, share);
    result.summary = fmt::format(
        "key ops {} of {} ({:.1f} %) take {:.1f} % of the time; {} split; AT estimated {}, "
        "costed {} ({:+.1f} %); {} profile runs",
        analysis.key.size(), n, 100.0 * static_cast<double>(analysis.key.size()) / n,
        100.0 * analysis.key_time_share, split_count, fmt::format("{:.4g} s", estimated_at),
        fmt::format("{:.4g} s", at), at > 0.0 ? 100.0 * (estimated_at - at) / at : 0.0,
        analysis.profile_runs);
    return result;
}

}  // namespace hetsim::placement::eop
