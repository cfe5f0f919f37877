// The sweep's process pool, progress display and MPI division of work. The only file of hetsim
// that includes mpi.h.
#include "sweep/runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <mpi.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "sim/atomic_file.hpp"
#include "sim/progress.hpp"
#include "sweep/results_store.hpp"

namespace hetsim::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// How often the loops look at workers, messages and signals: a finished worker's slot stays
// idle for up to this long, which matters for points of a tenth of a second (at 20 ms, -j 2 ran
// 40 such points 1.60-1.91x as fast as -j 1; at 5 ms 1.84-1.92x), and a poll costs a waitpid
// per worker.
constexpr auto kPollPeriod = std::chrono::milliseconds(5);

volatile std::sig_atomic_t g_interrupts = 0;

void on_interrupt(int) {
    g_interrupts = g_interrupts + 1;
}

// SIGINT and SIGTERM count interrupts while a sweep runs; the previous handlers come back after.
class InterruptGuard {
public:
    InterruptGuard() {
        g_interrupts = 0;
        struct sigaction action {};
        action.sa_handler = on_interrupt;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~InterruptGuard() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The last line a failed worker printed ("hetsim: error: ..." without its prefix).
std::string last_error_line(const fs::path& log) {
    const std::string last = sim::last_nonblank_line(log);
    for (const char* prefix : {"hetsim: error: ", "hetsim: internal error: "}) {
        if (last.starts_with(prefix))
            return last.substr(std::strlen(prefix));
    }
    return last;
}

// Worker processes, one per point: `hetsim run STUDY --set ... --out DIR/points/<id>`.
class Executor {
public:
    Executor(const SweepSpec& spec, const RunOptions& options, const ResultsStore& store)
        : spec_(spec), options_(options), store_(store) {}

    std::size_t running() const { return jobs_.size(); }

    void start(const DesignPoint& point) {
        const fs::path dir = options_.out_dir / "points" / point.id;
        // A point that runs again (resumed after a kill, or retried) starts from nothing.
        fs::remove_all(dir);
        fs::create_directories(dir);
        const fs::path& study = point.study.empty() ? spec_.study : point.study;
        std::vector<std::string> args{options_.program.string(), "run", study.string()};
        for (const std::string& a : point.assignments) {
            args.push_back("--set");
            args.push_back(a);
        }
        args.push_back("--out");
        args.push_back(dir.string());
        if (spec_.trace)
            args.push_back("--trace");
        args.insert(args.end(), options_.worker_arguments.begin(), options_.worker_arguments.end());
        std::vector<char*> argv;
        for (auto& a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        const std::string log = (dir / "log.txt").string();
        const pid_t parent = getpid();
        // fork + exec rather than posix_spawn: the worker must die with the sweep
        // (PR_SET_PDEATHSIG), so that a killed sweep leaves no worker writing into a point's
        // folder that --resume is about to run again. Between fork and exec only
        // async-signal-safe calls.
        const pid_t pid = fork();
        if (pid < 0)
            throw std::runtime_error(
                fmt::format("cannot start a worker: {}", std::strerror(errno)));
        if (pid == 0) {
            // Its own process group: a terminal's Ctrl-C reaches the sweep, which decides, and
            // a timeout kills the worker with anything it started.
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(127);  // the sweep died before prctl
            const int in = ::open("/dev/null", O_RDONLY);
            const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (in < 0 || out < 0)
                _exit(127);
            dup2(in, STDIN_FILENO);
            dup2(out, STDOUT_FILENO);
            dup2(out, STDERR_FILENO);
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            execv(argv[0], argv.data());
            _exit(127);
        }
        setpgid(pid, pid);  // also here: kill(-pid) must work before the child runs
        jobs_.push_back(Job{point, pid, Clock::now(), false, false});
    }

    // The points that ended since the last call (killed ones are not reported).
    std::vector<PointOutcome> poll() {
        std::vector<PointOutcome> done;
        for (auto it = jobs_.begin(); it != jobs_.end();) {
            int status = 0;
            const pid_t r = waitpid(it->pid, &status, WNOHANG);
            if (r == 0) {
                if (spec_.timeout_s > 0.0 && !it->timed_out &&
                    seconds_since(it->start) > spec_.timeout_s) {
                    kill(-it->pid, SIGKILL);
                    it->timed_out = true;
                }
                ++it;
                continue;
            }
            if (!it->killed)
                done.push_back(outcome(*it, r < 0 ? -1 : status));
            it = jobs_.erase(it);
        }
        return done;
    }

    // A second interrupt: every worker is killed and its point left for --resume.
    void kill_all() {
        for (Job& job : jobs_) {
            kill(-job.pid, SIGKILL);
            job.killed = true;
        }
    }

private:
    struct Job {
        DesignPoint point;
        pid_t pid;
        Clock::time_point start;
        bool timed_out;
        bool killed;
    };

    PointOutcome outcome(const Job& job, int status) const {
        const fs::path dir = options_.out_dir / "points" / job.point.id;
        const double seconds = seconds_since(job.start);
        std::string error;
        if (job.timed_out) {
            error = fmt::format("timed out after {:g} s", spec_.timeout_s);
        } else if (status == -1) {
            error = "the worker's exit status was lost";
        } else if (WIFSIGNALED(status)) {
            const int sig = WTERMSIG(status);
            error = fmt::format("worker killed by signal {} ({})", sig, strsignal(sig));
        } else if (WEXITSTATUS(status) != 0) {
            error = last_error_line(dir / "log.txt");
            if (error.empty())
                error = fmt::format("worker exited with code {}", WEXITSTATUS(status));
        } else {
            try {
                return store_.read_point(job.point, dir, seconds);
            } catch (const std::exception& e) {
                error = e.what();
            }
        }
        return store_.failed_point(
            job.point, job.point.study_name.empty() ? options_.study_name : job.point.study_name,
            error, seconds);
    }

    const SweepSpec& spec_;
    const RunOptions& options_;
    const ResultsStore& store_;
    std::vector<Job> jobs_;
};

// The bar on a terminal, else a line per finished point.
class Progress {
public:
    Progress(const RunOptions& options, std::size_t total, std::size_t skipped)
        : out_(options.log), terminal_(options.terminal), total_(total), skipped_(skipped) {}

    void point(const DesignPoint& p, const PointOutcome& o, std::size_t running) {
        (o.ok ? ok_ : failed_) += 1;
        if (!out_)
            return;
        if (terminal_) {
            draw(running, true);
            if (!o.ok) {
                *out_ << fmt::format("\r\033[Kfailed {} ({}): {}\n", p.id, p.label(), o.error);
                draw(running, true);
            }
            return;
        }
        *out_ << fmt::format("[{}/{}] {} {} {:.1f} s | {} | {} ETA {}\n", done(), total_, p.id,
                             o.ok ? "ok" : "FAILED (" + o.error + ")", o.seconds, p.label(),
                             rate_text(), sim::duration_text(eta()))
              << std::flush;
    }
    void tick(std::size_t running) {
        if (terminal_ && out_)
            draw(running, false);
    }
    void finish() {
        if (terminal_ && out_)
            *out_ << "\n" << std::flush;
    }
    std::size_t ok() const { return ok_; }
    std::size_t failed() const { return failed_; }

private:
    std::size_t done() const { return skipped_ + ok_ + failed_; }
    double rate_per_s() const {
        const double s = seconds_since(start_);
        return s > 0.0 ? static_cast<double>(ok_ + failed_) / s : 0.0;
    }
    std::string rate_text() const { return fmt::format("{:.2f} points/min", 60.0 * rate_per_s()); }
    double eta() const {
        const double rate = rate_per_s();
        return rate > 0.0 ? static_cast<double>(total_ - done()) / rate : 0.0;
    }
    void draw(std::size_t running, bool force) {
        if (!force && seconds_since(last_draw_) < 0.25)
            return;
        last_draw_ = Clock::now();
        *out_ << fmt::format(
                     "\r\033[Ksweep {} {}/{} done, {} failed, {} running | {} | ETA {}",
                     sim::progress_bar(static_cast<double>(done()) / static_cast<double>(total_)),
                     done(), total_, failed_, running, rate_text(),
                     ok_ + failed_ > 0 ? sim::duration_text(eta()) : "?")
              << std::flush;
    }

    std::ostream* out_;
    bool terminal_;
    std::size_t total_, skipped_, ok_ = 0, failed_ = 0;
    Clock::time_point start_ = Clock::now(), last_draw_{};
};

// --- MPI: rank 0 hands out point indices and writes; every rank runs points ----------------

enum Tag : int { kRequest = 1, kAssign = 2, kResult = 3 };

// Rank 0's side: answers requests and collects results without ever blocking.
class Coordinator {
public:
    explicit Coordinator(int ranks)
        : finished_(static_cast<std::size_t>(ranks), false),
          outstanding_(static_cast<std::size_t>(ranks), 0) {
        finished_[0] = true;  // rank 0 runs its own points directly
    }

    template <typename Next, typename Sink>
    void serve(Next&& next, Sink&& sink) {
        while (true) {
            int flag = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
            if (!flag)
                return;
            const auto rank = static_cast<std::size_t>(status.MPI_SOURCE);
            if (status.MPI_TAG == kRequest) {
                int unused = 0;
                MPI_Recv(&unused, 1, MPI_INT, status.MPI_SOURCE, kRequest, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                const std::optional<std::size_t> index = next();
                long long reply = index ? static_cast<long long>(*index) : -1;
                if (index)
                    ++outstanding_[rank];
                else
                    finished_[rank] = true;
                MPI_Send(&reply, 1, MPI_LONG_LONG, status.MPI_SOURCE, kAssign, MPI_COMM_WORLD);
            } else {
                int size = 0;
                MPI_Get_count(&status, MPI_CHAR, &size);
                std::string text(static_cast<std::size_t>(size), '\0');
                MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, kResult, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                --outstanding_[rank];
                sink(PointOutcome::deserialize(text));
            }
        }
    }

    bool all_done() const {
        for (std::size_t r = 0; r < finished_.size(); ++r) {
            if (!finished_[r] || outstanding_[r] != 0)
                return false;
        }
        return true;
    }

private:
    std::vector<bool> finished_;
    std::vector<int> outstanding_;
};

// --resume keeps a point's rows only when the point ran the study it runs now: the point ids
// hash the axes' values alone, so after the base study (or its platform) changed, the same id
// would reuse rows of another study (a placer added to the study never ran).
ResultsStore::ResumeCheck reuse_check(const SweepSpec& spec, const DesignSpace& space,
                                      const RunOptions& options) {
    if (!options.recorded)
        return {};
    return [&spec, &space,
            &recorded = *options.recorded](const std::map<std::string, std::string>& present)
               -> std::optional<ResultsStore::Refusal> {
        for (const DesignPoint& p : space.points) {
            if (p.study_digest.empty() || !present.count(p.id))
                continue;
            const auto it = recorded.digests.find(p.id);
            if (it != recorded.digests.end() && it->second == p.study_digest)
                continue;
            const std::string point = fmt::format("point {} ({})", p.id, p.label());
            if (!recorded.found)
                return ResultsStore::Refusal{
                    recorded.manifest,
                    fmt::format("is missing, so nothing says which study the rows of {} in "
                                "results.csv came from",
                                point)};
            if (it == recorded.digests.end())
                return ResultsStore::Refusal{
                    recorded.manifest,
                    fmt::format("does not record which study {} ran (written by an older "
                                "hetsim?), so its rows in results.csv cannot be checked",
                                point)};
            // sweep.json records the study's absolute path (a compare's: its compare file).
            const std::string study = fs::absolute(p.study.empty() ? spec.study : p.study).string();
            return ResultsStore::Refusal{
                recorded.manifest,
                fmt::format("{} ran another study than it runs now: {}", point,
                            recorded.study != recorded.current_study
                                ? fmt::format("the sweep's study was '{}', now '{}'",
                                              recorded.study, recorded.current_study)
                                : fmt::format("'{}' or its platform changed since", study))};
        }
        return std::nullopt;
    };
}

SweepSummary coordinate(const SweepSpec& spec, const DesignSpace& space, const RunOptions& options,
                        int ranks) {
    const auto start = Clock::now();
    ResultsStore store(options.out_dir, options.study_header, spec.axis_paths());
    const std::map<std::string, std::string> present =
        store.open(options.resume, options.retry_failed, reuse_check(spec, space, options));
    if (options.log && !options.banner.empty())
        *options.log << options.banner << std::flush;
    SweepSummary summary;
    summary.total = space.points.size();
    std::deque<std::size_t> queue;
    for (const DesignPoint& p : space.points) {
        if (present.count(p.id))
            ++summary.skipped;
        else
            queue.push_back(p.index);
    }
    if (options.log && summary.skipped > 0) {
        *options.log << fmt::format("sweep {}: {} of {} points already in {}, {} to run\n",
                                    spec.name, summary.skipped, summary.total,
                                    store.csv_path().string(), queue.size());
    }
    Executor executor(spec, options, store);
    Progress progress(options, summary.total, summary.skipped);
    std::optional<Coordinator> coordinator;
    if (ranks > 1)
        coordinator.emplace(ranks);

    bool stopping = false, killed = false;
    const auto record = [&](const PointOutcome& o) {
        store.append(o);
        progress.point(space.points[o.index], o, executor.running());
    };
    const auto next = [&]() -> std::optional<std::size_t> {
        if (stopping || queue.empty())
            return std::nullopt;
        const std::size_t i = queue.front();
        queue.pop_front();
        return i;
    };
    while (true) {
        if (g_interrupts >= 1 && !stopping) {
            stopping = true;
            if (options.log) {
                *options.log << fmt::format(
                    "\nsweep {}: interrupted; finishing the {} point(s) in flight (interrupt "
                    "again to abandon them)\n",
                    spec.name, executor.running());
            }
        }
        if (g_interrupts >= 2 && !killed) {
            executor.kill_all();
            killed = true;
        }
        while (executor.running() < static_cast<std::size_t>(options.jobs)) {
            const auto i = next();
            if (!i)
                break;
            executor.start(space.points[*i]);
        }
        for (const PointOutcome& o : executor.poll())
            record(o);
        if (coordinator)
            coordinator->serve(next, record);
        progress.tick(executor.running());
        if (executor.running() == 0 && (queue.empty() || stopping) &&
            (!coordinator || coordinator->all_done()))
            break;
        std::this_thread::sleep_for(kPollPeriod);
    }
    progress.finish();
    summary.ok = progress.ok();
    summary.failed = progress.failed();
    summary.not_run = summary.total - summary.skipped - summary.ok - summary.failed;
    summary.interrupted = stopping;
    // A complete sweep's files list the points in the sweep's order, whatever order they
    // finished in: the same bytes as an uninterrupted run (but for wall-clock columns).
    if (summary.not_run == 0)
        store.sort(space.points);
    summary.seconds = seconds_since(start);
    return summary;
}

// A rank other than 0: asks rank 0 for points while it has free workers, sends rows back.
SweepSummary work_for_rank0(const SweepSpec& spec, const DesignSpace& space,
                            const RunOptions& options) {
    // Rows are formatted here (the point's files are on this machine) and written by rank 0.
    const ResultsStore store(options.out_dir, options.study_header, spec.axis_paths());
    Executor executor(spec, options, store);
    SweepSummary summary;
    summary.writer = false;
    bool no_more = false;
    while (true) {
        if (g_interrupts >= 1)
            no_more = true;
        while (!no_more && executor.running() < static_cast<std::size_t>(options.jobs)) {
            int request = 0;
            MPI_Send(&request, 1, MPI_INT, 0, kRequest, MPI_COMM_WORLD);
            long long index = -1;
            MPI_Recv(&index, 1, MPI_LONG_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (index < 0)
                no_more = true;
            else
                executor.start(space.points.at(static_cast<std::size_t>(index)));
        }
        for (const PointOutcome& o : executor.poll()) {
            const std::string text = o.serialize();
            MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kResult,
                     MPI_COMM_WORLD);
            (o.ok ? summary.ok : summary.failed) += 1;
        }
        if (no_more && executor.running() == 0)
            break;
        std::this_thread::sleep_for(kPollPeriod);
    }
    return summary;
}

}  // namespace

bool under_mpi() {
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    return size != nullptr && *size != '\0';
}

bool writes_results() {
    // The rank as mpirun sets it before MPI_Init (the app writes sweep.json before the run).
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    return !under_mpi() || rank == nullptr || std::string_view(rank) == "0";
}

SweepSummary run_sweep(const SweepSpec& spec, const DesignSpace& space, const RunOptions& options) {
    if (options.jobs < 1)
        throw std::invalid_argument("-j must be at least 1");
    InterruptGuard guard;
    if (!under_mpi())
        return coordinate(spec, space, options, 1);

    MPI_Init(nullptr, nullptr);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    SweepSummary summary;
    try {
        summary = rank == 0 ? coordinate(spec, space, options, ranks)
                            : work_for_rank0(spec, space, options);
    } catch (const std::exception& e) {
        // The other ranks wait for rank 0: end the job rather than leave them hanging.
        std::fprintf(stderr, "hetsim: error: rank %d: %s\n", rank, e.what());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return summary;
}

}  // namespace hetsim::sweep
