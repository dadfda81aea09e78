// Writing a sweep's Slurm batch script.
#include "runner/sweep/slurm_script.h"

#include <fmt/format.h>

#include <cassert>

#include "runner/util/command_line.h"

namespace runner {

std::string array_spec(const std::vector<int>& points, int max_parallel) {
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < points.size();) {
    std::size_t j = i;
    while (j + 1 < points.size() && points[j + 1] == points[j] + 1) ++j;
    assert(j + 1 == points.size() || points[j + 1] > points[j]);
    ranges.push_back(j == i ? std::to_string(points[i])
                            : fmt::format("{}-{}", points[i], points[j]));
    i = j + 1;
  }
  std::string spec = fmt::format("{}", fmt::join(ranges, ","));
  if (max_parallel > 0) spec += fmt::format("%{}", max_parallel);
  return spec;
}

std::string sbatch_value(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string slurm_file_pattern(const std::filesystem::path& folder, const std::string& pattern) {
  std::string out;
  for (char c : folder.string()) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out + "/" + pattern;
}

std::string batch_script(const SlurmJob& job) {
  const SlurmSettings& s = job.settings;
  std::string out = "#!/bin/bash\n";
  out += fmt::format(
      "# Written by `runner sweep --launcher slurm`: array task K runs point K of the plan\n"
      "# ({} points: {}).\n",
      job.points.size(), array_spec(job.points, 0));
  auto option = [&](const std::string& name, const std::string& value) {
    out += fmt::format("#SBATCH --{}={}\n", name, value);
  };
  option("job-name", sbatch_value(job.name));
  option("array", array_spec(job.points, s.max_parallel));
  option("chdir", sbatch_value(job.workdir.string()));
  option("output", sbatch_value(slurm_file_pattern(job.log_dir, "%A_%a.log")));
  if (!s.partition.empty()) option("partition", sbatch_value(s.partition));
  if (!s.account.empty()) option("account", sbatch_value(s.account));
  if (!s.qos.empty()) option("qos", sbatch_value(s.qos));
  if (!s.time.empty()) option("time", s.time);
  if (s.cpus_per_task > 0) option("cpus-per-task", std::to_string(s.cpus_per_task));
  if (!s.mem.empty()) option("mem", s.mem);
  if (s.gpus_per_task > 0) option("gres", fmt::format("gpu:{}", s.gpus_per_task));
  for (const std::string& extra : s.extra) out += "#SBATCH " + extra + "\n";
  out += "\nset -eu\n";
  if (s.cpus_per_task > 0) {  // the point's threads default to what the task was given
    out += "export OMP_NUM_THREADS=\"$SLURM_CPUS_PER_TASK\"\n";
  }
  std::vector<std::string> words;
  for (const std::string& word : job.command) words.push_back(shell_quote(word));
  out += fmt::format("exec {} --point \"$SLURM_ARRAY_TASK_ID\"\n", fmt::join(words, " "));
  return out;
}

}  // namespace runner
