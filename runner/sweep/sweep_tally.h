// What a sweep's points came to, its last line and its exit code.
#pragma once

#include <map>
#include <string>

#include "runner/train/run_status.h"

namespace runner {

struct SweepTally {
  std::map<RunStatus, int> counts;  // every point tried now or skipped as done, by status
  int ran = 0, skipped = 0;
  bool interrupted = false;  // Ctrl-C: the rest were not tried
  bool stopped = false;      // --fail-fast stopped at a point that did not complete
};

// "sweep NAME: 3 completed, 1 failed (4 run now, 0 skipped as done); 1 of 4 points did not
// complete (1 failed)", and what an interruption or --fail-fast did.
std::string tally_line(const std::string& sweep_name, const SweepTally& tally);

// 130 interrupted; 1 when --fail-fast stopped the sweep; 2 when every point is invalid (a config
// error such as an axis value the config does not allow); 1 when none completed; 0 otherwise.
int sweep_exit_code(const SweepTally& tally);

}  // namespace runner
