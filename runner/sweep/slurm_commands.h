// Asking Slurm: submitting a batch script (sbatch) and the states of a job array's tasks
// (squeue, then sacct for tasks squeue has forgotten).
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace runner {

// Submits `script` with `sbatch --parsable` and returns the job id. sbatch missing is a
// UserError (this is not a Slurm machine); sbatch refusing the job throws its message.
std::string submit_batch_script(const std::filesystem::path& script);

// The states of `job_id`'s array tasks by task number: squeue's (running, pending, and ended ones
// it still remembers, MinJobAge), then sacct's where Slurm keeps accounting. Tasks Slurm no
// longer knows are absent. squeue missing or failing (other than for an unknown job) throws.
std::map<int, std::string> query_task_states(const std::string& job_id);

}  // namespace runner
