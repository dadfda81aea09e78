// Finding a trained run's report and checkpoint (trained_run.h).
#include "runner/cli/trained_run.h"

#include <fmt/format.h>

#include <vector>

#include "runner/report/read_report.h"
#include "runner/util/errors.h"

namespace runner {

namespace fs = std::filesystem;

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

}  // namespace runner
