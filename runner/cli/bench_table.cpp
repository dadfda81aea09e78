// Formatting a benchmark report's profile as a table (milliseconds per step).
#include "runner/cli/bench_table.h"

#include <fmt/format.h>

#include "runner/report/report.h"
#include "runner/run/layer_table.h"

namespace runner {
namespace {

template <class Number>
double ms(const std::optional<Number>& seconds) {
  return 1e3 * value_or_nan(seconds);
}

std::string row(const std::string& name, const std::string& type, const std::string& forward,
                const std::string& backward, double total_ms, double sum_ms) {
  return fmt::format("{:<18} {:<11} {:>11} {:>12} {:>10.3f} {:>7.1f} %\n", name, type, forward,
                     backward, total_ms, sum_ms > 0 ? 100 * total_ms / sum_ms : 0.0);
}

}  // namespace

std::string bench_table(const RunRecord& report) {
  const RecordStepTime step = report.step_time.value_or(RecordStepTime{});
  const auto threads = field_of(report.cpu, &RecordCpu::threads);
  std::string out;
  if (report.profile) {
    const RecordProfile& profile = *report.profile;
    const double sum = ms(profile.sum_seconds);
    out += fmt::format("per step, median of {} profiled steps (batch {}, {} threads):\n",
                       profile.steps.value_or(0), report.config_facts().batch_size.value_or(0),
                       threads.value_or(0));
    out += fmt::format("{:<18} {:<11} {:>11} {:>12} {:>10} {:>9}\n", "layer", "type", "forward ms",
                       "backward ms", "total ms", "share");
    for (const RecordLayerTime& layer : profile.layers.value_or(std::vector<RecordLayerTime>{})) {
      const double forward = ms(layer.forward_seconds), backward = ms(layer.backward_seconds);
      out += row(layer.name.value_or(""), layer.type.value_or(""), fmt::format("{:.3f}", forward),
                 fmt::format("{:.3f}", backward), forward + backward, sum);
    }
    for (const RecordTiming& part : profile.other.value_or(std::vector<RecordTiming>{}))
      out += row(part.label.value_or(""), "", "", "", ms(part.seconds), sum);
    out += row("sum of the parts", "", "", "", sum, sum);
    out += fmt::format(
        "measured step (un-profiled, median of {}; p10 {:.3f}, p90 {:.3f} ms): {:.3f} ms; "
        "the parts sum to {:.1f} % of it\n",
        step.steps.value_or(0), ms(step.p10_seconds), ms(step.p90_seconds), ms(step.median_seconds),
        100 * value_or_nan(profile.sum_over_measured));
  } else {
    out += fmt::format("step time (median of {}): {:.3f} ms (p10 {:.3f}, p90 {:.3f})\n",
                       step.steps.value_or(0), ms(step.median_seconds), ms(step.p10_seconds),
                       ms(step.p90_seconds));
  }
  const RecordThroughput throughput = report.throughput.value_or(RecordThroughput{});
  out += fmt::format("data wait: {:.1f} % of the timed steps\n",
                     100 * value_or_nan(throughput.data_wait_fraction));
  const double images_per_second = value_or_nan(step.images_per_second);
  const double flops = value_or_nan(field_of(report.model, &RecordModel::flops_per_image));
  out += fmt::format(
      "throughput: {:.0f} images/s (whole run), {:.0f} images/s (median step), {}FLOP/s "
      "achieved (3 x {}FLOP forward per image), CPU utilisation {:.0f} % of {} threads",
      value_or_nan(throughput.train_images_per_second), images_per_second,
      human_count(3 * flops * images_per_second), human_count(flops),
      100 * value_or_nan(field_of(report.cpu, &RecordCpu::utilisation)),
      report.cpu ? threads_text(*report.cpu) : std::to_string(threads.value_or(0)));
  return out;
}

}  // namespace runner
