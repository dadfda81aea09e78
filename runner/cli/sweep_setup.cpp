// The sweep's spec, base config and plan states, shared by the whole sweep and `--point` runs.
#include "runner/cli/sweep_setup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>
#include <unordered_set>

#include "runner/config/load_config.h"
#include "runner/report/run_tags.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/long_text.h"
#include "runner/util/parallel_for.h"

namespace runner {

SweepSpec sweep_spec(const SweepOptions& options) {
  SweepSpec spec;
  if (is_sweep_file(options.file)) {
    spec = read_sweep_file(options.file);
  } else {
    spec.base_config = options.file;
    // The config's name names the sweep's folder: it is checked as the schema would before
    // anything is written (a name like ../../x must not write above the output folder).
    ConfigDocument doc = read_config(options.file, {});
    const nlohmann::json& config = doc.json;
    std::string name = config.is_object() && config.contains("name") && config["name"].is_string()
                           ? config["name"].get<std::string>()
                           : options.file.stem().string();
    if (!is_safe_name(name)) validate_config(doc);  // says which field and what was expected
    if (!is_safe_name(name)) {
      throw UserError(
          fmt::format("{}: name: found '{}', expected letters, digits, '_', '.' and "
                      "'-' (it names the sweep's folder)",
                      options.file.string(), name));
    }
    spec.name = name + "-sweep";
  }
  for (const auto& text : options.grid) set_axis(spec.grid, parse_axis(text, "--grid"));
  for (const auto& text : options.zip) set_axis(spec.zip, parse_axis(text, "--zip"));
  spec.overrides.insert(spec.overrides.end(), options.overrides.begin(), options.overrides.end());
  spec.tags = options.tags;
  parse_tag_options(spec.tags);  // a bad --tag stops the sweep before any point runs
  if (!options.mode.empty()) {   // CLI11 admits only the two names
    spec.mode = parse_run_mode(options.mode).value_or(spec.mode);
  }
  if (options.warmup_steps >= 0) spec.benchmark.warmup_steps = options.warmup_steps;
  if (options.steps >= 0) spec.benchmark.steps = options.steps;
  if (options.profile_steps >= 0) spec.benchmark.profile_steps = options.profile_steps;
  if (options.seed >= 0) spec.seed = static_cast<std::uint64_t>(options.seed);
  if (options.repeats > 0) spec.repeats = options.repeats;
  if (!options.name.empty()) {
    if (!is_safe_name(options.name)) {
      throw UserError(
          fmt::format("--name: found '{}', expected 1 to 100 letters, digits, '_', '.' and '-' "
                      "(it names the sweep's folder)",
                      shortened(options.name, 120)));
    }
    spec.name = options.name;
  }
  if (!options.output.empty()) spec.output = options.output;
  check_axes(spec, options.file.string());
  return spec;
}

namespace {

// The JSON in `path`; null when there is no such file or it is not JSON.
nlohmann::json json_in(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return nullptr;
  nlohmann::json value = nlohmann::json::parse(read_file(path), nullptr, false);
  return value.is_discarded() ? nlohmann::json() : value;
}

}  // namespace

bool write_json_unless_other(const std::filesystem::path& path, const nlohmann::json& value) {
  nlohmann::json existing = json_in(path);
  if (existing.is_null()) write_json_atomically(path, value);
  return existing.is_null() || existing == value;
}

std::filesystem::path sweep_base_config(const SweepSpec& spec, const std::filesystem::path& dir) {
  if (!spec.base_config.empty()) return spec.base_config;
  // An embedded config: a file next to the results, so each report names one. Rewritten only
  // when it changed, so that point runs side by side never replace it under each other.
  const std::filesystem::path base = dir / "base_config.yaml";
  if (json_in(base) != spec.embedded_config) write_json_atomically(base, spec.embedded_config);
  return base;
}

void split_threads(SweepSpec& spec, const std::filesystem::path& base_config, int jobs) {
  if (jobs <= 1) return;
  for (const auto* axes : {&spec.grid, &spec.zip}) {
    for (const SweepAxis& axis : *axes)
      if (axis.path == "training.threads") return;
  }
  const nlohmann::json config = read_config(base_config, spec.overrides).json;
  const nlohmann::json* threads = nullptr;
  if (config.is_object() && config.contains("training") && config["training"].is_object() &&
      config["training"].contains("threads")) {
    threads = &config["training"]["threads"];
  }
  if (threads && !(threads->is_number() && *threads == 0)) return;  // set, to a number or not
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  spec.overrides.push_back(fmt::format("training.threads={}", std::max(1, cores / jobs)));
}

std::vector<PointState> point_states(const std::vector<PlannedPoint>& plan,
                                     const std::filesystem::path& dir) {
  std::vector<PointState> states(plan.size(), PointState::missing);
  // The point folders there are, listed once: a new sweep of 100,000 points then opens no file.
  std::unordered_set<std::string> folders;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    folders.insert(it->path().filename().string());
  }
  // A listing that failed otherwise (a folder not readable) says nothing: every report is tried.
  const bool listed = !error || error == std::errc::no_such_file_or_directory;
  // Read on every core: a resumed sweep of 100,000 points reads as many reports.
  parallel_for("reading the sweep's reports", plan.size(), 1024, [&](std::size_t i) {
    if (listed && !folders.count(plan[i].point.id)) return;
    states[i] = point_state(dir / plan[i].point.id / "report.json", plan[i]);
  });
  return states;
}

std::string unused_training_settings_warning(const SweepSpec& spec, const SweepOptions& options) {
  if (!options.mode.empty() || spec.mode != RunMode::benchmark || is_sweep_file(options.file)) {
    return "";
  }
  // What a benchmark point never reads: it times steps, without epochs, evaluation or files.
  static const char* const kTrainingOnly[] = {"training.epochs",
                                              "training.early_stopping",
                                              "training.log_every",
                                              "training.ema",
                                              "checkpoint",
                                              "report",
                                              "logging",
                                              "metrics"};
  const auto training_only = [](std::string path) {
    if (!path.empty() && path[0] == '~') path.erase(0, 1);
    path = path.substr(0, path.find('='));
    for (const char* key : kTrainingOnly) {
      const std::string prefix = key;
      if (path == prefix || path.rfind(prefix + ".", 0) == 0) return true;
    }
    return false;
  };
  std::vector<std::string> unused;
  for (const std::string& set : options.overrides) {
    if (training_only(set)) unused.push_back("--set " + set);
  }
  for (const auto* axes : {&spec.grid, &spec.zip}) {
    for (const SweepAxis& axis : *axes) {
      if (training_only(axis.path)) unused.push_back(axis.path);
    }
  }
  if (unused.empty()) return "";
  return fmt::format(
      "mode benchmark: a sweep of a config without --mode times {} steps per point and does not "
      "train, so {} {} no effect; add --mode train to train and evaluate every point",
      spec.benchmark.steps, fmt::join(unused, ", "), unused.size() == 1 ? "has" : "have");
}

std::string mode_line(const SweepSpec& spec) {
  if (spec.mode == RunMode::train) return "train (the config's epochs, with evaluation)";
  return fmt::format("benchmark ({} warm-up and {} timed steps per point{})",
                     spec.benchmark.warmup_steps, spec.benchmark.steps,
                     spec.benchmark.profile_steps
                         ? fmt::format(", {} profiled", spec.benchmark.profile_steps)
                         : "");
}

}  // namespace runner
