// The line a sweep prints when a point ends, "[3/8] batch_size=64: completed: ...". An error the
// same as one already shown (a device that is not usable, warned of by the plan and met again by
// every point on it) is not repeated: "failed: the same error as point 2".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/sweep/point_run.h"
#include "runner/sweep/sweep_plan.h"

namespace runner {

class SweepResultLines {
 public:
  // The plan's warnings already name the invalid points' errors and unusable devices.
  explicit SweepResultLines(const std::vector<PlannedPoint>& plan);
  std::string line(std::size_t index, const PointRun& run);

 private:
  const std::vector<PlannedPoint>& plan_;
  std::map<std::string, std::string> shown_;  // error → where it was shown
};

}  // namespace runner
