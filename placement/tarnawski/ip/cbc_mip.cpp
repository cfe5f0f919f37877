#include "placement/tarnawski/ip/cbc_mip.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinError.hpp>
#include <CoinMessageHandler.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

namespace hetsim::placement::tarnawski {

const char* to_string(MipStatus status) {
    switch (status) {
        case MipStatus::optimal:
            return "optimal";
        case MipStatus::feasible:
            return "feasible";
        case MipStatus::infeasible:
            return "infeasible";
        case MipStatus::no_solution:
            return "no_solution";
        case MipStatus::error:
            return "error";
    }
    return "?";
}

int MipModel::add_column(double lower, double upper, double cost, bool integer, std::string name) {
    const int index = columns();
    column_lower_.push_back(lower);
    column_upper_.push_back(upper);
    column_cost_.push_back(cost);
    column_integer_.push_back(integer ? 1 : 0);
    // CBC matches MIP-start values by name: keep them unique and free of blanks.
    std::replace(name.begin(), name.end(), ' ', '_');
    column_names_.push_back(
        fmt::format("{}#{}", name.empty() ? std::string_view("c") : name, index));
    return index;
}

int MipModel::add_row(const Terms& terms, double lower, double upper) {
    const int index = rows();
    const std::size_t begin = row_columns_.size();
    for (const auto& [column, value] : terms) {
        if (column < 0 || column >= columns())
            throw std::out_of_range(fmt::format("MIP row {}: no column {}", index, column));
        if (value == 0.0)
            continue;
        bool merged = false;
        for (std::size_t k = begin; k < row_columns_.size(); ++k)
            if (row_columns_[k] == column) {
                row_values_[k] += value;
                merged = true;
                break;
            }
        if (!merged) {
            row_columns_.push_back(column);
            row_values_.push_back(value);
        }
    }
    row_lower_.push_back(lower);
    row_upper_.push_back(upper);
    row_start_.push_back(row_columns_.size());
    return index;
}

void MipModel::set_bounds(int column, double lower, double upper) {
    column_lower_.at(column) = lower;
    column_upper_.at(column) = upper;
}

void MipModel::set_cost(int column, double cost) {
    column_cost_.at(column) = cost;
}

double MipModel::max_violation(const std::vector<double>& x, std::string* where) const {
    if (x.size() != column_lower_.size())
        throw std::invalid_argument(fmt::format("a vector of {} values for a MIP of {} columns",
                                                x.size(), column_lower_.size()));
    double worst = 0.0;
    auto note = [&](double violation, const std::string& what) {
        if (violation > worst) {
            worst = violation;
            if (where)
                *where = what;
        }
    };
    for (int c = 0; c < columns(); ++c) {
        note(column_lower_[c] - x[c], column_names_[c] + " below its lower bound");
        note(x[c] - column_upper_[c], column_names_[c] + " above its upper bound");
        if (column_integer_[c])
            note(std::fabs(x[c] - std::round(x[c])), column_names_[c] + " not integral");
    }
    for (int r = 0; r < rows(); ++r) {
        double activity = 0.0;
        for (std::size_t k = row_start_[r]; k < row_start_[r + 1]; ++k)
            activity += row_values_[k] * x[row_columns_[k]];
        const double scale = std::max(1.0, std::fabs(activity));
        note((row_lower_[r] - activity) / scale, fmt::format("row {} below its lower bound", r));
        note((activity - row_upper_[r]) / scale, fmt::format("row {} above its upper bound", r));
    }
    return worst;
}

double MipModel::objective_of(const std::vector<double>& x) const {
    double sum = 0.0;
    for (int c = 0; c < columns(); ++c)
        sum += column_cost_[c] * x.at(c);
    return sum;
}

namespace {

// Routes CBC/CLP messages to a stream (or nowhere): CBC's default handler writes to stdout,
// which would mix its log with `hetsim place`'s solution table.
class StreamMessageHandler : public CoinMessageHandler {
public:
    StreamMessageHandler(std::ostream* out, std::string prefix)
        : out_(out), prefix_(std::move(prefix)) {}
    CoinMessageHandler* clone() const override { return new StreamMessageHandler(*this); }
    int print() override {
        if (out_) {
            std::istringstream text(messageBuffer());
            for (std::string line; std::getline(text, line);) {
                while (!line.empty() && line.back() == ' ')
                    line.pop_back();
                if (!line.empty())
                    *out_ << prefix_ << line << '\n';
            }
        }
        return 0;
    }

private:
    std::ostream* out_;
    std::string prefix_;
};

// CbcMain1's per-phase callback; we need none of its hooks.
int no_callback(CbcModel*, int) {
    return 0;
}

// CBC 2.10 checks `-sec` between root cut passes and between nodes, but not inside its root
// heuristics: on a 17k-column model (BERT-base on pcie_accelerators) RINS/RENS-style sub-MIPs
// and the feasibility pump kept a 20 s limit running for 90 s, and with `-heuristicsOnOff off`
// the overrun vanished. Past the deadline this handler refuses to enter a heuristic's small
// branch and bound, ends feasibility-pump passes and stops the search at the next node, so the
// limit holds to within one LP solve. It also reports the search's progress at node events (at
// most every 0.2 s). The model's copies (CbcMain1 works on a clone) clone it.
class SearchEventHandler final : public CbcEventHandler {
public:
    using Progress = std::function<void(long nodes, double incumbent)>;
    SearchEventHandler(std::optional<std::chrono::steady_clock::time_point> deadline,
                       Progress progress)
        : deadline_(deadline), progress_(std::move(progress)) {}
    CbcAction event(CbcEvent which) override { return act(which); }
    CbcAction event(CbcEvent which, void*) override { return act(which); }
    CbcEventHandler* clone() const override { return new SearchEventHandler(*this); }

private:
    CbcAction act(CbcEvent which) {
        const auto now = std::chrono::steady_clock::now();
        if (progress_ && which == node && model_ != nullptr && now >= next_report_) {
            next_report_ = now + std::chrono::milliseconds(200);
            const bool have = model_->getSolutionCount() > 0 && model_->getObjValue() < 1e50;
            progress_(model_->getNodeCount(), have ? model_->getObjValue() : kMipInfinity);
        }
        if (!deadline_ || now < *deadline_)
            return noAction;
        switch (which) {
            case smallBranchAndBound:
            case heuristicPass:
                return killSolution;  // skip the sub-MIP / end the pump (CbcHeuristic.cpp)
            case node:
            case treeStatus:
                return stop;
            default:
                return noAction;
        }
    }
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    Progress progress_;
    std::chrono::steady_clock::time_point next_report_{};
};

}  // namespace

struct MipSolverAccess {
    static void load(const MipModel& m, OsiClpSolverInterface& solver) {
        const double inf = solver.getInfinity();
        auto finite = [inf](double v) { return std::isinf(v) ? (v > 0 ? inf : -inf) : v; };
        const int n = m.columns();
        const int rows = m.rows();
        std::vector<double> lower(n), upper(n), row_lower(rows), row_upper(rows);
        for (int c = 0; c < n; ++c) {
            lower[c] = finite(m.column_lower_[c]);
            upper[c] = finite(m.column_upper_[c]);
        }
        for (int r = 0; r < rows; ++r) {
            row_lower[r] = finite(m.row_lower_[r]);
            row_upper[r] = finite(m.row_upper_[r]);
        }
        std::vector<CoinBigIndex> starts(m.row_start_.begin(), m.row_start_.end());
        std::vector<int> lengths(rows);
        for (int r = 0; r < rows; ++r)
            lengths[r] = static_cast<int>(m.row_start_[r + 1] - m.row_start_[r]);
        const CoinPackedMatrix matrix(
            false, n, rows, static_cast<CoinBigIndex>(m.row_columns_.size()), m.row_values_.data(),
            m.row_columns_.data(), starts.data(), lengths.data());
        solver.loadProblem(matrix, lower.data(), upper.data(), m.column_cost_.data(),
                           row_lower.data(), row_upper.data());
        solver.setObjSense(1.0);
        solver.setIntParam(OsiNameDiscipline, 1);
        for (int c = 0; c < n; ++c) {
            if (m.column_integer_[c])
                solver.setInteger(c);
            solver.setColName(c, m.column_names_[c]);
        }
        // With column names but no row names, CBC 2.10's postprocessing presolve reads past the
        // empty row-name vector (coin-or/Cbc#515): name every row.
        for (int r = 0; r < rows; ++r)
            solver.setRowName(r, fmt::format("r{}", r));
    }
};

namespace {

// Our own check of the MIP start: CBC silently drops an infeasible one, and a rejected warm
// start usually means the formulation and the heuristic disagree (worth a log line).
bool check_warm_start(const MipModel& model, const MipOptions& options) {
    if (options.warm_start.empty())
        return false;
    std::string where;
    const double violation = model.max_violation(options.warm_start, &where);
    if (violation > 1e-6 && options.progress)
        *options.progress << options.log_prefix << "warm start rejected: violation " << violation
                          << " (" << where << ")\n";
    return violation <= 1e-6;
}

// CBC in this process: load, warm start, CbcMain1, read the result back.
MipResult run_cbc_here(const MipModel& model, const MipOptions& options, bool warm,
                       std::chrono::steady_clock::time_point t0) {
    MipResult result;
    std::ostream* log = options.progress;
    StreamMessageHandler handler(log, options.log_prefix);
    handler.setLogLevel(log ? std::clamp(options.log_level, 0, 1) : 0);

    OsiClpSolverInterface solver;
    solver.passInMessageHandler(&handler);
    MipSolverAccess::load(model, solver);
    result.warm_start_accepted = warm;

    CbcModel cbc(solver);
    cbc.passInMessageHandler(&handler);
    if (warm) {
        std::vector<std::pair<std::string, double>> start;
        start.reserve(options.warm_start.size());
        for (int c = 0; c < model.columns(); ++c)
            start.emplace_back(solver.getColName(c), options.warm_start[c]);
        cbc.setMIPStart(start);
    }

    if (options.time_limit_s > 0.0 || options.on_progress) {
        std::optional<std::chrono::steady_clock::time_point> deadline;
        if (options.time_limit_s > 0.0)
            deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(options.time_limit_s));
        const SearchEventHandler handler(deadline, options.on_progress);
        cbc.passInEventHandler(&handler);  // CbcModel keeps a clone
    }

