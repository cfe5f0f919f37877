#include "placement/eop/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "placement/placer.hpp"
#include "sim/transfer_cost.hpp"

namespace hetsim::placement::eop {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string attr_text(const sim::AttrValue& value) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
                return v;
            else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>)
                return fmt::format("{}", v);
            else
                return fmt::format("[{}]", fmt::join(v, ","));
        },
        value);
}

// What determines an op's time on a device: its type, attributes and operand shapes and
// kinds. Ops with the same signature (an unrolled RNN's steps) share their profile runs.
std::string signature(const sim::Graph& graph, const sim::Op& op) {
    std::string s = op.type;
    for (const auto& [key, value] : op.attrs) {
        if (key != "split_of" && key != "split_part")
            s += fmt::format("|{}={}", key, attr_text(value));
    }
    for (int t : op.inputs) {
        const sim::Tensor& tensor = graph.tensor(t);
        s += fmt::format("|i{}{}{}", sim::to_string(tensor.shape), sim::to_string(tensor.dtype),
                         static_cast<int>(tensor.kind));
    }
    for (int t : op.outputs)
        s += fmt::format("|o{}", sim::to_string(graph.tensor(t).shape));
    return s;
}

// Simulated op executions, memoised by signature: the profile runs.
class Profiler {
public:
    Profiler(const sim::Graph& graph, const sim::Platform& platform)
        : graph_(graph), platform_(platform) {
        for (int o = 0; o < graph.op_count(); ++o)
            signatures_.push_back(signature(graph, graph.op(o)));
    }

    int runs() const { return runs_; }

    double whole(int op, int device) {
        return memo(fmt::format("{}|whole|{}", sig(op), device),
                    [&] { return time_on(graph_, graph_.op(op), device); });
    }

    double part(int op, sim::passes::SplitDim dim, std::int64_t extent, int device) {
        return memo(fmt::format("{}|{}={}|{}", sig(op), to_string(dim), extent, device), [&] {
            const sim::Graph one = sim::passes::op_at_extent(graph_, op, dim, extent);
            return time_on(one, one.op(0), device);
        });
    }

    // cm of op split at part-0 extent n: its Split, copies and Concat, with the op's input
    // and the Split and Concat on `home` (Eq. 2; §3.1: "decided by tensor locations").
    double cm(int op, sim::passes::SplitDim dim, std::int64_t n, std::int64_t extent, int cpu,
              int gpu, int home) {
        return memo(fmt::format("{}|cm{}={}/{}|{}", sig(op), to_string(dim), n, extent, home), [&] {
            const sim::Graph one = sim::passes::op_at_extent(graph_, op, dim, extent);
            const sim::passes::PassResult split = sim::passes::split_op(
                one, {{"op", one.op(0).name},
                      {"dim", std::string(to_string(dim))},
                      {"share", fmt::format("{:.17g}", static_cast<double>(n) /
                                                           static_cast<double>(extent))}});
            const sim::Graph& g = split.graph;
            std::vector<int> device(static_cast<std::size_t>(g.op_count()), home);
            std::vector<int> all(static_cast<std::size_t>(g.op_count()));
            std::iota(all.begin(), all.end(), 0);
            for (int o = 0; o < g.op_count(); ++o) {
                if (g.op(o).attrs.count("split_part"))
                    device[static_cast<std::size_t>(o)] =
                        g.op(o).attr_int("split_part", 0) == 0 ? cpu : gpu;
            }
            double communication = 0.0;
            group_seconds(
                g, all, device, [home](int) { return home; }, platform_, &communication);
            return communication;
        });
    }

private:
    const std::string& sig(int op) const { return signatures_[static_cast<std::size_t>(op)]; }

    double time_on(const sim::Graph& graph, const sim::Op& op, int device) const {
        const auto& model = *platform_.device(device).model;
        if (!model.supports(graph, op).ok)
            return kInf;
        return model.op_time_s(graph, op);
    }

    template <typename F>
    double memo(const std::string& key, F&& run) {
        if (const auto it = cache_.find(key); it != cache_.end())
            return it->second;
        ++runs_;
        const double t = run();
        cache_.emplace(key, t);
        return t;
    }

    const sim::Graph& graph_;
    const sim::Platform& platform_;
    std::vector<std::string> signatures_;
    std::map<std::string, double> cache_;
    int runs_ = 0;
};

