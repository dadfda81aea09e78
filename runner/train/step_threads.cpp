// Fixed, replayed and fitted compute threads.
#include "runner/train/step_threads.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace runner {

bool fit_threads(ThreadFit& fit, int most, double free_cores) {
  // A quarter core of slack: a shell or a monitor beside the run keeps its threads.
  const int target = std::clamp(static_cast<int>(std::floor(free_cores + 0.25)), 1, most);
  if (fit.windows++ == 0) {
    const bool changed = target != fit.threads;
    fit.threads = target;
    return changed;
  }
  fit.windows_short = target < fit.threads ? fit.windows_short + 1 : 0;
  fit.windows_with_room = target > fit.threads ? fit.windows_with_room + 1 : 0;
  if (fit.windows_short >= 2 || fit.windows_with_room >= 5) {
    fit.threads = target;
    fit.windows_short = fit.windows_with_room = 0;
    return true;
  }
  return false;
}

StepThreads StepThreads::fixed(int threads) {
  StepThreads t;
  t.first_ = t.most_ = t.fit_.threads = std::max(1, threads);
  return t;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StepThreads StepThreads::fitted(int most, const CpuUse& since, std::function<CpuUse()> read,
                                std::function<double()> clock, double window_seconds) {
  StepThreads t = fixed(most);
  t.policy_ = ThreadPolicy::fitted;
  t.read_ = std::move(read);
  t.clock_ = std::move(clock);
  t.window_seconds_ = window_seconds;
  t.window_start_ = since;
  return t;
}

StepThreads StepThreads::replayed(int first, std::vector<ThreadChange> changes) {
  StepThreads t = fixed(first);
  t.policy_ = ThreadPolicy::replayed;
  std::stable_sort(changes.begin(), changes.end(),
                   [](const ThreadChange& a, const ThreadChange& b) { return a.step < b.step; });
  t.planned_ = std::move(changes);
  return t;
}

void StepThreads::change(std::int64_t step, int threads, double free_cores, Program& program) {
  program.set_threads(threads);
  fit_.threads = threads;
  made_.push_back({step, threads, free_cores});
}

std::vector<ThreadChange> StepThreads::take_planned(std::int64_t step) {
  std::vector<ThreadChange> due;
  std::size_t done = 0;
  while (done < planned_.size() && planned_[done].step <= step) {
    ThreadChange c = planned_[done++];
    // A fitted run never went above its first count: an edited report cannot ask for more.
    if (c.threads < 1) continue;
    c.step = step;
    c.threads = std::min(c.threads, first_);
    due.push_back(c);
  }
  planned_.erase(planned_.begin(), planned_.begin() + static_cast<std::ptrdiff_t>(done));
  return due;
}

StepThreads::Fitting StepThreads::fit_window() {
  if (clock_() - window_start_.wall_seconds < window_seconds_) return {};
  const CpuUse now = read_();
  const double wall = now.wall_seconds - window_start_.wall_seconds;
  if (wall <= 0) return {};
  const double others = (now.busy_seconds - window_start_.busy_seconds) -
                        (now.own_seconds - window_start_.own_seconds);
  const double free_cores = std::max(0.0, now.cpus - std::max(0.0, others) / wall);
  window_start_ = now;
  return {fit_threads(fit_, most_, free_cores), free_cores};
}

int StepThreads::before_compile() {
  if (policy_ == ThreadPolicy::replayed) {
    for (const ThreadChange& c : take_planned(0)) {
      fit_.threads = c.threads;
      made_.push_back(c);
    }
  } else if (policy_ == ThreadPolicy::fitted) {
    if (const Fitting f = fit_window(); f.changed) made_.push_back({0, fit_.threads, f.free_cores});
  }
  return fit_.threads;
}

void StepThreads::before_step(std::int64_t step, Program& program) {
  if (policy_ == ThreadPolicy::replayed) {
    for (const ThreadChange& c : take_planned(step)) change(step, c.threads, c.free_cores, program);
    return;
  }
  if (policy_ != ThreadPolicy::fitted) return;
  if (const Fitting f = fit_window(); f.changed) change(step, fit_.threads, f.free_cores, program);
}

}  // namespace runner
