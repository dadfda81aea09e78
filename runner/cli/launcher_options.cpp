// The --launcher options of `runner sweep`, and `runner sweep status`.
#include "runner/cli/launcher_options.h"

#include <CLI/CLI.hpp>

namespace runner {
namespace {

// A CLI11 check with the same rules as the sweep file's launcher: block.
CLI::Validator slurm_value(const std::string& field) {
  return CLI::Validator(
      [field](std::string& text) -> std::string {
        std::string problem = slurm_value_problem(field, text);
        return problem.empty() ? "" : "found '" + text + "', " + problem;
      },
      "");
}

}  // namespace

void add_launcher_options(CLI::App& c, LauncherOptions& o) {
  const char* group = "Slurm (or a sweep file's launcher: block; these win)";
  c.add_option("--launcher", o.type,
               "where the points run: local (this process) or slurm (one job array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  c.add_option("--partition", o.slurm.partition, "sbatch --partition")
      ->check(slurm_value("partition"))
      ->group(group);
  c.add_option("--time", o.slurm.time, "each task's time limit (minutes or [D-]HH:MM:SS)")
      ->check(slurm_value("time"))
      ->group(group);
  c.add_option("--cpus-per-task", o.slurm.cpus_per_task, "sbatch --cpus-per-task")
      ->check(CLI::Range(1, 1 << 20))
      ->group(group);
  c.add_option("--mem", o.slurm.mem, "each task's memory (megabytes, or e.g. 16G)")
      ->check(slurm_value("mem"))
      ->group(group);
  c.add_option("--gpus-per-task", o.slurm.gpus_per_task, "GPUs per task (--gres=gpu:N)")
      ->check(CLI::Range(0, 1 << 10))
      ->group(group);
  c.add_option("--account", o.slurm.account, "sbatch --account")
      ->check(slurm_value("account"))
      ->group(group);
  c.add_option("--qos", o.slurm.qos, "sbatch --qos")->check(slurm_value("qos"))->group(group);
  c.add_option("--max-parallel", o.slurm.max_parallel, "at most N tasks at once (%N)")
      ->check(CLI::Range(1, 1 << 20))
      ->group(group);
  c.add_option("--sbatch-option", o.slurm.extra,
               "one more sbatch option, e.g. --sbatch-option=--constraint=a100 (repeatable)")
      ->check(slurm_value("extra"))
      ->allow_extra_args(false)
      ->group(group);
  c.add_flag("--wait", o.wait, "follow the submitted array until it ends, then summarise")
      ->group(group);
}

CLI::App* add_sweep_status_command(CLI::App& app, SweepStatusOptions& o) {
  CLI::App* command =
      app.add_subcommand("sweep-status", "where each point of a sweep submitted to Slurm stands");
  command->group("");  // shown as `runner sweep status DIR` in the sweep command's help
  command->add_option("dir", o.dir, "the sweep folder (results/sweeps/<name>)")->required();
  command->add_flag("--wait", o.wait, "poll until no point is pending or running, then summarise");
  command->add_flag("--quiet,-q", o.quiet, "print only the counts");
  return command;
}

bool rewrite_sweep_status(std::vector<std::string>& args) {
  if (args.size() < 2 || args[0] != "sweep" || args[1] != "status") return false;
  args.erase(args.begin());
  args[0] = "sweep-status";
  return true;
}

}  // namespace runner
