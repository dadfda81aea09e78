// Finding the runs below folders for `runner runs`: every report.json (a run's folder or a sweep's
// point), as rows. Rows are cached per folder queried in the user's cache folder
// ($XDG_CACHE_HOME/runner/runs), keyed by each report's path, size and modification time: a
// report that changed, appeared or went is read again, so the cache is never trusted over the
// reports. Nothing is written where the reports are.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/runs/run_rows.h"

namespace runner {

struct FoundRuns {
  std::vector<RunRow> rows;           // in path order
  std::size_t read = 0, cached = 0;   // rows parsed from their reports, rows from the cache
  std::vector<std::string> warnings;  // reports that could not be read, one line each
};

// The runs below `folders` (a folder that holds a report.json is itself one run). cache_folder
// empty: no cache.
FoundRuns find_runs(const std::vector<std::filesystem::path>& folders,
                    const std::filesystem::path& cache_folder);

// runner_cache_folder()/runs, or empty when there is none.
std::filesystem::path default_runs_cache_folder();

}  // namespace runner
