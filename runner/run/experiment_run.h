// One experiment run in process: load and check the config, train or benchmark it, write its
// report. `runner run`, `runner bench`, `runner reproduce` and every sweep point go through it;
// it lives below the sweep and the CLI, which call down into it.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/report/run_record.h"
#include "runner/run/session.h"
#include "runner/train/benchmark.h"
#include "runner/train/run_status.h"
#include "runner/train/step_threads.h"
#include "runner/train/trainer.h"
#include "runner/util/folders.h"

namespace runner {

// Draws the run's page (report.html) beside its report and returns its path: given by the
// caller that has the pages (runner/html sits above this module).
using PageWriter = std::function<std::filesystem::path(const RunRecord& report,
                                                       const std::filesystem::path& report_file)>;

struct ExperimentRequest : SessionOptions {
  RunMode mode = RunMode::train;
  BenchmarkSpec benchmark;       // mode benchmark
  std::filesystem::path resume;  // mode train: a checkpoint to continue from
  // With `resume`: go on in the run folder holding the checkpoint, one history (RunHistory);
  // false (--output given, a sweep's point): a new folder that records where it came from.
  bool resume_in_place = false;
  // A sweep point's folder, made never through a link; no base: <output>/<name>/<run id>.
  FolderInside run_dir;
  // A sweep's point: the report's `sweep_point` and, for an ASHA trial, `asha`.
  std::optional<RecordSweepPoint> sweep_point;
  std::optional<RecordAsha> asha;
  bool print_layers = true;  // the layer table before the run
  // A search's trial (mode train): asked after each epoch whether the run goes on, "" for yes
  // (TrainingPlan::stop_after_epoch); its test set is then evaluated only after the last epoch.
  std::function<std::string(const EpochRecord&)> stop_after_epoch;
  // logging.tensorboard: where the event file goes (no base: RUN_DIR/tensorboard).
  FolderInside tensorboard_dir;
  // report.html: how the page is drawn (unset: the config's report.html is refused with a
  // warning, the report itself still written).
  PageWriter write_page;
  // `reproduce`: the original run's thread changes, made again at their steps (the threads
  // start at OMP_NUM_THREADS, which reproduce sets).
  std::optional<std::vector<ThreadChange>> replay_threads;
  // `reproduce` of a `precision: fastest` run: the original's choice, not timed again.
  std::optional<Precision> replay_precision;
};

struct ExperimentResult {
  RunRecord report;                         // as written
  RunStatus status = RunStatus::completed;  // the report's `status`
  std::filesystem::path report_path;
  std::filesystem::path page_path;  // report.html, when report.html is set
  int exit_code = 0;                // 0 completed, 130 interrupted, 1 otherwise (a diverged loss)
};

// Config mistakes and an unusable device are UserErrors, a failed allocation OutOfMemoryError
// (std::bad_alloc on the host); all of these are thrown before a run folder is made.
ExperimentResult run_experiment(const ExperimentRequest& request, Console& console);

}  // namespace runner
