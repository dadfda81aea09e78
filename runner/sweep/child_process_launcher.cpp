// `--jobs N`: up to N points at once, each a child process of this runner (`runner sweep <the same
// arguments> --point K`), with GPUs handed out one per running point. The loop: start points
// while slots (and GPUs) are free, reap finished children, redraw the progress line, pass an
// interrupt on.

#include <fmt/format.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "runner/report/read_report.h"
#include "runner/sweep/gpu_slots.h"
#include "runner/sweep/jobs_progress.h"
#include "runner/sweep/launcher.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/result_lines.h"
#include "runner/sweep/sweep_folder_lock.h"
#include "runner/util/background_child.h"
#include "runner/util/files.h"
#include "runner/util/folders.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

using Clock = std::chrono::steady_clock;

struct RunningPoint {
  std::size_t index = 0;
  pid_t pid = -1;
  int gpu = -1;
  Clock::time_point started;
  std::filesystem::file_time_type launched;
};

std::string why_no_report(int exit_code, const std::filesystem::path& log) {
  std::string how =
      exit_code > 128 ? fmt::format("was ended by signal {}{}", exit_code - 128,
                                    exit_code == 128 + SIGKILL ? " (SIGKILL: perhaps the kernel's "
                                                                 "out-of-memory killer)"
                                                               : "")
                      : fmt::format("exited with code {}", exit_code);
  return fmt::format("the point's process {} before writing its report; its output is in {}", how,
                     log.string());
}

class ChildProcesses {
 public:
  ChildProcesses(const LaunchRequest& request, Console& console, SweepTally& tally)
      : r_(request),
        console_(console),
        tally_(tally),
        gpus_(request.gpus),
        lock_(*request.lock),
        lines_(request.plan),
        progress_(request.todo.size(), request.jobs) {}

  void run() {
    std::size_t next = 0;
    for (;;) {
      if (interrupt_requested() && !forwarded_) forward_interrupt();
      auto starting = [&] { return !tally_.stopped && !tally_.interrupted; };
      while (starting() && next < r_.todo.size() && static_cast<int>(running_.size()) < r_.jobs) {
        if (!start(r_.todo[next])) break;  // its GPU is busy: wait for one
        ++next;
      }
      if (running_.empty() && (!starting() || next == r_.todo.size())) return;
      if (!reap()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      show_progress();
    }
  }

 private:
  // Starts the point (or records an invalid one at once); false when it must wait for a GPU.
  bool start(std::size_t index) {
    const PlannedPoint& planned = r_.plan[index];
    if (!planned.valid) {
      finish(index,
             record_point(planned, r_.spec, r_.base, r_.dir, RunStatus::invalid, planned.error, ""),
             0);
      return true;
    }
    std::optional<int> gpu = gpus_.take(planned);
    if (!gpu) return false;
    std::vector<std::string> argv = {std::filesystem::read_symlink("/proc/self/exe").string()};
    argv.insert(argv.end(), r_.arguments.begin(), r_.arguments.end());
    argv.insert(argv.end(), {"--point", std::to_string(index + 1)});
    std::vector<std::string> env = {fmt::format("{}={}", kInheritedLockVariable, lock_.fd())};
    if (*gpu >= 0 && !planned.device.index)
      env.push_back(fmt::format("CUDA_VISIBLE_DEVICES={}", *gpu));
    const auto folder = r_.dir / planned.point.id;
    create_folders(folder, "the sweep point's folder");
    RunningPoint p{index, -1, *gpu, Clock::now(), std::filesystem::file_time_type::clock::now()};
    p.pid = start_background_child(argv, env, folder / "point.log");
    running_.push_back(p);
    return true;
  }

  // Reaps the children that ended; true when one did.
  bool reap() {
    bool any = false;
    for (;;) {
      int status = 0;
      pid_t pid = ::waitpid(-1, &status, WNOHANG);
      if (pid <= 0) return any;
      for (auto it = running_.begin(); it != running_.end(); ++it) {
        if (it->pid != pid) continue;
        RunningPoint p = *it;
        running_.erase(it);
        if (p.gpu >= 0) gpus_.give_back(p.gpu);
        finish(p.index, collect(p, exit_code_of(status)),
               std::chrono::duration<double>(Clock::now() - p.started).count());
        any = true;
        break;
      }
    }
  }

  // The point's outcome from the report its process wrote during this run.
  PointRun collect(const RunningPoint& p, int exit_code) {
    const PlannedPoint& planned = r_.plan[p.index];
    const auto report_path = r_.dir / planned.point.id / "report.json";
    std::error_code error;
    auto written = std::filesystem::last_write_time(report_path, error);
    if (!error && written >= p.launched &&
        point_state(report_path, planned) != PointState::missing) {
      std::optional<RunRecord> report = read_record_leniently(report_path);
      if (report && report->status &&
          field_of(report->sweep_point, &RecordSweepPoint::point_sha256) == planned.point_sha)
        return {*report->status, std::move(*report)};
    }
    // Stopped by Ctrl-C before its run began (while planning): interrupted, to run again.
    const bool interrupted =
        exit_code == 130 || exit_code == 128 + SIGINT || exit_code == 128 + SIGTERM;
    return record_point(planned, r_.spec, r_.base, r_.dir,
                        interrupted ? RunStatus::interrupted : RunStatus::failed,
                        why_no_report(exit_code, r_.dir / planned.point.id / "point.log"), "");
  }

  void finish(std::size_t index, const PointRun& run, double seconds) {
    ++tally_.ran;
    ++tally_.counts[run.status];
    progress_.finished(seconds, /*ran=*/r_.plan[index].valid);
    std::string line = lines_.line(index, run);
    if (ended_as_planned(run.status)) {
      console_.line(line);
    } else {
      console_.warning(line);
    }
    if (run.status == RunStatus::interrupted) tally_.interrupted = true;
    if (r_.fail_fast && !ended_as_planned(run.status)) tally_.stopped = true;
  }

  void forward_interrupt() {
    for (const RunningPoint& p : running_) ::kill(p.pid, SIGINT);
    forwarded_ = true;
    tally_.interrupted = true;
  }

  void show_progress() {
    if (running_.empty()) return;
    std::vector<std::string> names;
    for (const RunningPoint& p : running_)
      names.push_back(fmt::format("{} {}", p.index + 1, r_.plan[p.index].point.id));
    console_.progress(progress_.line(names));
  }

  const LaunchRequest& r_;
  Console& console_;
  SweepTally& tally_;
  GpuSlots gpus_;
  InheritableLock lock_;
  SweepResultLines lines_;
  JobsProgress progress_;
  std::vector<RunningPoint> running_;
  bool forwarded_ = false;
};

class ChildProcessLauncher : public Launcher {
 public:
  void launch(const LaunchRequest& request, Console& console, SweepTally& tally) override {
    ChildProcesses(request, console, tally).run();
  }
};

}  // namespace

std::unique_ptr<Launcher> child_process_launcher() {
  return std::make_unique<ChildProcessLauncher>();
}

}  // namespace runner