    CbcSolverUsefulData data;
    data.noPrinting_ = log == nullptr;
    data.useSignalHandler_ = false;  // leave SIGINT to the application
    CbcMain0(cbc, data);
    cbc.passInMessageHandler(&handler);

    std::vector<std::string> args = {"hetsim-cbc"};
    auto arg = [&](std::string name, std::string value) {
        args.push_back(std::move(name));
        args.push_back(std::move(value));
    };
    // Above level 1, the sub-MIPs of CBC's heuristics run CglPreProcess with its own default
    // handler, which prints on stdout: cap the level.
    arg("-log", std::to_string(log ? std::clamp(options.log_level, 0, 1) : 0));
    arg("-slog", std::to_string(log ? std::clamp(options.log_level, 0, 1) : 0));
    arg("-timeMode", "elapsed");
    if (options.time_limit_s > 0.0)
        arg("-sec", fmt::format("{:.3f}", options.time_limit_s));
    if (options.max_nodes > 0)
        arg("-maxNodes", std::to_string(options.max_nodes));
    // CBC's own default allowable ratio gap is 0 (1e-4 absolute): pass ours explicitly.
    arg("-ratioGap", fmt::format("{:g}", std::max(0.0, options.relative_gap)));
    arg("-randomCbcSeed", std::to_string(1 + options.seed % 2147483646ULL));
    for (const auto& a : options.extra_arguments)
        args.push_back(a);

