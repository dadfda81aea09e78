// `runner sweep --jobs N`: up to N points at once, each a child process of this runner
// (`runner sweep <the same arguments> --point K`), with GPUs handed out one per running point.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/sweep/sweep_plan.h"
#include "runner/sweep/sweep_tally.h"
#include "runner/util/console.h"
#include "runner/util/folder_lock.h"

namespace runner {

struct JobsRequest {
  const SweepSpec& spec;
  const std::vector<PlannedPoint>& plan;
  std::vector<std::size_t> todo;  // indices into plan, in order
  std::filesystem::path dir, base;
  std::vector<std::string> arguments;  // this command line after `runner`
  int jobs = 2;
  std::vector<int> gpus;   // those to hand out; empty: GPU points run as configured
  const FolderLock& lock;  // the sweep's, lent to the children
  bool fail_fast = false;
};

// Runs the points, adds what they came to to `tally`. Each child's output goes to
// <point>/point.log; its status comes from the report it wrote (or, when it died first, a
// `failed` report written here). Ctrl-C is passed on to every child, and their ends awaited.
void run_points_in_children(const JobsRequest& request, Console& console, SweepTally& tally);

}  // namespace runner
