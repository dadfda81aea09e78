// The batch script of a sweep submitted to Slurm: one job array whose task K runs point K of the
// plan (`runner sweep ... --point $SLURM_ARRAY_TASK_ID`), with the resources asked for.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/sweep/slurm_settings.h"

namespace runner {

struct SlurmJob {
  std::string name;                  // the job's name (--job-name)
  std::filesystem::path workdir;     // where each task runs (--chdir): the submitting folder
  std::filesystem::path log_dir;     // each task's output: <log_dir>/<job id>_<task>.log
  std::vector<std::string> command;  // the runner and its arguments, before --point K
  std::vector<int> points;           // the tasks: 1-based points of the plan
  SlurmSettings settings;
};

// "1-3,5,7-9" for {1,2,3,5,7,8,9}, then "%N" when max_parallel > 0. `points` must be ascending.
std::string array_spec(const std::vector<int>& points, int max_parallel);

// `text` as one #SBATCH option value: in double quotes, with " and \ escaped, as sbatch reads
// them.
std::string sbatch_value(const std::string& text);

// A Slurm file name pattern for `pattern` (e.g. "%A_%a.log") in `folder`: the folder's own '%'
// doubled, so Slurm does not read it as a pattern of its own.
std::string slurm_file_pattern(const std::filesystem::path& folder, const std::string& pattern);

// The whole script: #SBATCH lines (array, name, chdir, output, resources, extra options), then
// exec of the command with --point "$SLURM_ARRAY_TASK_ID".
std::string batch_script(const SlurmJob& job);

}  // namespace runner
