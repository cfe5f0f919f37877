// The Scotch baseline of tarnawski2020 §6-7 (see the header for what the paper did and the
// deviations).
#include "placement/tarnawski/baselines/scotch_solver.hpp"
#include "placement/tarnawski/baselines/baseline_solvers.hpp"

// scotch.h uses FILE and the fixed-width integer types without including their headers.
#include <unistd.h>
#include <cstdint>
#include <cstdio>

#include <scotch/scotch.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "placement/tarnawski/dp/max_load_dp.hpp"
#include "placement/tarnawski/latency/latency.hpp"

namespace hetsim::placement::tarnawski {

namespace {

// Runs `call` (true: it failed) with file descriptor 2 sent to a temporary file, and returns
// the first line written there. libscotch reports a bad strategy by printing several lines on
// stderr (SCOTCH_errorPrint, from the libscotcherr Debian links) before hetsim's one error
// line; caught, its first line goes into hetsim's message instead.
template <typename Call>
std::pair<bool, std::string> with_stderr_caught(Call&& call) {
    std::fflush(stderr);
    std::FILE* sink = std::tmpfile();
    const int saved = sink != nullptr ? ::dup(2) : -1;
    if (saved < 0) {
        if (sink != nullptr)
            std::fclose(sink);
        return {call(), ""};
    }
    ::dup2(::fileno(sink), 2);
    const bool failed = call();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(sink);
    std::array<char, 512> line{};
    std::string first = std::fgets(line.data(), static_cast<int>(line.size()), sink) != nullptr
                            ? std::string(line.data())
                            : std::string();
    std::fclose(sink);
    while (!first.empty() && (first.back() == '\n' || first.back() == '\r'))
        first.pop_back();
    return {failed, first};
}

constexpr double kInf = std::numeric_limits<double>::infinity();
// The published code scaled times by 10^6 before handing them to gpart.
constexpr double kPublishedScale = 1e6;
// Keep every total Scotch forms well inside its 32-bit SCOTCH_Num.
constexpr double kMaxScaledTotal = 2.5e8;
// Repair considers this many of the overfull accelerator's largest classes per move.
constexpr std::size_t kRepairCandidates = 8;

// RAII holders for the libscotch objects (freed in reverse order of creation).
struct ScotchContext {
    SCOTCH_Context ctx;
    ScotchContext() { SCOTCH_contextInit(&ctx); }
    ~ScotchContext() { SCOTCH_contextExit(&ctx); }
};
struct ScotchGraph {
    SCOTCH_Graph graph;
    ScotchGraph() { SCOTCH_graphInit(&graph); }
    ~ScotchGraph() { SCOTCH_graphExit(&graph); }
};
struct ScotchStrat {
    SCOTCH_Strat strat;
    ScotchStrat() { SCOTCH_stratInit(&strat); }
    ~ScotchStrat() { SCOTCH_stratExit(&strat); }
};

// Colour classes: one group per class, a node without a class is a group of its own.
struct Groups {
    std::vector<int> of_node;
    std::vector<std::vector<int>> nodes;
};

Groups colour_groups(const Workload& w) {
    Groups g;
    const int n = static_cast<int>(w.node_count());
    g.of_node.assign(n, -1);
    std::unordered_map<std::int64_t, int> of_class;
    for (int v = 0; v < n; ++v) {
        int group = static_cast<int>(g.nodes.size());
        if (w.has_color_class[v]) {
            auto [it, fresh] = of_class.emplace(w.color_class[v], group);
            group = it->second;
            if (fresh)
                g.nodes.emplace_back();
        } else {
            g.nodes.emplace_back();
        }
        g.of_node[v] = group;
        g.nodes[group].push_back(v);
    }
    return g;
}

// The max-load ignoring memory (evaluate_assignment reports ∞ for any split over M).
double load_ignoring_memory(const LoadReport& r) {
    double m = 0.0;
    for (double x : r.cpu_loads)
        m = std::max(m, x);
    for (double x : r.accelerator_loads)
        m = std::max(m, x);
    return m;
}

// Scotch's k-way partition of the accelerator-eligible groups (see the header).
std::vector<SCOTCH_Num> run_scotch(const std::vector<SCOTCH_Num>& verttab,
                                   const std::vector<SCOTCH_Num>& velotab,
                                   const std::vector<SCOTCH_Num>& edgetab,
                                   const std::vector<SCOTCH_Num>& edlotab, int parts,
                                   const ScotchOptions& options) {
    const SCOTCH_Num vertices = static_cast<SCOTCH_Num>(velotab.size());
    std::vector<SCOTCH_Num> part(velotab.size(), 0);
    ScotchGraph graph;
    if (SCOTCH_graphBuild(&graph.graph, 0, vertices, verttab.data(), verttab.data() + 1,
                          velotab.data(), nullptr, static_cast<SCOTCH_Num>(edgetab.size()),
                          edgetab.data(), edlotab.data()) != 0 ||
        SCOTCH_graphCheck(&graph.graph) != 0)
        throw SolverError("tarnawski.scotch: libscotch rejected the graph");
    // A private single-threaded context with its own seed: reproducible results, and no
    // global Scotch state shared with other solvers running in this process.
    ScotchContext context;
    SCOTCH_contextRandomSeed(&context.ctx, static_cast<SCOTCH_Num>(options.seed & 0x7fffffff));
    if (SCOTCH_contextOptionSetNum(&context.ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(&context.ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0)
        throw SolverError("tarnawski.scotch: cannot configure the libscotch context");
    // Builds without threads have nothing to spawn; one thread is the default then.
    (void)SCOTCH_contextThreadSpawn(&context.ctx, 1, nullptr);
    SCOTCH_contextRandomReset(&context.ctx);
    ScotchGraph bound;
    if (SCOTCH_contextBindGraph(&context.ctx, &graph.graph, &bound.graph) != 0)
        throw SolverError("tarnawski.scotch: cannot bind the graph to a libscotch context");
    ScotchStrat strat;
    if (!options.strategy.empty()) {
        const auto [rejected, complaint] = with_stderr_caught(
            [&] { return SCOTCH_stratGraphMap(&strat.strat, options.strategy.c_str()) != 0; });
        if (rejected)
            throw SolverError(
                fmt::format("tarnawski.scotch: libscotch rejected the strategy '{}'{}",
                            options.strategy, complaint.empty() ? "" : " (" + complaint + ")"));
    } else if (options.preset != ScotchPreset::library_default) {
        SCOTCH_Num flags = SCOTCH_STRATDEFAULT;
        if (options.preset == ScotchPreset::quality)
            flags = SCOTCH_STRATQUALITY;
        else if (options.preset == ScotchPreset::speed)
            flags = SCOTCH_STRATSPEED;
        else if (options.preset == ScotchPreset::balance)
            flags = SCOTCH_STRATBALANCE;
        const auto [failed, complaint] = with_stderr_caught([&] {
            return SCOTCH_stratGraphMapBuild(&strat.strat, flags, parts, options.imbalance) != 0;
        });
        if (failed)
            throw SolverError(
                fmt::format("tarnawski.scotch: cannot build the libscotch "
                            "strategy{}",
                            complaint.empty() ? "" : " (" + complaint + ")"));
    }
    if (SCOTCH_graphPart(&bound.graph, parts, &strat.strat, part.data()) != 0)
        throw SolverError("tarnawski.scotch: SCOTCH_graphPart failed");
    return part;
}

}  // namespace

ScotchResult partition_with_scotch(const Workload& w, const ScotchOptions& options) {
    const int n = static_cast<int>(w.node_count());
    const int k = w.max_accelerators, l = w.max_cpus;
    if (k + l <= 0)
        throw SolverError("tarnawski.scotch: the workload has no devices");
    const Groups groups = colour_groups(w);
    const int g = static_cast<int>(groups.nodes.size());
    std::vector<double> g_cpu(g, 0.0), g_acc(g, 0.0), g_bytes(g, 0.0);
    std::vector<std::uint8_t> g_supported(g, 1);
    for (int v = 0; v < n; ++v) {
        const int x = groups.of_node[v];
        g_cpu[x] += w.cpu_latency[v];
        g_acc[x] += w.accelerator_latency[v];
        g_bytes[x] += w.size[v];
        if (!w.supported_on_accelerator[v] || !std::isfinite(w.accelerator_latency[v]))
            g_supported[x] = 0;
    }

    ScotchResult r;
    std::vector<int> device_of_group(g, -1);

    // Classes that cannot run on an accelerator go to the CPUs (all classes if k = 0): the
    // largest first, each to the least loaded CPU (LPT). Without CPUs they stay in Scotch's
    // graph and make the split infeasible, as they would for the paper's code.
    {
        std::vector<int> to_cpu;
        for (int x = 0; x < g; ++x)
            if (l > 0 && (k == 0 || !g_supported[x]))
                to_cpu.push_back(x);
        std::stable_sort(to_cpu.begin(), to_cpu.end(),
                         [&](int a, int b) { return g_cpu[a] > g_cpu[b]; });
        std::vector<double> cpu_load(std::max(l, 0), 0.0);
        for (int x : to_cpu) {
            const int c = static_cast<int>(std::min_element(cpu_load.begin(), cpu_load.end()) -
                                           cpu_load.begin());
            cpu_load[c] += g_cpu[x];
            device_of_group[x] = cpu_device(w, c);
        }
        r.cpu_classes = to_cpu.size();
    }

    // Scotch's graph over the remaining classes.
    std::vector<int> vertex_of_group(g, -1), group_of_vertex;
    for (int x = 0; x < g; ++x)
        if (device_of_group[x] < 0) {
            vertex_of_group[x] = static_cast<int>(group_of_vertex.size());
            group_of_vertex.push_back(x);
        }
    const int vertices = static_cast<int>(group_of_vertex.size());
    r.vertices = static_cast<std::size_t>(vertices);
    if (vertices > 0) {
        // Edge weights: c_u once per (source u, other class it feeds); per edge for a node
        // with non-uniform outgoing costs (the App. B subdivision, as evaluate_assignment).
        std::map<std::pair<int, int>, double> weight;  // (lower vertex, higher vertex)
        std::vector<std::vector<int>> out(n);
        for (std::size_t e = 0; e < w.edge_count(); ++e)
            out[w.edge_source[e]].push_back(static_cast<int>(e));
        for (int u = 0; u < n; ++u) {
            const int a = vertex_of_group[groups.of_node[u]];
            if (a < 0 || out[u].empty())
                continue;
            bool uniform = true;
            for (int e : out[u])
                uniform &= w.edge_cost[e] == w.edge_cost[out[u][0]];
            std::map<int, double> to;  // other vertex -> cost paid for u's output
            for (int e : out[u]) {
                const int b = vertex_of_group[groups.of_node[w.edge_dest[e]]];
                if (b < 0 || b == a)
                    continue;
                if (uniform)
                    to[b] = w.edge_cost[e];
                else
                    to[b] += w.edge_cost[e];
            }
            for (auto [b, cost] : to)
                weight[{std::min(a, b), std::max(a, b)}] += cost;
        }
        double total_vertex = 0.0, total_edge = 0.0;
        for (int x : group_of_vertex)
            total_vertex += std::isfinite(g_acc[x]) ? g_acc[x] : 0.0;
        for (const auto& [pair, cost] : weight)
            total_edge += 2.0 * cost;
        const double biggest = std::max(total_vertex, total_edge);
        r.scale = biggest * kPublishedScale > kMaxScaledTotal ? kMaxScaledTotal / biggest
                                                              : kPublishedScale;
        auto scaled = [&](double x) {
            return std::isfinite(x) && x > 0.0 ? static_cast<SCOTCH_Num>(std::llround(x * r.scale))
                                               : SCOTCH_Num{0};
        };
        std::vector<std::vector<std::pair<int, SCOTCH_Num>>> adj(vertices);
        for (const auto& [pair, cost] : weight) {
            adj[pair.first].push_back({pair.second, scaled(cost)});
            adj[pair.second].push_back({pair.first, scaled(cost)});
        }
        std::vector<SCOTCH_Num> verttab(1, 0), velotab, edgetab, edlotab;
        for (int v = 0; v < vertices; ++v) {
            velotab.push_back(scaled(g_acc[group_of_vertex[v]]));
            for (auto [b, load] : adj[v]) {
                edgetab.push_back(b);
                edlotab.push_back(load);
            }
            verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
        }
        const std::vector<SCOTCH_Num> part =
            run_scotch(verttab, velotab, edgetab, edlotab, std::max(k, 1), options);
        for (int v = 0; v < vertices; ++v) {
            const int p = static_cast<int>(part[v]);
            if (p < 0 || p >= std::max(k, 1))
                throw SolverError(
                    fmt::format("tarnawski.scotch: libscotch returned part {} of {}", p, k));
            device_of_group[group_of_vertex[v]] = accelerator_device(w, p);
        }
    }

    Assignment& assignment = r.assignment;
    assignment.device_of_node.assign(n, -1);
    auto apply = [&](std::vector<int>& dev, int group, int device) {
        for (int v : groups.nodes[group])
            dev[v] = device;
    };
    for (int x = 0; x < g; ++x)
        apply(assignment.device_of_node, x, device_of_group[x]);
    LoadReport report = evaluate_assignment(w, assignment);
    r.max_load_before_repair = report.supported_ok ? load_ignoring_memory(report) : kInf;
    {
        std::vector<double> bytes(std::max(k, 0), 0.0);
        for (int x = 0; x < g; ++x)
            if (is_accelerator_device(w, device_of_group[x]))
                bytes[device_of_group[x] - l] += g_bytes[x];
        double worst = 0.0;
        for (double b : bytes)
            worst = std::max(worst, b);
        r.memory_ratio_before_repair =
            w.max_size_per_accelerator > 0.0 ? worst / w.max_size_per_accelerator : kInf;
    }

    // Memory repair (a deviation, see the header): move classes off overfull accelerators.
    if (options.repair_memory && !report.memory_ok) {
        const double memory = w.max_size_per_accelerator;
        std::vector<double> bytes(k, 0.0);
        for (int x = 0; x < g; ++x)
            if (is_accelerator_device(w, device_of_group[x]))
                bytes[device_of_group[x] - l] += g_bytes[x];
        std::vector<int> trial = assignment.device_of_node;
        for (;;) {
            int worst = -1;
            for (int a = 0; a < k; ++a)
                if (bytes[a] > memory && (worst < 0 || bytes[a] > bytes[worst]))
                    worst = a;
            if (worst < 0)
                break;
            const int from = accelerator_device(w, worst);
            std::vector<int> candidates;
            for (int x = 0; x < g; ++x)
                if (device_of_group[x] == from && g_bytes[x] > 0.0)
                    candidates.push_back(x);
            std::stable_sort(candidates.begin(), candidates.end(),
                             [&](int a, int b) { return g_bytes[a] > g_bytes[b]; });
            if (candidates.size() > kRepairCandidates)
                candidates.resize(kRepairCandidates);
            // Best move: smallest max-load (ignoring memory), then the least loaded target.
            double best_max = kInf, best_target_load = kInf;
            int best_group = -1, best_device = -1;
            for (int x : candidates) {
                for (int d = 0; d < k + l; ++d) {
                    if (d == from)
                        continue;
                    if (is_accelerator_device(w, d) &&
                        (!g_supported[x] || bytes[d - l] + g_bytes[x] > memory))
                        continue;
                    apply(trial, x, d);
                    const LoadReport t = evaluate_assignment(w, Assignment{trial});
                    apply(trial, x, from);
                    const double mx = load_ignoring_memory(t);
                    const double target =
                        is_accelerator_device(w, d) ? t.accelerator_loads[d - l] : t.cpu_loads[d];
                    if (mx < best_max || (mx == best_max && target < best_target_load)) {
                        best_max = mx;
                        best_target_load = target;
                        best_group = x;
                        best_device = d;
                    }
                }
            }
            if (best_group < 0)
                break;  // nowhere to go: the split stays over memory (max-load ∞)
            apply(trial, best_group, best_device);
            device_of_group[best_group] = best_device;
            bytes[worst] -= g_bytes[best_group];
            if (is_accelerator_device(w, best_device))
                bytes[best_device - l] += g_bytes[best_group];
            ++r.repair_moves;
        }
        assignment.device_of_node = trial;
        report = evaluate_assignment(w, assignment);
    }
    r.max_load = report.max_load;
    r.memory_ok = report.memory_ok;
    return r;
}

namespace {

class ScotchSolver final : public SplitSolver {
public:
    ScotchSolver(std::string spec, ScotchOptions options, bool explicit_seed)
        : spec_(std::move(spec)), options_(std::move(options)), explicit_seed_(explicit_seed) {}
    std::string name() const override { return spec_; }

protected:
    SolveResult solve_placeable(const Workload& w, const SolveOptions& options) const override {
        ScotchOptions o = options_;
        if (!explicit_seed_)
            o.seed = options.seed;
        const auto t0 = std::chrono::steady_clock::now();
        const ScotchResult r = partition_with_scotch(w, o);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        SolveResult out;
        out.stats["max_load"] = fmt::format("{:.9g}", r.max_load);
        out.stats["max_load_before_repair"] = fmt::format("{:.9g}", r.max_load_before_repair);
        out.stats["memory_ratio_before_repair"] =
            fmt::format("{:.6g}", r.memory_ratio_before_repair);
        out.stats["repair_moves"] = std::to_string(r.repair_moves);
        out.stats["memory_ok"] = std::to_string(r.memory_ok ? 1 : 0);
        out.stats["vertices"] = std::to_string(r.vertices);
        out.stats["cpu_classes"] = std::to_string(r.cpu_classes);
        out.stats["scale"] = fmt::format("{:.6g}", r.scale);
        out.stats["wall_s"] = fmt::format("{:.6f}", seconds);
        double latency = kInf;
        try {
            latency = split_latency(w, r.assignment);
        } catch (const WorkloadError&) {
            // A cyclic graph has no §4 latency; the max-load is still defined.
        }
        out.stats["latency"] = fmt::format("{:.9g}", latency);
        out.objective = options.objective == SplitObjective::latency ? latency : r.max_load;
        out.split = to_split(w, r.assignment, out.objective);
        if (options.progress != nullptr)
            *options.progress << fmt::format(
                "{}: {} classes to Scotch, {} repair moves, max load {:.6g} ({:.6g} before)\n",
                spec_, r.vertices, r.repair_moves, r.max_load, r.max_load_before_repair);
        return out;
    }

private:
    std::string spec_;
    ScotchOptions options_;
    bool explicit_seed_;
};

}  // namespace

std::unique_ptr<SplitSolver> make_scotch_solver(const std::string& spec,
                                                const PlacerArguments& arguments) {
    static const std::map<std::string, ScotchPreset> presets = {
        {"default", ScotchPreset::library_default},
        {"standard", ScotchPreset::standard},
        {"quality", ScotchPreset::quality},
        {"speed", ScotchPreset::speed},
        {"balance", ScotchPreset::balance}};
    ScotchOptions options;
    options.preset = presets.at(arguments.choice("preset"));
    options.imbalance = arguments.number("imbalance");
    // An imbalance is a parameter of the built presets, not of Scotch's own default strategy.
    if (arguments.has("imbalance") && options.preset == ScotchPreset::library_default)
        options.preset = ScotchPreset::standard;
    options.repair_memory = arguments.boolean("repair");
    const bool explicit_seed = arguments.has("seed");
    if (explicit_seed)
        options.seed = static_cast<std::uint64_t>(arguments.integer("seed"));
    if (arguments.has("strategy"))
        options.strategy = arguments.text("strategy");
    return std::make_unique<ScotchSolver>(spec, std::move(options), explicit_seed);
}

}  // namespace hetsim::placement::tarnawski
