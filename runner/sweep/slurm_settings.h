// Where a sweep runs: in this process (local) or as a Slurm job array, and the Slurm resources
// asked for, from a sweep file's `launcher:` block and the --launcher options (flags win).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace runner {

enum class LauncherType { local, slurm };

struct SlurmSettings {
  std::string partition, time, mem, account, qos;  // "" leaves each to the cluster's default
  int cpus_per_task = 0;                           // 0: the cluster's default
  int gpus_per_task = 0;                           // as --gres=gpu:N; 0: none
  int max_parallel = 0;                            // the array's %N throttle; 0: none
  std::vector<std::string> extra;                  // more sbatch options, e.g. --constraint=a100
};

struct LauncherSettings {
  std::optional<LauncherType> type;  // none: the sweep file says nothing (local)
  SlurmSettings slurm;
};

// The `launcher:` block of a sweep file (schemas/sweep.schema.json); empty settings when the file
// has none. A value Slurm would refuse is a UserError naming the file, line and field.
LauncherSettings read_launcher_block(const std::filesystem::path& sweep_file);

// What is wrong with `value` for the Slurm setting `field` (partition, time, mem, account, qos,
// extra), or "" when it is fine. Also keeps values on one line: a newline would end the
// script's #SBATCH line and start a command.
std::string slurm_value_problem(const std::string& field, const std::string& value);

// `flags` over `file`: each text the flags set (not "") and each number (not negative: the
// command line's "not given") replaces the file's; the flags' extra
// options come after the file's, so sbatch takes theirs where both give one.
SlurmSettings merged_settings(const SlurmSettings& file, const SlurmSettings& flags);

}  // namespace runner
