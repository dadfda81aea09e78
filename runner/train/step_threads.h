// The compute threads of each training step: fixed by the config, replayed from a report
// (`reproduce`), or fitted to the cores the machine gives the run now (training.threads 0, the
// default), so that a busy machine or a second run beside this one does not leave threads
// waiting at every barrier for a core that another process holds.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "backends/backend.h"
#include "runner/util/enum_names.h"
#include "runner/util/process_stats.h"

namespace runner {

// From step `step` of the run on, the steps computed with `threads`.
struct ThreadChange {
  std::int64_t step = 0;
  int threads = 0;
  double free_cores = 0;  // the cores the others left free when it was decided
};

// Seconds of the steady clock.
double steady_seconds();

enum class ThreadPolicy { fixed, fitted, replayed };
inline constexpr EnumNames<ThreadPolicy, 3> kThreadPolicyNames = {
    {{ThreadPolicy::fixed, "fixed"},
     {ThreadPolicy::fitted, "fitted"},
     {ThreadPolicy::replayed, "replayed"}}};

// The fitting rule, one window of machine use at a time: the first window (the run's start-up)
// decides alone; after it, fewer threads after two windows in a row whose free cores could not
// hold the threads, more only after five in a row with room for them (another run's pause
// between epochs must not start a tug of war).
struct ThreadFit {
  int threads = 1;
  int windows = 0;
  int windows_short = 0;
  int windows_with_room = 0;
};
// Returns whether fit.threads changed. `free_cores`: the cores minus what the other processes
// used during the window.
bool fit_threads(ThreadFit& fit, int most, double free_cores);

class StepThreads {
 public:
  static StepThreads fixed(int threads);
  // Starts at `most` and follows what `read` says the others leave free, a window of at least
  // `window_seconds` of `clock` at a time (read only then: /proc/stat costs more than a step of
  // a small model); the first window is from `since` (read when the run started) to the first
  // step.
  static StepThreads fitted(int most, const CpuUse& since,
                            std::function<CpuUse()> read = read_cpu_use,
                            std::function<double()> clock = steady_seconds,
                            double window_seconds = 0.25);
  // The recorded changes, at their steps, from `first` threads (the run's starting count, which
  // also bounds them: a fitted run never exceeds it).
  static StepThreads replayed(int first, std::vector<ThreadChange> changes);

  // Before the program is compiled: the count to compile it for. Fitted, when start-up (the
  // config, the data, a precision's timing) already filled a window, the first count is
  // decided now and recorded as a change at step 0; replayed, the changes recorded at step 0
  // are made now. Either way the program is compiled once for it, not compiled for the most
  // threads and compiled again at the first step.
  int before_compile();
  // Before step `step` of the run (0-based, resumed epochs included): sets the program's
  // threads when they change, and records the change.
  void before_step(std::int64_t step, Program& program);

  int first() const { return first_; }
  int current() const { return fit_.threads; }
  ThreadPolicy policy() const { return policy_; }
  // The changes made so far, in step order.
  const std::vector<ThreadChange>& changes() const { return made_; }

 private:
  void change(std::int64_t step, int threads, double free_cores, Program& program);
  // Fitted: when a window has passed, what the others left free in it and whether the count
  // changes (then fit_.threads is the new one).
  struct Fitting {
    bool changed = false;
    double free_cores = 0;
  };
  Fitting fit_window();
  // Replayed: the planned changes up to `step`, capped at the first count, then forgotten.
  std::vector<ThreadChange> take_planned(std::int64_t step);

  ThreadPolicy policy_ = ThreadPolicy::fixed;
  int first_ = 1;
  int most_ = 1;
  ThreadFit fit_;
  std::function<CpuUse()> read_;
  std::function<double()> clock_;
  double window_seconds_ = 0;
  CpuUse window_start_;
  std::vector<ThreadChange> planned_;  // replayed: still to make, in step order
  std::vector<ThreadChange> made_;
};

}  // namespace runner