    args.push_back("-solve");
    args.push_back("-quit");
    std::vector<const char*> argv;
    for (const auto& a : args)
        argv.push_back(a.c_str());
    // CBC reports internal failures (numerical trouble, a bad model in a sub-MIP) by throwing
    // CoinError; callers get MipStatus::error and keep their heuristic split.
    int rc = 0;
    try {
        rc = CbcMain1(static_cast<int>(argv.size()), argv.data(), cbc, no_callback, data);
    } catch (const CoinError& e) {
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        result.status = MipStatus::error;
        result.error =
            fmt::format("CBC failed in {}::{}: {}", e.className(), e.methodName(), e.message());
        if (log)
            *log << options.log_prefix << result.error << '\n';
        return result;
    }

    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.nodes = cbc.getNodeCount();
    result.stopped_at_node_limit = cbc.isNodeLimitReached();
    bool have =
        cbc.bestSolution() != nullptr && cbc.getSolutionCount() > 0 && cbc.getObjValue() < 1e50;
    if (have) {
        result.solution.assign(cbc.bestSolution(), cbc.bestSolution() + model.columns());
    } else if (rc == 0 && cbc.status() == 0 && cbc.solver() != nullptr &&
               cbc.solver()->getNumCols() == model.columns() &&
               cbc.solver()->getColSolution() != nullptr) {
        // When preprocessing solves the whole problem ("No integer variables - nothing to do"),
        // CBC reports an optimum but records no incumbent: the solution is the solver's.
        std::vector<double> x(cbc.solver()->getColSolution(),
                              cbc.solver()->getColSolution() + model.columns());
        if (model.max_violation(x) <= 1e-6) {
            result.solution = std::move(x);
            have = true;
        }
    }
    if (have) {
        std::string where;
        const double violation = model.max_violation(result.solution, &where);
        if (violation > 1e-5 && log)
            *log << options.log_prefix << "incumbent violates the model by " << violation << " ("
                 << where << ")\n";
        result.objective = model.objective_of(result.solution);
    }
    double bound = cbc.getBestPossibleObjValue();
    if (std::fabs(bound) >= 1e50)
        bound = -kMipInfinity;
    // status 0 = the search finished; secondary 0 = tree exhausted, 2 = stopped on the gap,
    // 1 = infeasible. A run that hits the time limit can still end with status 0 (the limit
    // struck in the last phase), so the secondary status and the clock decide.
    const int secondary = cbc.secondaryStatus();
    const bool finished =
        cbc.status() == 0 && (secondary == 0 || secondary == 2) && !cbc.isSecondsLimitReached();
    if (rc != 0) {
        result.status = MipStatus::error;
    } else if (!have && cbc.isProvenInfeasible()) {
        result.status = MipStatus::infeasible;
    } else if (have && finished && cbc.isProvenOptimal()) {
        result.status = MipStatus::optimal;
    } else if (have) {
        result.status = MipStatus::feasible;
    } else {
        result.status = cbc.status() == 1 ? MipStatus::no_solution : MipStatus::error;
    }
    if (have) {
        // An exhausted tree proves the incumbent optimal; otherwise CBC's best possible value
        // is the bound (never above the incumbent).
        if (result.status == MipStatus::optimal && secondary == 0)
            bound = result.objective;
        bound = std::min(bound, result.objective);
        result.best_bound = bound;
        result.gap = std::isfinite(bound)
                         ? (result.objective - bound) / std::max(std::fabs(result.objective), 1e-9)
                         : kMipInfinity;
        if (result.gap < 1e-12)
            result.gap = 0.0;
    } else {
        result.best_bound = bound;
    }
    if (log) {
        *log << options.log_prefix
             << fmt::format(
                    "status {} objective {:.6g} bound {:.6g} gap {:.4g} nodes {} in {:.2f} s",
                    to_string(result.status), result.objective, result.best_bound, result.gap,
                    result.nodes, result.seconds)
             << '\n';
    }
    return result;
}

// --- the hard deadline -------------------------------------------------------------------
//
// CBC checks its time limit between root cut passes and between nodes, but not while it
// preprocesses the model or solves the root LP: on a 2,000-node graph (68k columns, 113k rows)
// `tarnawski.ip_throughput:time=20` was still in CBC's first LP after 300 s. No CBC call can
// be interrupted from outside, so with a time limit CBC runs in a forked child that sends its
// result back through a pipe; a child still running at the deadline is killed and the caller
// keeps its warm start (MipStatus::no_solution, `stopped_at_deadline`).

// The result as bytes: the numbers, the error text, the log, the solution.
void put(std::string& out, const void* data, std::size_t size) {
    if (size > 0)  // an empty vector's data() may be null
        out.append(static_cast<const char*>(data), size);
}
template <typename T>
void put(std::string& out, const T& value) {
    put(out, &value, sizeof value);
}
void put_text(std::string& out, const std::string& text) {
    put(out, text.size());
    out += text;
}

std::string serialise(const MipResult& r, const std::string& log) {
    std::string out;
    put(out, static_cast<int>(r.status));
    put(out, r.objective);
    put(out, r.best_bound);
    put(out, r.gap);
    put(out, r.seconds);
    put(out, r.nodes);
    put(out, r.stopped_at_node_limit);
    put_text(out, r.error);
    put_text(out, log);
    put(out, r.solution.size());
    put(out, r.solution.data(), r.solution.size() * sizeof(double));
    return out;
}

class Reader {
public:
    explicit Reader(const std::string& bytes) : bytes_(bytes) {}
    template <typename T>
    T get() {
        T value{};
        take(&value, sizeof value);
        return value;
    }
    std::string text() {
        const auto size = get<std::size_t>();
        if (size > bytes_.size() - at_)
            throw std::runtime_error("truncated CBC result");
        std::string t(size, '\0');
        take(t.data(), t.size());
        return t;
    }
    void take(void* to, std::size_t size) {
        if (size > bytes_.size() - at_)
            throw std::runtime_error("truncated CBC result");
        if (size > 0)  // an empty vector's data() may be null
            std::memcpy(to, bytes_.data() + at_, size);
        at_ += size;
    }

private:
    const std::string& bytes_;
    std::size_t at_ = 0;
};

bool deserialise(const std::string& bytes, MipResult& r, std::string& log) {
    try {
        Reader in(bytes);
        r.status = static_cast<MipStatus>(in.get<int>());
        r.objective = in.get<double>();
        r.best_bound = in.get<double>();
        r.gap = in.get<double>();
        r.seconds = in.get<double>();
        r.nodes = in.get<long>();
        r.stopped_at_node_limit = in.get<bool>();
        r.error = in.text();
        log = in.text();
        const auto columns = in.get<std::size_t>();
        if (columns > bytes.size() / sizeof(double))
            return false;
        r.solution.resize(columns);
        in.take(r.solution.data(), r.solution.size() * sizeof(double));
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

void write_all(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

// One progress report of the child, as it crosses the progress pipe (a write of fewer than
// PIPE_BUF bytes is atomic, so records never interleave).
struct ProgressRecord {
    long nodes;
    double incumbent;
};

// Runs CBC in a child process; reads its result until `hard_deadline`, then kills it. With
// MipOptions::on_progress, the child's reports come back through a second, non-blocking pipe
// (a full pipe drops a report rather than stall CBC) and are passed on as they arrive.
MipResult run_cbc_with_deadline(const MipModel& model, const MipOptions& options, bool warm,
                                std::chrono::steady_clock::time_point t0,
                                std::chrono::steady_clock::time_point hard_deadline) {
    int fds[2];
    if (::pipe(fds) != 0)
        return run_cbc_here(model, options, warm, t0);
    int progress_fds[2] = {-1, -1};
    if (options.on_progress && ::pipe(progress_fds) != 0)
        progress_fds[0] = progress_fds[1] = -1;
    auto close_progress = [&](int end) {
        if (progress_fds[end] >= 0)
            ::close(progress_fds[end]);
        progress_fds[end] = -1;
    };
    std::cout.flush();
    std::cerr.flush();
    if (options.progress)
        options.progress->flush();
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        close_progress(0);
        close_progress(1);
        return run_cbc_here(model, options, warm, t0);
    }
    if (child == 0) {
        // The child: its log goes back with the result, so that the caller's stream (a file,
        // a string) receives it; _exit skips the parent's atexit handlers and destructors.
        ::close(fds[0]);
        close_progress(0);
        std::ostringstream log;
        MipOptions own = options;
        if (options.progress)
            own.progress = &log;
        own.on_progress = nullptr;
        if (progress_fds[1] >= 0) {
            ::fcntl(progress_fds[1], F_SETFL, ::fcntl(progress_fds[1], F_GETFL) | O_NONBLOCK);
            own.on_progress = [fd = progress_fds[1]](long nodes, double incumbent) {
                const ProgressRecord record{nodes, incumbent};
                [[maybe_unused]] const ssize_t n = ::write(fd, &record, sizeof record);
            };
        }
        MipResult r;
        try {
            r = run_cbc_here(model, own, warm, t0);
        } catch (const std::exception& e) {
            r.status = MipStatus::error;
            r.error = e.what();
        }
        close_progress(1);
        write_all(fds[1], serialise(r, log.str()));
        ::close(fds[1]);
        ::_exit(0);
    }
    ::close(fds[1]);
    close_progress(1);
    std::string bytes, progress_bytes;
    // The child's latest report; before one, the warm start is the incumbent.
    ProgressRecord last{0, warm ? model.objective_of(options.warm_start) : kMipInfinity};
    auto next_tick = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
    bool complete = false;
    char buffer[1 << 16];
    while (true) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= hard_deadline)
            break;
        const auto wait_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(hard_deadline - now).count() + 1;
        pollfd p[2] = {{fds[0], POLLIN, 0}, {progress_fds[0], POLLIN, 0}};
        const int ready = ::poll(p, progress_fds[0] >= 0 ? 2 : 1,
                                 static_cast<int>(std::min<long long>(wait_ms, 100)));
        if (ready < 0 && errno != EINTR)
            break;
        // CBC reports nothing while it preprocesses and solves the root LP, which can take the
        // whole limit on a large model: the last report is repeated, so that the time share
        // still moves.
        if (options.on_progress && std::chrono::steady_clock::now() >= next_tick) {
            next_tick = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
            options.on_progress(last.nodes, last.incumbent);
        }
        if (ready <= 0)
            continue;
        if (progress_fds[0] >= 0 && p[1].revents != 0) {
            const ssize_t n = ::read(progress_fds[0], buffer, sizeof buffer);
            if (n > 0) {
                progress_bytes.append(buffer, static_cast<std::size_t>(n));
                const std::size_t whole = progress_bytes.size() / sizeof(ProgressRecord);
                if (whole > 0) {
                    std::memcpy(&last, progress_bytes.data() + (whole - 1) * sizeof(ProgressRecord),
                                sizeof last);
                    progress_bytes.erase(0, whole * sizeof(ProgressRecord));
                    options.on_progress(last.nodes, last.incumbent);
                    next_tick = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
                }
            } else if (n == 0 || errno != EINTR) {
                close_progress(0);  // the child closed its end (or the pipe failed)
            }
        }
        if (p[0].revents == 0)
            continue;
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            complete = true;  // end of file: the child wrote everything and closed the pipe
            break;
        }
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    close_progress(0);
    if (!complete)
        ::kill(child, SIGKILL);
    int wstatus = 0;
    while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
    }

