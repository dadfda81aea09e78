// The run of one experiment: train (evaluate, checkpoint, reload) or benchmark, then the report.
#include "runner/run/experiment_run.h"

#include <fmt/format.h>

#include <optional>

#include "runner/data/encoded_images.h"
#include "runner/graph/memory_estimate.h"
#include "runner/report/benchmark_report.h"
#include "runner/report/curves.h"
#include "runner/report/environment.h"
#include "runner/report/machine_load.h"
#include "runner/report/report.h"
#include "runner/report/run_tags.h"
#include "runner/report/tensorboard_log.h"
#include "runner/run/kept_model.h"
#include "runner/run/layer_table.h"
#include "runner/run/live_report.h"
#include "runner/run/run_history.h"
#include "runner/run/run_output.h"
#include "runner/train/checkpoint.h"
#include "runner/train/epoch_checkpoints.h"
#include "runner/train/step_times.h"
#include "runner/train/stop_checks.h"
#include "runner/train/trainer.h"
#include "runner/util/command_line.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/folder_lock.h"
#include "runner/util/folders.h"
#include "runner/util/threads.h"

namespace runner {
namespace {

constexpr const char* kRunLockAdvice = "let it finish, or stop it first";

struct RunContext {
  const ExperimentRequest& request;
  Session& session;
  Program& program;
  StepThreads& threads;
  Console& console;
  std::string config_sha;
  std::string started_at;
  std::filesystem::path run_dir;      // made by the mode, when it is about to write into it
  SteadyClock::time_point started;    // the run's start: before its config is read
  std::optional<RunHistory> history;  // a run resumed in its own folder: the earlier stretches
  std::optional<FolderLock> lock;     // a run's own folder, held while it runs
  std::optional<LiveReport> live;     // train mode, once the run folder is made

