// The host-memory plan of `runner sweep --jobs N`: the N largest points to run must fit at once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "runner/sweep/sweep_plan.h"

namespace runner {

// A UserError saying what fits when the `jobs` largest of the points `todo` (indices into
// `plan`) together need more host memory than the machine has (see host_memory_check.h).
void check_jobs_fit_host_memory(const std::vector<PlannedPoint>& plan,
                                const std::vector<std::size_t>& todo,
                                const std::filesystem::path& base_config, int jobs);

}  // namespace runner
