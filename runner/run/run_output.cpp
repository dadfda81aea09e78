// Accuracy lines and the common report head.
#include "runner/run/run_output.h"

#include <fmt/format.h>

#include "runner/report/environment.h"
#include "runner/report/report.h"
#include "runner/util/terminal_text.h"

namespace runner {

void print_evaluation(Console& console, const Evaluation& evaluation,
                      const std::vector<std::string>& class_names) {
  console.line(fmt::format("Accuracy of the network on the {} test images: {:.2f} %",
                           evaluation.count, 100 * evaluation.accuracy()));
  for (std::size_t k = 0; k < class_names.size(); ++k) {
    console.line(fmt::format("Accuracy for class: {:<12} is {}", terminal_safe(class_names[k]),
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

RunRecord report_head(const Session& session, RunMode mode, const std::filesystem::path& run_dir,
                      const std::string& config_sha256, const std::string& started_at) {
  const Experiment& experiment = session.experiment;
  RunRecord report;
  report.schema_version = 1;
  report.mode = mode;
  report.name = experiment.name;
  report.run_id = run_dir.filename().string();
  report.config_file = experiment.source_file;
  report.config = experiment.resolved;
  report.config_sha256 = config_sha256;
  report.seed = static_cast<std::int64_t>(experiment.seed);
  report.device = Device::parse(session.device.device);
  report.backend = session.device.backend;
  report.environment =
      environment_record(session.device, session.threads, experiment.training.precision);
  report.model = model_record(session.graph);
  report.data = section_from_json<RecordData>(session.data_fingerprint);
  report.started_at = started_at;
  return report;
}

}  // namespace runner
