// The states of a job array's tasks as squeue and sacct print them, and what each means for a
// sweep point: pending, running, or ended (completed or not).
#pragma once

#include <map>
#include <string>

namespace runner {

enum class TaskPhase { pending, running, ended };

// PENDING, REQUEUED, ... -> pending; RUNNING, COMPLETING, SUSPENDED, ... -> running; COMPLETED,
// FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, ... (and any state not known) -> ended.
TaskPhase task_phase(const std::string& slurm_state);

// The array task's Slurm state by task number, for lines "<job>_<task>|<STATE>[|...]" of
// `squeue --noheader --array --states=all --format=%i|%T|%r` or
// `sacct --noheader --parsable2 --allocations --format=JobID,State`. A task field may be a range
// ("12_[3-5,7%2]", sacct's pending tasks); "CANCELLED by 0" is read as CANCELLED. Lines of other
// jobs, and lines that are not of this form, are skipped.
std::map<int, std::string> parse_task_states(const std::string& output, const std::string& job_id);

}  // namespace runner