// Extents 1..extent (or from, when given), at most `samples` of them, spread evenly, both ends
// included (§3.2 Step 1 over Table 2's value space, clipped to the op: a part never exceeds
// the whole).
std::vector<std::int64_t> sample_extents(std::int64_t from, std::int64_t to, int samples) {
    std::vector<std::int64_t> out;
    if (to < from)
        return out;
    const std::int64_t count = to - from + 1;
    if (count <= samples) {
        for (std::int64_t n = from; n <= to; ++n)
            out.push_back(n);
        return out;
    }
    for (int k = 0; k < samples; ++k) {
        const double x = static_cast<double>(from) +
                         static_cast<double>(count - 1) * k / static_cast<double>(samples - 1);
        const auto n = static_cast<std::int64_t>(std::llround(x));
        if (out.empty() || out.back() != n)
            out.push_back(n);
    }
    return out;
}

}  // namespace

// Eq. 2 (analysis.hpp).
double group_seconds(const sim::Graph& graph, const std::vector<int>& ops,
                     const std::vector<int>& device_of_op,
                     const std::function<int(int tensor)>& home_of_external,
                     const sim::Platform& platform, double* communication_s) {
    const std::set<int> members(ops.begin(), ops.end());
    double parts = 0.0, added = 0.0, copies = 0.0;
    std::set<std::pair<int, int>> moved;  // (tensor, destination device)
    for (int o : ops) {
        const sim::Op& op = graph.op(o);
        const int device = device_of_op.at(static_cast<std::size_t>(o));
        const double t = platform.device(device).model->op_time_s(graph, op);
        if (op.attrs.count("split_part"))
            parts = std::max(parts, t);
        else
            added += t;
        for (int tensor : op.inputs) {
            const sim::Tensor& input = graph.tensor(tensor);
            if (input.kind == sim::TensorKind::weight)
                continue;  // resident where it is used (a cut weight is cut offline)
            const int from = members.count(input.producer)
                                 ? device_of_op.at(static_cast<std::size_t>(input.producer))
                                 : home_of_external(tensor);
            if (from == device || !moved.insert({tensor, device}).second)
                continue;
            copies += sim::transfer_cost(platform, from, device, input).seconds();
        }
    }
    if (communication_s)
        *communication_s = added + copies;
    return parts + added + copies;
}

int Analysis::faster_device(int op) const {
    return cpu_s[static_cast<std::size_t>(op)] < gpu_s[static_cast<std::size_t>(op)] ? cpu : gpu;
}

double Analysis::best_s(int op) const {
    return std::min(cpu_s[static_cast<std::size_t>(op)], gpu_s[static_cast<std::size_t>(op)]);
}

