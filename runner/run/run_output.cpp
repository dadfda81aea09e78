// Accuracy lines and the common report head.
#include "runner/run/run_output.h"

#include <fmt/format.h>

#include "runner/report/environment.h"
#include "runner/report/report.h"

namespace runner {

void print_evaluation(Console& console, const Evaluation& evaluation,
                      const std::vector<std::string>& class_names) {
  console.line(fmt::format("Accuracy of the network on the {} test images: {:.2f} %",
                           evaluation.count, 100 * evaluation.accuracy()));
  for (std::size_t k = 0; k < class_names.size(); ++k) {
    console.line(fmt::format("Accuracy for class: {:<12} is {}", class_names[k],
                             class_accuracy_text(evaluation, static_cast<int>(k))));
  }
}

void print_validation(Console& console, const Evaluation& validation) {
  console.line(
      fmt::format("Accuracy of the network on the {} validation images: {:.2f} % (loss {:.4f})",
                  validation.count, 100 * validation.accuracy(), validation.loss));
}

std::string throughput_line(const RunRecord& report) {
  const auto median = field_of(report.step_time, &RecordStepTime::images_per_second);
  const auto whole = field_of(report.throughput, &RecordThroughput::train_images_per_second);
  if (!median || !whole || field_of(report.step_time, &RecordStepTime::steps).value_or(0) == 0)
    return "";
  return fmt::format("throughput: {:.0f} images/s (median step), {:.0f} images/s (whole run)",
                     *median, *whole);
}

nlohmann::json report_head(const Session& session, const std::string& mode,
                           const std::filesystem::path& run_dir, const std::string& config_sha256,
                           const std::string& started_at) {
  const Experiment& experiment = session.experiment;
  return {
      {"schema_version", 1},
      {"mode", mode},
      {"name", experiment.name},
      {"run_id", run_dir.filename().string()},
      {"config_file", experiment.source_file},
      {"config", experiment.resolved},
      {"config_sha256", config_sha256},
      {"seed", experiment.seed},
      {"device", session.device.device},
      {"backend", session.device.backend},
      {"environment",
       environment_json(session.device, session.threads, session.experiment.training.precision)},
      {"model", model_json(session.graph)},
      {"data", session.data_fingerprint},
      {"started_at", started_at},
  };
}

}  // namespace runner
