// `runner reproduce REPORT.json`: rerun the resolved config a report embeds, with its seed,
// mode and thread count, and print each metric side by side; exit 0 only when the exact ones match.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "runner/cli/commands.h"
#include "runner/cli/temporary_config.h"
#include "runner/html/run_page.h"
#include "runner/report/read_report.h"
#include "runner/report/rerun_comparison.h"
#include "runner/run/experiment_run.h"
#include "runner/sweep/asha_trial.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {
namespace {

// A sweep's summary.json is not a run's report: say so, and what to pass instead.
void refuse_sweep_summary(const std::filesystem::path& path) {
  nlohmann::json json;
  try {
    json = parse_bounded_json(read_regular_file(path, kMaxReportBytes, "a JSON report"));
  } catch (const std::exception&) {
    return;  // read_report_file words what is wrong with it
  }
  if (!json.is_object() || !json.contains("sweep") || !json["points"].is_array()) return;
  std::string example = "results/sweeps/<name>/<point>/report.json";
  for (const auto& point : json["points"]) {
    if (point.is_object() && point.value("report", nlohmann::json()).is_string()) {
      std::filesystem::path report = point["report"].get<std::string>();
      example = (report.is_absolute() ? report : path.parent_path() / report).string();
      break;
    }
  }
  throw UserError(fmt::format(
      "{}: this is the summary of sweep '{}' ({} runs), not a run's report; reproduce reruns one "
      "run: pass the report.json of one of its points, e.g. {}",
      path.string(), json["sweep"].is_string() ? json["sweep"].get<std::string>() : "?",
      json["points"].size(), example));
}

RunRecord read_report(const std::filesystem::path& path) {
  refuse_sweep_summary(path);
  RunRecord report = read_run_record(path);  // valid against the report schema: a mode it knows
  if (report.mode != RunMode::train && report.mode != RunMode::benchmark) {
    throw UserError(
        fmt::format("{}: mode: found '{}', expected train or benchmark (the modes a rerun "
                    "reproduces)",
                    path.string(), report.mode ? mode_name(*report.mode) : ""));
  }
  if (!report.config || !report.config_sha256) {
    throw UserError(fmt::format(
        "{}: status {}: the run never started, so there is nothing to reproduce{}", path.string(),
        report.reported_status().text(), report.error ? " (" + *report.error + ")" : ""));
  }
  return report;
}

// A config whose checkpoint.path is absolute (allowed outside the run folder) would make the
// rerun overwrite the original's checkpoint: the rerun keeps the file name inside its own run
// folder unless its command line allows the path. Returns whether the path was moved.
bool keep_checkpoint_inside(nlohmann::json& config, const ReproduceOptions& options,
                            Console& console) {
  if (options.allow_outside_run_folder || !config.contains("checkpoint")) return false;
  nlohmann::json& checkpoint = config["checkpoint"];
  if (!checkpoint.is_object() || !checkpoint.value("allow_outside_run_folder", false)) return false;
  const std::filesystem::path path = checkpoint.value("path", std::string());
  if (!path.is_absolute()) return false;
  checkpoint["path"] = path.filename().string();
  checkpoint["allow_outside_run_folder"] = false;
  console.line(fmt::format(
      "the original wrote its checkpoint to {}: the rerun writes {} inside its run folder "
      "(--allow-outside-run-folder writes to the original's path)",
      path.string(), path.filename().string()));
  return true;
}

// The same convolution kernels: the oneDNN backend's own 16-channel Winograd kernels round
// differently from oneDNN's (backends/onednn/winograd16.h). A report written before
// backend.own_kernels existed says only in its environment that they were off (then by
// RUNNER_OWN_KERNELS=0): its rerun's config turns them off. True when it did.
bool keep_own_kernels_off(const RunRecord& original, nlohmann::json& config) {
  const std::string own_kernels =
      field_of(original.environment, &RecordEnvironment::own_kernels).value_or("");
  const nlohmann::json::json_pointer switch_path("/backend/own_kernels");
  if (own_kernels.rfind("none", 0) != 0 || !config.is_object() || config.contains(switch_path)) {
    return false;
  }
  config[switch_path] = false;
  return true;
}

}  // namespace