Analysis analyse(const sim::Graph& graph, const sim::Platform& platform, int cpu, int gpu,
                 const AnalysisOptions& options) {
    auto profiler = std::make_shared<Profiler>(graph, platform);
    Analysis a;
    a.cpu = cpu;
    a.gpu = gpu;
    const int n = graph.op_count();
    double total = 0.0;
    for (int o = 0; o < n; ++o) {
        a.cpu_s.push_back(profiler->whole(o, cpu));
        a.gpu_s.push_back(profiler->whole(o, gpu));
        if (!std::isfinite(a.best_s(o))) {
            throw PlacementError(fmt::format("op '{}' ({}) runs on neither {} nor {}",
                                             graph.op(o).name, graph.op(o).type,
                                             platform.device(cpu).name, platform.device(gpu).name));
        }
        total += a.best_s(o);
    }
    // Key operators (§3.3): longest first (ties to the lower id), until they cover key_share;
    // by op type (Table 5 lists types): the types with the most time first, every op of a
    // chosen type key.
    std::vector<bool> key(static_cast<std::size_t>(n), false);
    double covered = 0.0;
    const auto enough = [&] {
        return covered >= options.key_share * total && options.key_share < 1.0;
    };
    if (options.key_by_type) {
        std::map<std::string, double> by_type;
        for (int o = 0; o < n; ++o)
            by_type[graph.op(o).type] += a.best_s(o);
        std::vector<std::pair<std::string, double>> types(by_type.begin(), by_type.end());
        std::stable_sort(types.begin(), types.end(),
                         [](const auto& x, const auto& y) { return x.second > y.second; });
        for (const auto& [type, time_s] : types) {
            if (enough())
                break;
            for (int o = 0; o < n; ++o)
                key[static_cast<std::size_t>(o)] =
                    key[static_cast<std::size_t>(o)] || graph.op(o).type == type;
            covered += time_s;
        }
    } else {
        std::vector<int> by_time(static_cast<std::size_t>(n));
        std::iota(by_time.begin(), by_time.end(), 0);
        std::stable_sort(by_time.begin(), by_time.end(),
                         [&](int x, int y) { return a.best_s(x) > a.best_s(y); });
        for (int o : by_time) {
            if (enough())
                break;
            key[static_cast<std::size_t>(o)] = true;
            covered += a.best_s(o);
        }
    }
    a.key_time_share = total > 0.0 ? covered / total : 1.0;

    const int key_ops = static_cast<int>(std::count(key.begin(), key.end(), true));
    int analysed = 0;
    for (int o : graph.topo_order()) {
        if (!key[static_cast<std::size_t>(o)])
            continue;
        if (options.on_progress)
            options.on_progress(analysed++, key_ops);
        KeyOp k;
        k.op = o;
        const int home = a.faster_device(o);
        std::vector<std::string> refusals;
        std::vector<int> axes_seen;
        double best_time = kInf;
        for (sim::passes::SplitDim dim : options.dims) {
            const sim::passes::SplitAxis where = sim::passes::split_axis(graph, o, dim);
            if (!where.ok()) {
                refusals.push_back(fmt::format("{}: {}", to_string(dim), where.reason));
                continue;
            }
            // Two dimensions on one axis (hw and hw1w2 of a 2-D op) are one cut.
            if (std::find(axes_seen.begin(), axes_seen.end(), where.axis) != axes_seen.end())
                continue;
            axes_seen.push_back(where.axis);
            SplitModel model;
            model.extent = where.extent;
            model.cpu_whole_s = a.cpu_s[static_cast<std::size_t>(o)];
            model.gpu_whole_s = a.gpu_s[static_cast<std::size_t>(o)];
            const std::int64_t extent = where.extent;
            if (!options.fit_patterns) {
                // Equal and Fixed: the first valid dimension, costed by measurement.
                model.cpu_s = [profiler, o, dim, cpu](std::int64_t m) {
                    return profiler->part(o, dim, m, cpu);
                };
                model.gpu_s = [profiler, o, dim, gpu](std::int64_t m) {
                    return profiler->part(o, dim, m, gpu);
                };
                model.cm_s = [profiler, o, dim, extent, cpu, gpu, home](std::int64_t m) {
                    return profiler->cm(o, dim, m, extent, cpu, gpu, home);
                };
                k.dim = dim;
                k.model = std::move(model);
                break;
            }
            // Algorithm 1 lines 3-6: sample, fit the three patterns per device, keep the best.
            std::vector<Sample> cpu_samples, gpu_samples, cm_samples;
            for (std::int64_t m : sample_extents(1, extent, options.samples)) {
                cpu_samples.push_back({static_cast<double>(m), profiler->part(o, dim, m, cpu)});
                gpu_samples.push_back({static_cast<double>(m), profiler->part(o, dim, m, gpu)});
            }
            for (std::int64_t m : sample_extents(1, extent - 1, options.samples)) {
                cm_samples.push_back(
                    {static_cast<double>(m), profiler->cm(o, dim, m, extent, cpu, gpu, home)});
            }
            const auto finite = [](const std::vector<Sample>& s) {
                return std::all_of(s.begin(), s.end(), [](const Sample& x) {
                    return std::isfinite(x.time_s) && x.time_s > 0.0;
                });
            };
            if (!finite(cpu_samples) || !finite(gpu_samples) || !finite(cm_samples)) {
                refusals.push_back(fmt::format("{}: a device cannot run a part", to_string(dim)));
                continue;
            }
            DimFit fit;
            fit.dim = dim;
            fit.extent = extent;
            fit.cpu = best_pattern(cpu_samples);
            fit.gpu = best_pattern(gpu_samples);
            fit.cm = best_pattern(cm_samples);
            model.cpu_s = [p = fit.cpu](std::int64_t m) {
                return p.predict_s(static_cast<double>(m));
            };
            model.gpu_s = [p = fit.gpu](std::int64_t m) {
                return p.predict_s(static_cast<double>(m));
            };
            model.cm_s = [p = fit.cm](std::int64_t m) {
                return p.predict_s(static_cast<double>(m));
            };
            fit.share = balance_share(model, options.step);
            fit.time_s = model.time_s(fit.share);
            // Algorithm 1 line 8: the dimension with the least estimated time.
            if (fit.time_s < best_time) {
                best_time = fit.time_s;
                k.dim = dim;
                k.model = model;
            }
            k.fits.push_back(fit);
        }
        if (!k.model)
            k.why_unsplit = fmt::format("{}", fmt::join(refusals, "; "));
        a.key.push_back(std::move(k));
    }
    a.profile_runs = profiler->runs();
    return a;
}

