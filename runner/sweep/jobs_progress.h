// The progress line of `runner sweep --jobs N`: the points running, how many of those to run
// have finished, and an estimate of the time left from the mean point time so far.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace runner {

class JobsProgress {
 public:
  JobsProgress(std::size_t total, int jobs) : total_(total), jobs_(jobs) {}
  // A point that ended after `seconds`; `ran` false for one recorded without running (invalid),
  // which does not count towards the mean point time.
  void finished(double seconds, bool ran = true);
  // "[3/16 finished] running: 4 batch_size=32, 5 batch_size=64; about 1m05s left"
  std::string line(const std::vector<std::string>& running) const;
  std::size_t finished_count() const { return finished_; }

 private:
  std::size_t total_;
  int jobs_;
  std::size_t finished_ = 0;
  std::size_t timed_ = 0;  // of those, the points that ran
  double seconds_ = 0;     // their wall time, summed
};

// "42s", "1m05s", "2h03m".
std::string short_duration(double seconds);

}  // namespace runner
