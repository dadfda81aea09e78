// `runner run CONFIG`: train, evaluate, checkpoint, reload and re-evaluate, write the report.
#include <fmt/format.h>

#include "runner/cli/commands.h"
#include "runner/cli/layer_table.h"
#include "runner/cli/run_output.h"
#include "runner/report/environment.h"
#include "runner/report/report.h"
#include "runner/train/checkpoint.h"
#include "runner/train/trainer.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

std::filesystem::path checkpoint_path(const Experiment& experiment, const std::filesystem::path& run_dir) {
  std::filesystem::path path = experiment.checkpoint.path;
  return path.is_absolute() ? path : run_dir / path;
}

}  // namespace

int run_command(const RunOptions& options) {
  Console console(options.quiet);
  Session session = Session::prepare(options, console);
  console.line(layer_table(session.graph));
  session.open(console);
  const Experiment& experiment = session.experiment;

  std::string started_at = timestamp_now();
  std::string config_sha = sha256_hex(experiment.resolved.dump());
  auto program = session.compile();
  TrainingPlan plan;
  if (!options.resume.empty()) {
    plan.first_epoch = load_checkpoint(options.resume, *program);
    console.line(fmt::format("resuming from {} after epoch {}", options.resume.string(), plan.first_epoch));
  }
  auto run_dir = new_run_directory(options.output, experiment.name, config_sha);

  TrainingOutcome outcome = train(experiment, *program, session.data, console, plan);
  const auto& class_names = session.data.test.class_names;

  nlohmann::json report = report_head(session, "train", run_dir, config_sha, started_at);
  report["status"] = outcome.status;
  report["epochs"] = epochs_json(outcome.epochs);
  report["throughput"] = throughput_json(outcome, session.graph.flops_per_sample());
  if (!outcome.error.empty()) report["error"] = outcome.error;
  if (outcome.status == "completed") {
    print_evaluation(console, outcome.final_evaluation, class_names);
    report["metrics"] = metrics_json(outcome.final_evaluation, class_names);
    if (!experiment.checkpoint.path.empty()) {
      auto path = checkpoint_path(experiment, run_dir);
      save_checkpoint(path, *program, experiment, static_cast<int>(session.experiment.training.epochs),
                      config_sha);
      // As the tutorial does: load the saved weights into a fresh model and test again.
      auto reloaded = session.compile();
      load_checkpoint(path, *reloaded);
      Evaluation again = evaluate(*reloaded, session.data.test, experiment.training.eval_batch_size);
      bool same = again.correct == outcome.final_evaluation.correct;
      console.line(fmt::format("checkpoint: {} (reloaded: test accuracy {:.2f} %, {})", path.string(),
                               100 * again.accuracy(), same ? "same as before saving" : "DIFFERENT"));
      report["checkpoint"] = {{"path", path.string()},
                              {"reloaded_test_accuracy", again.accuracy()},
                              {"reload_matches", same}};
    }
  } else {
    console.warning(fmt::format("run {}: {}", outcome.status, outcome.error));
  }
  report["memory"] = {{"peak_rss_bytes", peak_rss_bytes()},
                      {"dataset_bytes", session.data.train.images.size() + session.data.test.images.size()}};
  report["finished_at"] = timestamp_now();
  auto path = write_report(run_dir, report);
  console.result(fmt::format("report: {}", path.string()));
  if (outcome.status == "interrupted") return 130;
  return outcome.status == "completed" ? 0 : 1;
}

}  // namespace runner
