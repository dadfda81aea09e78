// Resuming a sweep: whether a point's report is complete (then it is skipped) or the point
// must run (no report, a failed one, or one made from another config or run settings).
#pragma once

#include <filesystem>
#include <string>

#include "runner/sweep/sweep_plan.h"

namespace runner {

// complete and stopped_early (ASHA stopped it at a rung) are done: a resumed sweep skips them.
enum class PointState { missing, complete, stopped_early, unfinished, changed };

inline bool is_done(PointState state) {
  return state == PointState::complete || state == PointState::stopped_early;
}

// The report at `report` against the point as planned now: done only when its status is
// completed or stopped_early and its sweep_point.point_sha256 is the plan's.
PointState point_state(const std::filesystem::path& report, const PlannedPoint& planned);

// For the plan's notes column: "new", "done: skipped", "rerun: was diverged", "rerun: changed".
std::string describe_state(PointState state, const std::filesystem::path& report, bool force);

}  // namespace runner