  void open_run_directory() {
    if (history) {
      run_dir = history->run_dir();
      // The run it resumes may still be training there (its report says running either way).
      lock.emplace(run_dir, "run", LockMode::exclusive, kRunLockAdvice);
    } else if (request.run_dir.base.empty()) {
      run_dir = new_run_directory(request.output, session.experiment.name, config_sha);
      lock.emplace(run_dir, "run", LockMode::exclusive, kRunLockAdvice);
    } else {
      create_folders_inside(request.run_dir, "the point's folder");
      run_dir = request.run_dir.path();
    }
  }
  RunRecord head() const {
    RunRecord report = report_head(session, request.mode, run_dir, config_sha, started_at);
    report.divergence_threshold =
        divergence_threshold(session.experiment.training, session.graph.classes);
    return report;
  }
};

// A relative path was checked for '..' when the config was read; with the run folder on disk,
// a symlink in it (a sweep point's folder is reused) must not lead outside it either.
std::filesystem::path checkpoint_path(const Experiment& experiment,
                                      const std::filesystem::path& run_dir) {
  const std::filesystem::path path = experiment.checkpoint.path;
  const std::filesystem::path full = path.is_absolute() ? path : run_dir / path;
  // Checked before training, not found when the first epoch's checkpoint is written.
  check_replaceable_file(full, "checkpoint.path");
  if (experiment.checkpoint.monitor) {
    check_replaceable_file(last_checkpoint_path(full), "checkpoint.path (its last-epoch file)");
  }
  if (path.is_absolute()) return path;
  for (const auto& file : {path, last_checkpoint_path(path)}) {
    if (!is_inside_folder(run_dir, run_dir / file)) {
      throw UserError(fmt::format(
          "checkpoint.path: found '{}', which leads outside the run folder {} through a "
          "symlink; expected a path inside it",
          file.string(), run_dir.string()));
    }
    if (!experiment.checkpoint.monitor) break;  // no last file beside it
  }
  return run_dir / path;
}

// What a resumed run continues from: the checkpoint, early stopping and the best epoch as it
// left them, and with checkpoint.monitor the best weights its run kept.
struct Resumed {
  CheckpointInfo info;
  SelectionState selection;
  std::optional<KeptBest> best;
};

// The selection state the checkpoint carries, and the best file its run kept beside it. Without
// that file (another config's checkpoint) the best epoch starts afresh.
void resume_selection(RunContext& c, Resumed& resumed) {
  const Experiment& experiment = c.session.experiment;
  std::vector<std::string> notes;
  resumed.selection =
      read_selection(resumed.info.selection, experiment, resumed.info.path.string(), notes);
  for (const std::string& note : notes) c.console.warning(note);
  if (!experiment.checkpoint.monitor) return;
  resumed.best = kept_best_beside(resumed.info.path, resumed.info.selection,
                                  resumed.selection.best.best_epoch);
  if (!resumed.best) resumed.selection.best = {};
}

// Loads the checkpoint to resume from and says what it is; a checkpoint saved by another config
// is allowed (a run extended to more epochs is the usual case) but its differences are named.
Resumed resume_from(RunContext& c) {
  CheckpointInfo info = load_checkpoint(c.request.resume, c.program, CheckpointUse::resume);
  c.console.line(
      fmt::format("resuming from {} after epoch {}", info.path.string(), info.epochs_done));
  if (!info.config_sha256.empty() && info.config_sha256 != c.config_sha) {
    std::string what =
        info.config.is_null()
            ? "the file does not say how"
            : fmt::format(
                  "{}",
                  fmt::join(config_differences(info.config, c.session.experiment.resolved), "; "));
    c.console.warning(fmt::format("{} was saved by another config ({})", info.path.string(), what));
  }
  Resumed resumed{info, {}, std::nullopt};
  resume_selection(c, resumed);
  return resumed;
}

RecordResumedFrom resumed_from_record(const CheckpointInfo& info) {
  return {info.path.string(), info.file_sha256, info.config_sha256, info.epochs_done, {}};
}

// Saves the program after each epoch (when checkpoint.path is set), and the last epoch's state
// whenever training ends; returns the report's checkpoint block (none without a path).
std::optional<RecordCheckpoint> finish_checkpoints(RunContext& c, EpochCheckpoints* checkpoints,
                                                   const TrainingOutcome& outcome) {
  if (!checkpoints) {
    if (outcome.status == RunStatus::interrupted) {
      c.console.warning("no checkpoint.path is set, so this run cannot be resumed");
    }
    return std::nullopt;
  }
  checkpoints->flush();
  RecordCheckpoint block;
  block.path = checkpoints->path().string();
  block.epochs_done = std::max(0, checkpoints->saved_epochs());
  if (const auto& by = c.session.experiment.checkpoint.monitor) {
    add_best_checkpoint(block, *checkpoints, *by, outcome.selection);
  }
  if (!checkpoints->error().empty()) {
    block.error = checkpoints->error();
    c.console.warning(fmt::format("checkpoint not saved: {}", checkpoints->error()));
  } else if (checkpoints->saved_epochs() >= 0 && !ended_as_planned(outcome.status)) {
    // The command that continues it keeps every option of this one: without the --set
    // overrides the resumed config would differ (other epochs, other data).
    std::string command =
        runner_program() + " run " + shell_quote(c.session.experiment.source_file);
    for (const std::string& set : c.request.overrides) command += " --set " + shell_quote(set);
    // Resumed from a checkpoint in its own folder, the run goes on there (RunHistory); a sweep's
    // point resumes into a new folder.
    if (!c.request.run_dir.base.empty() || !is_inside_folder(c.run_dir, checkpoints->path())) {
      command += " --output " + shell_quote(c.request.output.string());
    }
    for (const std::string& tag : c.request.tags) command += " --tag " + shell_quote(tag);
    if (c.request.quiet) command += " --quiet";
    c.console.warning(fmt::format("checkpoint: {} holds epoch {}; continue with: {} --resume {}",
                                  checkpoints->path().string(), checkpoints->saved_epochs(),
                                  command, shell_quote(checkpoints->path().string())));
  }
  return block;
}

// A run's report and its status, the report's `status` field as an enum.
struct RunReport {
  RunRecord report;
  RunStatus status = RunStatus::completed;
};

// A resumed run with nothing left to train (its epochs done, or early stopping ran out of
// patience): the checkpoint's state evaluated as it is, or nullopt when there is training to do.
std::optional<TrainingOutcome> nothing_left_to_train(RunContext& c, const TrainingPlan& plan,
                                                     EpochCheckpoints* checkpoints) {
  const Experiment& experiment = c.session.experiment;
  const ModelSelection selection(experiment, plan.selection);
  if (plan.first_epoch < experiment.training.epochs && !selection.stopped()) return std::nullopt;
  if (selection.stopped()) {
    c.console.line(fmt::format(
        "nothing left to train: early stopping ended the checkpoint's run after epoch {} ({}); "
        "evaluating it",
        plan.first_epoch, selection.stop_text()));
  } else {
    c.console.line(
        fmt::format("nothing left to train: the checkpoint has {} epoch(s) done, the "
                    "config asks for {}; evaluating it",
                    plan.first_epoch, experiment.training.epochs));
  }
  TrainingOutcome outcome;
  outcome.stop_reason = selection.stopped() ? StopReason::early_stopping : StopReason::epochs;
  outcome.selection = plan.selection;
  const int batch = experiment.training.eval_batch_size;
  const DatasetSplits& data = c.session.data;
  const double threshold = divergence_threshold(experiment.training, c.session.graph.classes);
  if (data.test.size() > 0) {
    outcome.final_evaluation = evaluate(c.program, data.test, batch);
    stop_if_diverged(outcome, outcome.final_evaluation.loss, threshold, "on the test set");
  }
  if (data.validation.size() > 0) {
    outcome.final_validation = evaluate(c.program, data.validation, batch);
    stop_if_diverged(outcome, outcome.final_validation.loss, threshold, "on the validation set");
  }
  if (outcome.status == RunStatus::diverged) outcome.stop_reason = StopReason::diverged;
  // The run folder holds the state it evaluated, as a trained run's does (and the reload
  // check reads it).
  if (checkpoints) checkpoints->epoch_done(c.program, plan.first_epoch, plan.selection, false);
  return outcome;
}

// A resumed run continues the average its checkpoint's run saved beside it; without that file
// the average starts again from the resumed weights (said).
void restore_average(RunContext& c, const std::filesystem::path& resumed_from,
                     WeightAverage& average) {
  const std::filesystem::path file = average_checkpoint_path(resumed_from);
  if (!std::filesystem::is_regular_file(file)) {
    c.console.warning(fmt::format(
        "training.ema: no {} beside the checkpoint: the average starts again from its weights",
        file.string()));
    return;
  }
  const std::vector<HostTensor> own = c.program.parameters();
  load_checkpoint(file, c.program, CheckpointUse::weights);
  average.restore(c.program.parameters());
  c.program.load_parameters(own);
}

// training.ema's figures of the last epoch (val_ema_accuracy, test_ema_loss, ...): the
// average's after training, for the report's metrics.
std::map<std::string, double> last_average_figures(const TrainingOutcome& outcome) {
  std::map<std::string, double> figures;
  if (outcome.epochs.empty()) return figures;
  for (const auto& [name, value] : outcome.epochs.back().figures) {
    if (name.find("_ema_") != std::string::npos) figures[name] = value;
  }
  return figures;
}

// on_bad_file: skip with per-epoch decoding: the files that failed when their batches were
// made, each said once and counted in the split's figures.
void report_files_skipped_while_training(RunContext& c, RunRecord& report) {
  const auto& encoded = c.session.data.train.encoded;
  if (!encoded) return;
  const std::vector<std::string> reasons = encoded->skipped->reasons();
  for (const std::string& reason : reasons) {
    c.console.warning(
        fmt::format("skipped while training: {} (the next file of the split took "
                    "its place in its batches)",
                    reason));
  }
  if (!reasons.empty() && report.data && report.data->splits &&
      report.data->splits->contains("train")) {
    (*report.data->splits)["train"]["skipped_while_training"] = reasons.size();
  }
}

// A sweep point's values as the HParams dashboard's hyperparameters.
std::vector<HParam> sweep_hparams(const RecordSweepPoint& point) {
  std::vector<HParam> hparams;
  if (point.values && point.values->is_object()) {
    for (const auto& [path, value] : point.values->items()) hparams.push_back({path, value});
  }
  return hparams;
}

// The figures a run's `metrics` will hold when it completes, by report key: accuracy, loss and
// the metrics list's of each evaluated set, and with training.ema the average's.
std::vector<std::string> planned_figures(const Experiment& experiment, const DatasetSplits& data) {
  std::vector<std::string> names;
  for (const auto& [set, evaluated] :
       {std::pair{"test", data.test.size() > 0}, std::pair{"val", data.validation.size() > 0}}) {
    if (!evaluated) continue;
    for (const char* model : {"_", "_ema_"}) {
      if (std::string(model) == "_ema_" && !experiment.training.ema.enabled) continue;
      const std::string prefix = std::string(set) + model;
      names.push_back(prefix + "accuracy");
      names.push_back(prefix + "loss");
      for (const MetricSpec& metric : experiment.metrics) {
        if (const std::string figure = figure_name(metric); !figure.empty())
          names.push_back(prefix + figure);
      }
    }
  }
  return names;
}

// The kept model's figures by report key (test_accuracy, val_loss, test_macro_f1, ...).
std::map<std::string, double> final_figures(const std::optional<RecordMetrics>& metrics) {
  std::map<std::string, double> figures;
  if (!metrics) return figures;
  const std::pair<const char*, std::optional<double>> named[] = {
      {"test_accuracy", metrics->test_accuracy},
      {"test_loss", metrics->test_loss},
      {"val_accuracy", metrics->val_accuracy},
      {"val_loss", metrics->val_loss}};
  for (const auto& [name, value] : named) {
    if (value) figures[name] = *value;
  }
  figures.insert(metrics->figures.begin(), metrics->figures.end());
  return figures;
}

RunReport train_report(RunContext& c) {
  const Experiment& experiment = c.session.experiment;
  TrainingPlan plan;
  plan.stop_after_epoch = c.request.stop_after_epoch;
  plan.test_each_epoch = !c.request.stop_after_epoch;
  plan.threads = &c.threads;
  std::optional<Resumed> resumed;
  if (!c.request.resume.empty()) {
    resumed = resume_from(c);
    plan.first_epoch = resumed->info.epochs_done;
    plan.selection = resumed->selection;
    if (c.request.resume_in_place && c.request.run_dir.base.empty()) {
      c.history = RunHistory::of_checkpoint(resumed->info.path, resumed->info.epochs_done);
      if (c.history && !c.history->missing_epochs().empty())
        c.console.warning(c.history->missing_epochs());
      c.console.line(c.history
                         ? fmt::format("continuing the run in {}", c.history->run_dir().string())
                         : fmt::format("{} is in no run's folder: the resumed run gets a new one",
                                       resumed->info.path.string()));
    }
  }
  std::optional<WeightAverage> average;
  if (experiment.training.ema.enabled) {
    average.emplace(experiment.training.ema);
    if (resumed) restore_average(c, resumed->info.path, *average);
    plan.ema = &*average;
  }
  if (std::filesystem::path(experiment.checkpoint.path).is_absolute()) {
    checkpoint_path(experiment, {});  // its checks, before a run folder is made
  }
  c.open_run_directory();

  std::optional<TensorBoardLog> tensorboard;
  if (experiment.logging.tensorboard) {
    tensorboard.emplace(c.request.tensorboard_dir.base.empty()
                            ? FolderInside{c.run_dir, "tensorboard"}
                            : c.request.tensorboard_dir,
                        experiment.resolved);
    if (c.request.sweep_point) {
      tensorboard->start_session(sweep_hparams(*c.request.sweep_point),
                                 planned_figures(experiment, c.session.data));
    }
  }
  // The report (and page) rewritten after every epoch with status running: a run to watch.
  LiveReport::DrawPage draw_page;  // the run's PageWriter, its returned path unused
  if (experiment.report.html) draw_page = c.request.write_page;
  RunRecord live_head = c.head();
  if (resumed) live_head.resumed_from = resumed_from_record(resumed->info);
  live_head.sweep_point = c.request.sweep_point;  // a sweep reads its running points too
  live_head.asha = c.request.asha;
  c.live.emplace(std::move(live_head), c.run_dir, experiment.training.epochs, c.started, draw_page,
                 c.history ? &*c.history : nullptr, &c.threads, c.console);
  plan.progress = [&](const TrainingOutcome& so_far) {
    if (tensorboard) tensorboard->update(so_far);
    c.live->update(so_far);
  };
  std::optional<EpochCheckpoints> checkpoints;
  if (!experiment.checkpoint.path.empty()) {
    checkpoints.emplace(checkpoint_path(experiment, c.run_dir), experiment, c.config_sha);
    if (resumed && resumed->best) {
      checkpoints->adopt_best(resumed->best->checkpoint, resumed->best->epoch);
    }
    plan.after_epoch = [&](int epochs_done, const SelectionState& selection, bool new_best) {
      checkpoints->epoch_done(c.program, epochs_done, selection, new_best);
      if (average && !average->empty()) {
        // Beside the last epoch's file, to resume; and beside the best one when the average
        // is what checkpoint.monitor watches (it is then the kept model).
        const std::optional<MonitorSpec>& monitor = experiment.checkpoint.monitor;
        const bool best_average = new_best && monitor && watches_average(monitor->monitor);
        average->with_average(c.program, [&] {
          save_checkpoint(average_checkpoint_path(checkpoints->path()), c.program, experiment,
                          epochs_done, c.config_sha);
          if (best_average) {
            save_checkpoint(average_checkpoint_path(checkpoints->best_path()), c.program,
                            experiment, epochs_done, c.config_sha);
          }
        });
      }
    };
  }
  const double startup_seconds = seconds_since(c.started);
  std::optional<TrainingOutcome> evaluated =
      nothing_left_to_train(c, plan, checkpoints ? &*checkpoints : nullptr);
  const TrainingOutcome outcome =
      evaluated ? std::move(*evaluated)
                : train(experiment, c.program, c.session.data, c.console, plan);
  RecordWallTime wall;
  wall.startup_seconds = startup_seconds;
  wall.training_seconds = outcome.train_seconds;
  double evaluation_seconds = outcome.evaluation_seconds;
  double checkpoint_seconds = outcome.checkpoint_seconds;
  RunRecord report = c.head();
  report.status = outcome.status;
  report.stop_reason = outcome.stop_reason;
  report.epochs = epoch_records(outcome.epochs);
  report.curves = curves_record(outcome);
  report.step_time = step_time_record(outcome, experiment.training.batch_size);
  report.throughput =
      throughput_record(outcome, c.session.graph.flops_per_sample(), *report.step_time);
  report.cpu = cpu_record(outcome, c.threads);
  if (outcome.augment_images_per_second > 0 && report.data) {
    report.data->augment_images_per_second = outcome.augment_images_per_second;
  }
  if (resumed) report.resumed_from = resumed_from_record(resumed->info);
  report_files_skipped_while_training(c, report);
  if (!outcome.error.empty()) report.error = outcome.error;
  auto finishing = SteadyClock::now();
  std::optional<RecordCheckpoint> checkpoint =
      finish_checkpoints(c, checkpoints ? &*checkpoints : nullptr, outcome);
  checkpoint_seconds += seconds_since(finishing);
  if (outcome.status == RunStatus::completed) {
    finishing = SteadyClock::now();
    c.program.release_memory();  // the kept model is measured by a program of its own
    report.metrics = measure_kept_model(c.session, c.console, outcome,
                                        checkpoints ? &*checkpoints : nullptr, checkpoint);
    // training.ema: the average's figures after the last epoch, beside the kept model's.
    if (report.metrics) {
      for (const auto& [name, value] : last_average_figures(outcome))
        report.metrics->figures[name] = value;
    }
    evaluation_seconds += seconds_since(finishing);
  } else if (outcome.status == RunStatus::stopped_early) {
    // Its validation figures at the rung it stopped at; the test set stays unseen.
    if (outcome.final_validation.count > 0) {
      report.metrics = RecordMetrics{};
      add_validation_metrics(*report.metrics, outcome.final_validation,
                             c.session.data.train.class_names, c.session.experiment.metrics);
    }
    c.console.line(fmt::format("run stopped early: {}", outcome.error));
  } else {
    c.console.warning(fmt::format("run {}: {}", status_name(outcome.status), outcome.error));
  }
  report.checkpoint = std::move(checkpoint);
  if (tensorboard) {
    if (c.request.sweep_point) {
      const std::int64_t last_step = outcome.epochs.empty() ? 0 : outcome.epochs.back().step;
      tensorboard->end_session(outcome.status, final_figures(report.metrics), last_step);
    }
    report.tensorboard = tensorboard->record();
    if (report.tensorboard->error) {
      c.console.warning(fmt::format("TensorBoard: {}", *report.tensorboard->error));
    }
  }
  wall.evaluation_seconds = evaluation_seconds;
  wall.checkpoint_seconds = checkpoint_seconds;
  const double total = seconds_since(c.started);
  wall.total_seconds = total;
  wall.progress_seconds = outcome.progress_seconds;
  wall.other_seconds =
      std::max(0.0, total - startup_seconds - outcome.train_seconds - evaluation_seconds -
                        checkpoint_seconds - outcome.progress_seconds);
  report.wall_time = wall;
  return {std::move(report), outcome.status};
}

RunReport benchmark_report(RunContext& c) {
  const Experiment& experiment = c.session.experiment;
  const BenchmarkSpec& spec = c.request.benchmark;
  BenchmarkOutcome outcome =
      run_benchmark(experiment, c.program, c.session.data.train, spec, c.console, &c.threads);
  c.open_run_directory();
  RunRecord report = c.head();
  report.status = outcome.run.status;
  if (!outcome.run.error.empty()) report.error = outcome.run.error;
  report.benchmark = benchmark_record(spec, outcome);
  const RecordStepTime step_time = step_time_record(outcome.run, experiment.training.batch_size);
  report.throughput = throughput_record(outcome.run, c.session.graph.flops_per_sample(), step_time);
  report.step_time = step_time;
  report.cpu = cpu_record(outcome.run, c.threads);
  if (spec.profile_steps > 0) {
    report.profile = profile_record(outcome.profile, spec.profile_steps, c.session.graph,
                                    *step_time.median_seconds);
  }
  if (outcome.run.status != RunStatus::completed) {
    c.console.warning(
        fmt::format("run {}: {}", status_name(outcome.run.status), outcome.run.error));
  }
  return {std::move(report), outcome.run.status};
}

// The run's page; "" when it could not be written (said, with how to write it again: the report
// is written by then, and `runner report RUN_DIR --html` draws the page from it).
std::filesystem::path write_page_or_say_why(const PageWriter& write_page, const RunRecord& report,
                                            const std::filesystem::path& report_path,
                                            Console& console) {
  const std::string again =
      fmt::format("the report is written; `runner report {} --html` draws the page from it",
                  report_path.parent_path().string());
  if (!write_page) {
    console.warning("report.html not written: this command draws no pages; " + again);
    return {};
  }
  try {
    return write_page(report, report_path);
  } catch (const std::exception& e) {
    console.warning(fmt::format("error: report.html not written: {}; {}", e.what(), again));
    // The live page drawn while training would still say "running": a page that contradicts the
    // report is worse than none.
    std::error_code ignored;
    std::filesystem::remove(report_path.parent_path() / "report.html", ignored);
    return {};
  }
}

RecordPrecisionChoice precision_choice_record(const PrecisionChoice& choice) {
  RecordPrecisionChoice record;
  record.chosen = choice.chosen;
  record.replayed = choice.replayed;
  if (!choice.times.empty()) {
    std::map<std::string, double> seconds;
    for (const PrecisionStepTime& t : choice.times) {
      seconds[std::string(precision_name(t.precision))] = t.median_seconds;
    }
    record.step_seconds = std::move(seconds);
  }
  return record;
}

// The steps' threads: replayed for `reproduce`, fitted to the machine where neither the config
// nor OMP_NUM_THREADS fixed them (on the CPU: a GPU's host threads only feed it), else fixed.
StepThreads step_threads(const ExperimentRequest& request, const Session& session,
                         const CpuUse& since) {
  if (request.replay_threads)
    return StepThreads::replayed(session.threads, *request.replay_threads);
  if (session.device.device == "cpu" &&
      threads_are_the_default(session.experiment.training.threads)) {
    return StepThreads::fitted(session.threads, since);
  }
  return StepThreads::fixed(session.threads);
}

}  // namespace

ExperimentResult run_experiment(const ExperimentRequest& request, Console& console) {
  reset_peak_rss();  // each run its own peak, also when a sweep runs many in one process
  const CpuUse cpu_at_start = read_cpu_use();  // the first window of the threads' fitting
  const auto started = SteadyClock::now();
  const MachineLoad load;
  if (auto busy = busy_warning(load.start(), load.cores()); !busy.empty())
    console.warning_once(kBusyWarningKey, busy);
  const nlohmann::json cli_tags =
      parse_tag_options(request.tags);  // a bad --tag stops before the run
  Session session = Session::prepare(request, console);
  if (request.print_layers) console.line(layer_table(session.graph, session.experiment.model));
  session.open(console);
  const Experiment& experiment = session.experiment;

  session.choose_precision(console, request.replay_precision);
  session.warn_if_precision_is_slower(console);  // `runner bench` too: its table shows one
  // The precisions' throwaway programs are freed: the report's peak memory is the run's own (an
  // FP32 timing program had doubled a bf16 ResNet-18's peak at batch 128).
  if (experiment.training.fastest_precision || experiment.training.precision != Precision::fp32)
    reset_peak_rss();
  std::string started_at = timestamp_now();
  std::string config_sha = sha256_hex(experiment.resolved.dump());
  StepThreads threads = step_threads(request, session, cpu_at_start);
  auto program = session.compile(threads.before_compile());
  RunContext context{request,    session,    *program, threads, console,
                     config_sha, started_at, {},       started};
  // As the seed watches nvidia-smi while it trains: sampled in the background (GPU only).
  auto monitor = session.backend->monitor_utilization();
  auto [report, status] = [&] {
    try {
      return request.mode == RunMode::train ? train_report(context) : benchmark_report(context);
    } catch (const std::exception& e) {
      // A live report left saying "running" would be read as a run still training.
      if (context.live) context.live->abandon(e.what());
      throw;
    }
  }();
  const DeviceUtilization utilisation = monitor ? monitor->stop() : DeviceUtilization{};
  if (auto why = program->facts().cuda_graph_fallback; !why.empty()) {
    console.warning_once(  // the same for every point of a sweep
        why, fmt::format("the training steps ran without a CUDA graph: {}", why));
  }
  report.gpu = gpu_record(program->facts(), &utilisation);

  MemoryEstimate estimate = estimate_training_memory(
      session.graph, experiment.training.batch_size, experiment.training.eval_batch_size,
      experiment.training.optimizer, experiment.training.precision,
      session.device.backend == "onednn" ? MemoryReuse::lifetimes : MemoryReuse::none);
  const std::size_t dataset_bytes = session.data.train.images.size() +
                                    session.data.validation.images.size() +
                                    session.data.test.images.size();
  report.memory = RecordMemory{peak_rss_bytes(),
                               static_cast<std::int64_t>(dataset_bytes),
                               memory_estimate_record(estimate),
                               {}};
  report.finished_at = timestamp_now();
  report.machine_load = load.record();
  if (session.precision_choice)
    report.precision_choice = precision_choice_record(*session.precision_choice);
  report.argv = command_line();
  report.tags = merge_tags(experiment.tags, cli_tags);
  report.sweep_point = request.sweep_point;
  report.asha = request.asha;
  if (context.history) context.history->complete(report);

  ExperimentResult result;
  result.status = status;
  result.exit_code = exit_code_for(status);
  // The training completed but the checkpoint asked for is not on disk: the report says why.
  if (result.exit_code == 0 && field_of(report.checkpoint, &RecordCheckpoint::error)) {
    result.exit_code = 1;
  }
  result.report_path = write_report(context.run_dir, report);
  if (experiment.report.html) {
    result.page_path =
        write_page_or_say_why(request.write_page, report, result.report_path, console);
    // An output the config or the command line asked for is missing: not a success.
    if (result.page_path.empty() && result.exit_code == 0) result.exit_code = 1;
  }
  result.report = std::move(report);
  return result;
}

}  // namespace runner
