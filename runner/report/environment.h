// The facts a report needs to be reproduced: runner version and commit, compiler, libraries,
// hardware, threads.
#pragma once

#include "backends/backend.h"
#include "runner/report/run_record.h"

namespace runner {

// The device's details (DeviceInfo::details) go to their fields; one the record does not know is
// kept as it is, so a backend's new fact still reaches the report.
RecordEnvironment environment_record(const DeviceInfo& device, int threads, Precision precision);
std::string runner_version();
// The git commit this binary was built from (read at build time, "unknown" outside a git
// checkout), and whether that tree had uncommitted changes then.
std::string git_commit();
bool git_tree_dirty();
// Local time as ISO 8601 with offset, e.g. 2026-11-22T10:15:30+0000.
std::string timestamp_now();

}  // namespace runner