std::string subgraph_of(const std::string& op_name) {
    std::vector<std::string> scopes;
    std::stringstream in(op_name);
    std::string item;
    while (std::getline(in, item, '/')) {
        if (!item.empty())
            scopes.push_back(item);
    }
    if (scopes.size() < 2)
        return "";
    scopes.pop_back();  // the op's own name
    std::string prefix;
    for (const std::string& scope : scopes) {
        prefix += "/" + scope;
        if (std::any_of(scope.begin(), scope.end(),
                        [](unsigned char c) { return std::isdigit(c) != 0; }))
            return prefix;
    }
    return "/" + scopes.front();
}

namespace {

std::string pattern_text(const Pattern& p) {
    switch (p.kind) {
        case PatternKind::constant:
            return fmt::format("constant {:.3g} s (err {:.2g})", p.intercept_s, p.error);
        case PatternKind::linear:
            return fmt::format("linear {:.3g} + {:.3g} n s (err {:.2g})", p.intercept_s, p.slope_s,
                               p.error);
        case PatternKind::staircase:
            return fmt::format("staircase {:.3g} + {:.3g} ceil(n/{:g}) s (err {:.2g})",
                               p.intercept_s, p.slope_s, p.step, p.error);
    }
    return "";
}

}  // namespace

std::string describe_patterns(const sim::Graph& graph, const Analysis& analysis,
                              const sim::Platform& platform) {
    std::string out = fmt::format(
        "EOP key operators on {} and {}: {} of {} ops ({:.1f} %) take {:.1f} % of the time; "
        "{} profile runs\n",
        platform.device(analysis.cpu).name, platform.device(analysis.gpu).name, analysis.key.size(),
        graph.op_count(), 100.0 * static_cast<double>(analysis.key.size()) / graph.op_count(),
        100.0 * analysis.key_time_share, analysis.profile_runs);
    for (const KeyOp& key : analysis.key) {
        const sim::Op& op = graph.op(key.op);
        out += fmt::format(
            "  {} ({}): unsplit {:.3g} s on {}, {:.3g} s on {}\n", op.name, op.type,
            analysis.cpu_s[static_cast<std::size_t>(key.op)], platform.device(analysis.cpu).name,
            analysis.gpu_s[static_cast<std::size_t>(key.op)], platform.device(analysis.gpu).name);
        if (!key.model) {
            out += fmt::format("    not split: {}\n", key.why_unsplit);
            continue;
        }
        for (const DimFit& f : key.fits) {
            out += fmt::format(
                "    {}{} (extent {}): cpu {}; gpu {}; cm {}; balanced share {:.2f}, T {:.3g} "
                "s\n",
                f.dim == key.dim ? "* " : "  ", to_string(f.dim), f.extent, pattern_text(f.cpu),
                pattern_text(f.gpu), pattern_text(f.cm), f.share, f.time_s);
        }
    }
    return out;
}

std::string ratio_table(const sim::Graph& graph, const Analysis& analysis,
                        const std::vector<double>& shares) {
    std::string csv =
        "op,type,dim,extent,cpu_share,part0_extent,estimated_s,cpu_whole_s,gpu_whole_s,"
        "cpu_pattern,cpu_error,gpu_pattern,gpu_error,cm_pattern,cm_error,note\n";
    for (std::size_t k = 0; k < analysis.key.size(); ++k) {
        const KeyOp& key = analysis.key[k];
        const sim::Op& op = graph.op(key.op);
        const int o = key.op;
        if (!key.model) {
            csv += fmt::format("\"{}\",{},,,,,{:.6g},{:.6g},{:.6g},,,,,,,\"not split: {}\"\n",
                               op.name, op.type, analysis.best_s(o),
                               analysis.cpu_s[static_cast<std::size_t>(o)],
                               analysis.gpu_s[static_cast<std::size_t>(o)], key.why_unsplit);
            continue;
        }
        const SplitModel& m = *key.model;
        const auto fit = std::find_if(key.fits.begin(), key.fits.end(),
                                      [&](const DimFit& f) { return f.dim == key.dim; });
        const auto pattern = [&](const Pattern DimFit::*which) {
            if (fit == key.fits.end())
                return std::string(",");
            const Pattern& p = (*fit).*which;
            return fmt::format("{},{:.4g}", to_string(p.kind), p.error);
        };
        csv +=
            fmt::format("\"{}\",{},{},{},{:.4g},{},{:.6g},{:.6g},{:.6g},{},{},{},\n", op.name,
                        op.type, to_string(key.dim), m.extent, shares[k], m.part0_extent(shares[k]),
                        m.time_s(shares[k]), m.cpu_whole_s, m.gpu_whole_s, pattern(&DimFit::cpu),
                        pattern(&DimFit::gpu), pattern(&DimFit::cm));
    }
    return csv;
}

}  // namespace hetsim::placement::eop