int reproduce_command(const ReproduceOptions& options) {
  Console console(options.quiet);
  const RunRecord original = read_report(options.report);
  nlohmann::json rerun_config = *original.config;
  const bool moved_checkpoint = keep_checkpoint_inside(rerun_config, options, console);
  const bool kernels_turned_off = keep_own_kernels_off(original, rerun_config);
  TemporaryConfig config(rerun_config, "reproduce");

  ExperimentRequest request;
  request.config = config.path();
  request.output = options.output;
  request.quiet = options.quiet;
  request.print_layers = false;
  request.write_page = write_page_of_run;
  // A search's trial reruns as it ran: its test set after the last epoch, its ASHA stop.
  request.stop_after_epoch = asha_replay_gate(original);
  if (original.mode == RunMode::benchmark) {
    const RecordBenchmark b = original.benchmark.value_or(RecordBenchmark{});
    request.mode = RunMode::benchmark;
    request.benchmark = {static_cast<int>(b.warmup_steps.value_or(0)),
                         static_cast<int>(b.steps.value_or(0)),
                         static_cast<int>(b.profile_steps.value_or(0))};
  }
  // The same thread count without changing the config (threads: 0 reads OMP_NUM_THREADS), so the
  // config's hash stays comparable: summation order, and so the last bits, depend on it.
  if (auto threads = field_of(original.environment, &RecordEnvironment::threads)) {
    // A replayed change is capped at OMP_NUM_THREADS: a resumed run's earlier stretch may have
    // used more than its last one started with.
    int most = *threads;
    for (const RecordThreadChange& c : field_of(original.cpu, &RecordCpu::thread_changes)
                                           .value_or(std::vector<RecordThreadChange>{}))
      most = std::max(most, c.threads.value_or(0));
    ::setenv("OMP_NUM_THREADS", std::to_string(most).c_str(), 1);
  }
  // A `precision: fastest` run trains in what it chose then, not in what a timing here says.
  request.replay_precision = field_of(original.precision_choice, &RecordPrecisionChoice::chosen);
  // A run whose threads followed a busy machine changed them at some steps: the rerun changes
  // them at the same steps, whatever this machine's load is now.
  if (auto changes = field_of(original.cpu, &RecordCpu::thread_changes);
      changes && !changes->empty()) {
    std::vector<ThreadChange> replay;
    for (const RecordThreadChange& c : *changes) {
      replay.push_back({c.step.value_or(0), c.threads.value_or(0), c.free_cores.value_or(0)});
    }
    request.replay_threads = std::move(replay);
  }
  const std::string own_kernels =
      field_of(original.environment, &RecordEnvironment::own_kernels).value_or("");
  console.line(fmt::format("reproducing {} (run {}, seed {}, {} mode)", options.report.string(),
                           original.run_id.value_or("?"), original.seed.value_or(0),
                           mode_name(*original.mode)));
  ExperimentResult rerun = run_experiment(request, console);

  auto rows = compare_reports(original, rerun.report);
  // The moved path or the added switch changes the config's hash, not what it computes.
  for (auto& row : rows) {
    if ((moved_checkpoint || kernels_turned_off) && row.metric == "/config_sha256") {
      row.exact = false;
    }
  }
  bool same = reproduces(rows);
  console.result(comparison_table(rows));
  const auto changed_files = data_differences(original, rerun.report);
  if (!changed_files.empty()) {
    console.result("the data differs from the original run's:");
    for (const auto& line : changed_files) console.result("  " + line);
  }
  const std::string rerun_kernels =
      field_of(rerun.report.environment, &RecordEnvironment::own_kernels).value_or("");
  if (!own_kernels.empty() && rerun_kernels != own_kernels) {
    console.result(
        fmt::format("the original ran the own kernels '{}', this machine '{}': the last "
                    "bits may differ",
                    own_kernels, rerun_kernels));
  }
  const bool on_cpu = original.device && original.device->is_cpu();
  console.result(fmt::format("{}: {} (rerun report: {})", same ? "reproduced" : "NOT reproduced",
                             same                     ? "every exact metric matches"
                             : !changed_files.empty() ? "the rerun read other data"
                             : on_cpu ? "a deterministic CPU rerun should match exactly"
                                      : "GPU runs need not match to the last bit",
                             rerun.report_path.string()));
  return same ? 0 : 1;
}

}  // namespace runner
