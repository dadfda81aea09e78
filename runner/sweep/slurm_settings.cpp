// Reading and checking the launcher settings of a sweep.
#include "runner/sweep/slurm_settings.h"

#include <fmt/format.h>

#include <regex>

#include "runner/config/load_config.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

// A number in the file (time: 30, mem: 4096) is read as Slurm reads it: minutes, megabytes.
std::string text_of(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

std::string slurm_value_problem(const std::string& field, const std::string& value) {
  static const std::regex name(R"([A-Za-z0-9_.,:+-]+)");
  static const std::regex time(R"(INFINITE|UNLIMITED|([0-9]+-)?[0-9]+(:[0-9]+){0,2})");
  static const std::regex mem(R"([0-9]+[KMGT]?)");
  static const std::regex option(R"(--?[A-Za-z][^\x00-\x1f]*)");
  if (field == "time" && !std::regex_match(value, time)) {
    return "expected a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS "
           "(e.g. 30 or 2:00:00)";
  }
  if (field == "mem" && !std::regex_match(value, mem)) {
    return "expected megabytes or a size with unit K, M, G or T (e.g. 4096 or 16G)";
  }
  if (field == "extra" && !std::regex_match(value, option)) {
    return "expected one sbatch option on one line, starting with - (e.g. --constraint=a100)";
  }
  if ((field == "partition" || field == "account" || field == "qos") &&
      !std::regex_match(value, name)) {
    return "expected a Slurm name: letters, digits and _ . , : + - (no spaces)";
  }
  return "";
}

LauncherSettings read_launcher_block(const std::filesystem::path& sweep_file) {
  ConfigDocument doc = read_config(sweep_file, {});
  validate_document(doc, "sweep.schema.json");
  LauncherSettings settings;
  if (!doc.json.contains("launcher")) return settings;
  const nlohmann::json& block = doc.json["launcher"];
  settings.type = block["type"] == "slurm" ? LauncherType::slurm : LauncherType::local;
  SlurmSettings& s = settings.slurm;
  for (auto [field, target] : {std::pair{"partition", &s.partition},
                               {"time", &s.time},
                               {"mem", &s.mem},
                               {"account", &s.account},
                               {"qos", &s.qos}}) {
    if (block.contains(field)) *target = text_of(block[field]);
  }
  s.cpus_per_task = block.value("cpus_per_task", 0);
  s.gpus_per_task = block.value("gpus_per_task", 0);
  s.max_parallel = block.value("max_parallel", 0);
  if (block.contains("extra")) s.extra = block["extra"].get<std::vector<std::string>>();
  auto check = [&](const std::string& field, const std::string& path, const std::string& value) {
    std::string problem = slurm_value_problem(field, value);
    if (!problem.empty()) {
      throw_user_error(doc.source_map.locate(path), fmt::format("found '{}', {}", value, problem));
    }
  };
  for (auto [field, value] : {std::pair{"partition", s.partition},
                              {"time", s.time},
                              {"mem", s.mem},
                              {"account", s.account},
                              {"qos", s.qos}}) {
    if (!value.empty()) check(field, std::string("launcher.") + field, value);
  }
  for (std::size_t i = 0; i < s.extra.size(); ++i)
    check("extra", fmt::format("launcher.extra[{}]", i), s.extra[i]);
  return settings;
}

SlurmSettings merged_settings(const SlurmSettings& file, const SlurmSettings& flags) {
  SlurmSettings out = file;
  for (auto [from, to] : {std::pair{&flags.partition, &out.partition},
                          {&flags.time, &out.time},
                          {&flags.mem, &out.mem},
                          {&flags.account, &out.account},
                          {&flags.qos, &out.qos}}) {
    if (!from->empty()) *to = *from;
  }
  for (auto [from, to] : {std::pair{&flags.cpus_per_task, &out.cpus_per_task},
                          {&flags.gpus_per_task, &out.gpus_per_task},
                          {&flags.max_parallel, &out.max_parallel}}) {
    if (*from >= 0) *to = *from;
  }
  out.extra.insert(out.extra.end(), flags.extra.begin(), flags.extra.end());
  return out;
}

}  // namespace runner