    MipResult result;
    result.warm_start_accepted = warm;
    std::string log;
    if (complete && deserialise(bytes, result, log)) {
        result.warm_start_accepted = warm;
        if (options.progress)
            *options.progress << log;
        return result;
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.stopped_at_deadline = !complete;
    result.status = complete ? MipStatus::error : MipStatus::no_solution;
    if (complete)
        result.error = "CBC's process ended without a result";
    if (options.progress)
        *options.progress << options.log_prefix
                          << (complete
                                  ? result.error
                                  : fmt::format("CBC still running at the deadline ({:.1f} s): "
                                                "stopped",
                                                result.seconds))
                          << '\n';
    return result;
}

}  // namespace

MipResult solve_mip(const MipModel& model, const MipOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool warm = check_warm_start(model, options);
    if (!(options.time_limit_s > 0.0))
        return run_cbc_here(model, options, warm, t0);
    // CBC's own limit ends most runs; the hard deadline leaves it 5 % + 0.5 s to wind down.
    // CBC checks its limit between nodes, and a node of a large model can take it 0.3 s past
    // it (seen on BERT-24's latency MIP under ASan) before it writes its bound and incumbent;
    // killed then, the run would lose both. A time limit L stays a promise: the MIP gets what
    // is left of L, so the whole solve ends by 1.05 L + 0.5 s <= 1.1 L + 1 s.
    const auto hard_deadline =
        t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(1.05 * options.time_limit_s + 0.5));
    return run_cbc_with_deadline(model, options, warm, t0, hard_deadline);
}

}  // namespace hetsim::placement::tarnawski
