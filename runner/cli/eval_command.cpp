// `runner eval CONFIG --checkpoint FILE` or `runner eval RUN_DIR|CHECKPOINT`: test a saved
// model and write an evaluation report. A run folder (or a checkpoint with its report.json
// beside it) brings its own config: the resolved config its report holds.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "runner/cli/commands.h"
#include "runner/cli/temporary_config.h"
#include "runner/cli/trained_run.h"
#include "runner/report/environment.h"
#include "runner/report/report.h"
#include "runner/run/run_output.h"
#include "runner/train/checkpoint.h"
#include "runner/train/evaluation.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"

namespace runner {

namespace {

// A YAML config with --checkpoint is evaluated as given; a run folder or a checkpoint file
// without --checkpoint takes the run's config and kept weights.
bool names_a_trained_run(const SessionOptions& options, const std::filesystem::path& checkpoint) {
  if (!checkpoint.empty()) return false;
  const std::filesystem::path& model = options.config;
  if (std::filesystem::is_directory(model) || model.extension() == ".safetensors") return true;
  throw UserError(fmt::format(
      "{}: a config needs --checkpoint FILE (the weights to evaluate); or pass a run folder "
      "(results/<name>/<run>) or a checkpoint with its report.json beside it, which bring "
      "their own config",
      model.string()));
}

}  // namespace

int eval_command(const SessionOptions& given, const std::filesystem::path& given_checkpoint) {
  SessionOptions options = given;
  std::filesystem::path checkpoint = given_checkpoint;
  std::optional<TrainedRun> run;
  std::optional<TemporaryConfig> run_config;
  if (names_a_trained_run(given, given_checkpoint)) {
    run = find_trained_run(given.config);
    const nlohmann::json& config = *run->report.config;
    const std::string configured = config.contains("checkpoint")
                                       ? config["checkpoint"].value("path", std::string())
                                       : std::string();
    checkpoint = run->checkpoint.empty() ? checkpoint_of(run->report, given.config, configured)
                                         : run->checkpoint;
    run_config.emplace(config, "eval");
    options.config = run_config->path();
  }
  Console console(options.quiet);
  if (run) {
    console.line(fmt::format("config: the one {} resolved; weights: {}", run->report_path.string(),
                             checkpoint.string()));
  }
  Session session = Session::prepare(options, console);
  session.open(console);
  if (session.data.test.size() == 0) {
    throw UserError(fmt::format("{}: the data has no test set to evaluate the checkpoint on",
                                options.config.string()));
  }
  std::string started_at = timestamp_now();
  auto program = session.compile();
  load_checkpoint(checkpoint, *program, CheckpointUse::weights);
  Evaluation result =
      evaluate(*program, session.data.test, session.experiment.training.eval_batch_size);
  const auto& class_names = session.data.test.class_names;
  print_evaluation(console, result, class_names);
  std::string config_sha = sha256_hex(session.experiment.resolved.dump());
  auto run_dir = new_run_directory(options.output, session.experiment.name, config_sha);
  RunRecord report = report_head(session, RunMode::eval, run_dir, config_sha, started_at);
  // Not the temporary file the run's config was read from: the run's own config file.
  if (run) report.config_file = run->report.config_file;
  // Weights that give an infinite or undefined loss (a checkpoint holding inf) diverged.
  const RunStatus status = std::isfinite(result.loss) ? RunStatus::completed : RunStatus::diverged;
  report.status = status;
  if (status == RunStatus::diverged) {
    report.error = fmt::format("the loss diverged ({}) on the test set", result.loss);
    report.stop_reason = StopReason::diverged;
    console.warning(fmt::format("run {}: {}", status_name(status), *report.error));
  }
  report.metrics = metrics_record(result, class_names, session.experiment.metrics);
  report.checkpoint = RecordCheckpoint{};
  report.checkpoint->path = checkpoint.string();
  report.memory = RecordMemory{};
  report.memory->peak_rss_bytes = peak_rss_bytes();
  report.finished_at = timestamp_now();
  console.result(fmt::format("report: {}", write_report(run_dir, report).string()));
  return exit_code_for(status);
}

}  // namespace runner
