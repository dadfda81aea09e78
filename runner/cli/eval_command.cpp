// `runner eval --checkpoint FILE CONFIG`: test a saved model and write an evaluation report.
#include <fmt/format.h>

#include <cmath>

#include "runner/cli/commands.h"
#include "runner/report/environment.h"
#include "runner/report/report.h"
#include "runner/run/run_output.h"
#include "runner/train/checkpoint.h"
#include "runner/train/evaluation.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"

namespace runner {

int eval_command(const SessionOptions& options, const std::filesystem::path& checkpoint) {
  Console console(options.quiet);
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
