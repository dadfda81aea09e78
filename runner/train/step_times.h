// Per-step times and their spread (median, 10th and 90th percentile, mean), and the clock that
// measures them.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace runner {

using SteadyClock = std::chrono::steady_clock;

// Wall seconds since `start`.
inline double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

struct StepTimeSummary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0;  // seconds
};

// Percentiles by linear interpolation between the closest ranks (numpy's default); all zero
// when there are no steps.
StepTimeSummary summarize_step_times(std::vector<double> seconds);

// The q-quantile (0 <= q <= 1) of sorted values; 0 for none.
double quantile_of_sorted(const std::vector<double>& sorted, double q);

// Step times that add up to wall time also where the device runs behind the host (a GPU): the
// host times a step's enqueueing only, and the wait when it next reads a value from the device
// (the loss) is shared out equally among the steps since the previous read. On the CPU the
// reads do not wait and each step keeps its own time.
class StepClock {
 public:
  // A step's host time; `kept` steps appear in seconds(), all count in total().
  void step(double seconds, bool kept = true);
  // A read from the device that waited `seconds`.
  void wait(double seconds);
  const std::vector<double>& seconds() const { return seconds_; }
  double total() const { return total_; }

 private:
  std::vector<double> seconds_;
  std::size_t first_since_wait_ = 0;  // index in seconds_ of the first kept step since a wait
  std::size_t steps_since_wait_ = 0;  // kept or not
  double total_ = 0;
};

}  // namespace runner
