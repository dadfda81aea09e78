// `runner sweep SWEEP.yaml` or `runner sweep CONFIG --grid PATH=V1,V2 ...`: plan the points, run
// those not done yet one after another in this process, then summarise and plot.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <thread>

#include "runner/cli/commands.h"
#include "runner/cli/report_folder.h"
#include "runner/cli/sweep_point_run.h"
#include "runner/config/load_config.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/folder_lock.h"
#include "runner/util/interrupt.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

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
  if (!options.mode.empty()) spec.mode = options.mode;
  if (options.warmup_steps >= 0) spec.benchmark.warmup_steps = options.warmup_steps;
  if (options.steps >= 0) spec.benchmark.steps = options.steps;
  if (options.profile_steps >= 0) spec.benchmark.profile_steps = options.profile_steps;
  if (options.seed >= 0) spec.seed = static_cast<std::uint64_t>(options.seed);
  if (options.repeats > 0) spec.repeats = options.repeats;
  if (!options.name.empty()) {
    if (!is_safe_name(options.name)) {
      throw UserError(fmt::format(
          "--name: found '{}', expected 1 to 100 letters, digits, '_', '.' and '-' "
          "(it names the sweep's folder)",
          options.name.size() > 120 ? options.name.substr(0, 100) + "..." : options.name));
    }
    spec.name = options.name;
  }
  if (!options.output.empty()) spec.output = options.output;
  check_axes(spec, options.file.string());
  return spec;
}

std::string mode_line(const SweepSpec& spec) {
  if (spec.mode == "train") return "train (the config's epochs, with evaluation)";
  return fmt::format("benchmark ({} warm-up and {} timed steps per point{})",
                     spec.benchmark.warmup_steps, spec.benchmark.steps,
                     spec.benchmark.profile_steps
                         ? fmt::format(", {} profiled", spec.benchmark.profile_steps)
                         : "");
}

std::string result_line(const PointRun& run) {
  const nlohmann::json& r = run.report;
  if (run.status != RunStatus::completed) {
    return fmt::format("{}: {}", status_name(run.status), r.value("error", ""));
  }
  const auto& step = r["step_time"];
  std::string line = fmt::format(
      "completed: {:.0f} images/s, step {:.3f} ms (p10 {:.3f}, p90 {:.3f})",
      step["images_per_second"].get<double>(), 1e3 * step["median_seconds"].get<double>(),
      1e3 * step["p10_seconds"].get<double>(), 1e3 * step["p90_seconds"].get<double>());
  if (r.contains("metrics"))
    line +=
        fmt::format(", test accuracy {:.2f} %", 100 * r["metrics"]["test_accuracy"].get<double>());
  return line;
}

// Test hook: RUNNER_TEST_KILL_AFTER_POINTS=N kills the process (SIGKILL, nothing cleaned up)
// after it has run N points, as a crash or a killed job would.
void maybe_kill_for_test(int points_run) {
  const char* text = std::getenv("RUNNER_TEST_KILL_AFTER_POINTS");
  if (text && std::atoi(text) == points_run) std::raise(SIGKILL);
}

}  // namespace

int sweep_command(const SweepOptions& options) {
  Console console(options.quiet);
  SweepSpec spec = sweep_spec(options);
  const std::filesystem::path dir = spec.output / spec.name;
  FolderLock lock(dir, "sweep");  // held until the sweep ends, summary included
  std::filesystem::path base = spec.base_config;
  if (base.empty()) {  // an embedded config: a file next to the results, so each report names one
    base = dir / "base_config.yaml";
    write_json_atomically(base, spec.embedded_config);
  }

  std::vector<PlannedPoint> plan = plan_sweep(spec, base);
  std::vector<PointState> states;
  std::vector<std::string> notes;
  for (const PlannedPoint& p : plan) {
    auto report = dir / p.point.id / "report.json";
    states.push_back(point_state(report, p));
    notes.push_back(describe_state(states.back(), report, options.force));
  }
  console.line(fmt::format("sweep {}: {} points of {}, mode {}; results in {}", spec.name,
                           plan.size(), base.string(), mode_line(spec), dir.string()));
  console.line(plan_table(plan, notes));
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (double load = load_average(); load > 0.5 * cores) {
    console.warning(fmt::format(
        "warning: the machine is busy (load average {:.1f} on {} cores): timings will be "
        "noisy, and OpenMP threads waiting for a descheduled one can make steps many times slower",
        load, cores));
  }
  write_json_atomically(dir / kSweepManifest, plan_json(spec, plan));
  if (options.dry_run) return 0;

  std::map<RunStatus, int> counts;
  int ran = 0, skipped = 0;
  bool stopped = false, interrupted = false;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedPoint& planned = plan[i];
    if (states[i] == PointState::complete && !options.force) {
      ++skipped;
      ++counts[RunStatus::completed];
      continue;
    }
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    console.progress(fmt::format("[{}/{}] {}: running", i + 1, plan.size(), planned.point.id));
    PointRun run = run_sweep_point(planned, spec, base, dir, options.verbose);
    ++ran;
    ++counts[run.status];
    std::string line =
        fmt::format("[{}/{}] {}: {}", i + 1, plan.size(), planned.point.id, result_line(run));
    if (run.status == RunStatus::completed) {
      console.line(line);
    } else {
      console.warning(line);
    }
    maybe_kill_for_test(ran);
    if (run.status == RunStatus::interrupted || interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (options.fail_fast && run.status != RunStatus::completed) {
      stopped = true;
      break;
    }
  }

  report_folder(dir, console);
  std::vector<std::string> parts;
  for (const auto& [status, count] : counts) {
    parts.push_back(fmt::format("{} {}", count, status_name(status)));
  }
  console.result(fmt::format("sweep {}: {} ({} run now, {} skipped as done){}", spec.name,
                             fmt::join(parts, ", "), ran, skipped,
                             interrupted ? "; interrupted: run it again to resume"
                             : stopped   ? "; stopped at the first failure (--fail-fast)"
                                         : ""));
  if (interrupted) return 130;
  return stopped ? 1 : 0;
}

}  // namespace runner
