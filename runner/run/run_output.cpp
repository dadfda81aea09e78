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
  const auto steps = field_of(report.step_time, &RecordStepTime::steps).value_or(0);
  if (!median || !whole || steps == 0) return "";
  std::string line = fmt::format(
      "throughput: {:.0f} images/s (whole run), {:.0f} images/s (median step)", *whole, *median);
  // Why the two differ, in the training's own seconds (see RecordThroughput).
  const auto train = field_of(report.throughput, &RecordThroughput::timed_seconds);
  const auto median_seconds = field_of(report.step_time, &RecordStepTime::median_seconds);
  const auto off = field_of(report.throughput, &RecordThroughput::off_median_seconds);
  const auto other = field_of(report.throughput, &RecordThroughput::other_seconds);
  const auto wait = field_of(report.throughput, &RecordThroughput::data_wait_seconds);
  if (train && median_seconds && off && other && wait) {
    line += fmt::format(
        "; its {:.2f} s: {:.2f} s at the median step, {:+.2f} s in steps off the median, {:.2f} s "
        "in partial batches (waiting for data {:.2f} s in all)",
        *train, *median_seconds * static_cast<double>(steps), *off, *other, *wait);
  }
  // Threads that followed a busy machine: when, since the rates change with them.
  if (!field_of(report.cpu, &RecordCpu::thread_changes)
           .value_or(std::vector<RecordThreadChange>{})
           .empty()) {
    line += "; threads " + threads_text(*report.cpu);
  }
  return line;
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
  report.model = model_record(session.graph, session.experiment.model);
  report.data = section_from_json<RecordData>(session.data_fingerprint);
  report.started_at = started_at;
  return report;
}

}  // namespace runner
