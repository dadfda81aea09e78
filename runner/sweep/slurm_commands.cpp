// sbatch, squeue and sacct through run_captured.
#include "runner/sweep/slurm_commands.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runner/sweep/slurm_states.h"
#include "runner/util/captured_command.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

constexpr const char* kNoSlurm =
    "run this on a Slurm login node, or start a local test cluster with "
    "scripts/slurm_local_cluster.sh (see docs/sweeps.md)";

CapturedOutput run_slurm_tool(const std::vector<std::string>& argv) {
  CapturedOutput output = run_captured(argv);
  if (!output.started) throw UserError(describe_failure(argv, output, kNoSlurm));
  return output;
}

}  // namespace

std::string submit_batch_script(const std::filesystem::path& script) {
  std::vector<std::string> argv = {"sbatch", "--parsable", script.string()};
  CapturedOutput output = run_slurm_tool(argv);
  // --parsable prints "<job id>" or "<job id>;<cluster>".
  std::string id = output.out.substr(0, output.out.find_first_of(";\n"));
  bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
  if (!output.ok() || !numeric) {
    throw std::runtime_error(fmt::format("submitting {} failed: {}", script.string(),
                                         output.ok() ? "sbatch printed no job id: " + output.out
                                                     : describe_failure(argv, output, kNoSlurm)));
  }
  return id;
}

std::map<int, std::string> query_task_states(const std::string& job_id) {
  std::vector<std::string> squeue = {"squeue",       "--noheader",       "--array",
                                     "--states=all", "--jobs=" + job_id, "--format=%i|%T|%r"};
  CapturedOutput queue = run_slurm_tool(squeue);
  std::map<int, std::string> states;
  if (queue.ok()) {
    states = parse_task_states(queue.out, job_id);
  } else if (queue.err.find("Invalid job id") == std::string::npos) {
    throw std::runtime_error("asking Slurm about job " + job_id +
                             " failed: " + describe_failure(squeue, queue, kNoSlurm));
  }
  // sacct knows ended tasks long after squeue forgets them, where accounting is kept (elsewhere
  // it fails: "accounting storage is disabled"; then what squeue said is all there is).
  CapturedOutput accounting = run_captured({"sacct", "--noheader", "--parsable2", "--allocations",
                                            "--jobs=" + job_id, "--format=JobID,State"});
  if (accounting.ok()) {
    for (const auto& [task, state] : parse_task_states(accounting.out, job_id))
      states.emplace(task, state);  // squeue's word wins: it is the live one
  }
  return states;
}

}  // namespace runner
