// Finding a trained run's report and checkpoint (trained_run.h).
#include "runner/cli/trained_run.h"

#include <fmt/format.h>

#include <vector>

#include "runner/config/load_config.h"
#include "runner/data/dataset_format.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/report/read_report.h"
#include "runner/train/checkpoint.h"
#include "runner/util/errors.h"

namespace runner {

namespace fs = std::filesystem;

namespace {

Experiment experiment_of(const TrainedRun& run) {
  ConfigDocument doc;
  doc.file = run.report_path.string();
  doc.source_map = SourceMap(doc.file, "config");
  doc.json = *run.report.config;
  validate_config(doc);
  return resolve_experiment(doc);
}

// In label order: the report's (so a moved dataset does not matter), else from the dataset's
// format (reports written before they held them).
ClassNames class_names_of(const TrainedRun& run, const DatasetSpec& spec) {
  const auto names = field_of(run.report.data, &RecordData::class_names);
  if (names && !names->empty()) {
    return {*names, fmt::format("{} lists {} class names in data.class_names",
                                run.report_path.string(), names->size())};
  }
  try {
    DatasetGeometry geometry = dataset_geometry(spec);
    return {geometry.class_names, geometry.classes_origin};
  } catch (const UserError& e) {
    throw UserError(
        fmt::format("{}: the report has no data.class_names and the dataset cannot "
                    "tell them: {}",
                    run.report_path.string(), e.what()));
  }
}

}  // namespace

fs::path checkpoint_of(const RunRecord& report, const fs::path& run_dir,
                       const std::string& configured_path) {
  const std::string path = field_of(report.checkpoint, &RecordCheckpoint::path).value_or("");
  if (path.empty()) {
    throw UserError(fmt::format(
        "{}: the run kept no checkpoint (its config has no checkpoint.path), so there are no "
        "weights to use",
        (run_dir / "report.json").string()));
  }
  std::vector<fs::path> candidates;
  const fs::path configured = configured_path;
  const fs::path kept_name = fs::path(path).filename();
  if (!configured.empty() && configured.is_relative()) {
    // The kept file where the configured one is (the two differ where the kept model is the
    // weights' average, net.ema.safetensors beside net.safetensors), in a folder moved or not.
    if (!kept_name.empty()) candidates.push_back(run_dir / configured.parent_path() / kept_name);
    candidates.push_back(run_dir / configured);
  }
  if (!kept_name.empty()) candidates.push_back(run_dir / kept_name);
  candidates.push_back(path);
  for (const fs::path& file : candidates) {
    if (fs::is_regular_file(file)) return file;
  }
  throw UserError(
      fmt::format("{}: checkpoint.path: found '{}', which is not a file (moved or "
                  "deleted?), and the folder holds none; pass the checkpoint file "
                  "itself instead",
                  (run_dir / "report.json").string(), path));
}

TrainedRun find_trained_run(const fs::path& model) {
  TrainedRun run;
  if (fs::is_directory(model)) {
    run.report_path = model / "report.json";
  } else if (fs::is_regular_file(model)) {
    run.checkpoint = model;
    run.report_path = model.parent_path() / "report.json";
  } else {
    throw UserError(fmt::format(
        "{}: no such run folder or checkpoint (expected a run's folder, e.g. results/<run>, or "
        "its .safetensors checkpoint)",
        model.string()));
  }
  if (!fs::is_regular_file(run.report_path)) {
    throw UserError(fmt::format(
        "{}: no report.json there; the run's config and preprocessing (image size, channels, "
        "normalisation, class names) are read from the report of the run that trained the "
        "model: pass the run's folder, or keep its report.json beside the checkpoint",
        model.string()));
  }
  run.report = read_run_record(run.report_path);
  if (!run.report.config) {
    throw UserError(fmt::format("{}: the report holds no config (the run never started)",
                                run.report_path.string()));
  }
  return run;
}

TrainedModel open_trained_model(const fs::path& model) {
  TrainedModel trained;
  trained.run = find_trained_run(model);
  trained.experiment = experiment_of(trained.run);
  if (trained.run.checkpoint.empty()) {
    trained.run.checkpoint =
        checkpoint_of(trained.run.report, model, trained.experiment.checkpoint.path);
  }
  trained.classes = class_names_of(trained.run, trained.experiment.dataset);
  const ImageShape image = format_of(trained.experiment.dataset).image(trained.experiment.dataset);
  trained.graph =
      build_graph(trained.experiment.model, Shape{image.channels, image.height, image.width},
                  static_cast<int>(trained.classes.names.size()), trained.classes.origin);
  check_checkpoint_fits(trained.run.checkpoint, trained.graph);
  return trained;
}

}  // namespace runner
