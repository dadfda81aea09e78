// The facts a report needs to be reproduced: runner version and commit, compiler, libraries,
// hardware, threads.
#pragma once

#include <nlohmann/json.hpp>

#include "backends/backend.h"

namespace runner {

nlohmann::json environment_json(const DeviceInfo& device, int threads, Precision precision);
std::string runner_version();
// The git commit this binary was built from (read at build time, "unknown" outside a git
// checkout), and whether that tree had uncommitted changes then.
std::string git_commit();
bool git_tree_dirty();
// Local time as ISO 8601 with offset, e.g. 2026-11-22T10:15:30+0000.
std::string timestamp_now();

}  // namespace runner
