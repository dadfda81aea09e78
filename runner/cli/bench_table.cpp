// Formatting a benchmark report's profile as a table (milliseconds per step).
#include "runner/cli/bench_table.h"

#include <fmt/format.h>

#include "runner/run/layer_table.h"

namespace runner {
namespace {

double ms(const nlohmann::json& seconds) {
  return 1e3 * seconds.get<double>();
}

std::string row(const std::string& name, const std::string& type, const std::string& forward,
                const std::string& backward, double total_ms, double sum_ms) {
  return fmt::format("{:<18} {:<11} {:>11} {:>12} {:>10.3f} {:>7.1f} %\n", name, type, forward,
                     backward, total_ms, sum_ms > 0 ? 100 * total_ms / sum_ms : 0.0);
}

}  // namespace

std::string bench_table(const nlohmann::json& report) {
  const auto& step = report["step_time"];
  std::string out;
  if (report.contains("profile")) {
    const auto& profile = report["profile"];
    double sum = ms(profile["sum_seconds"]);
    out += fmt::format("per step, median of {} profiled steps (batch {}, {} threads):\n",
                       profile["steps"].get<int>(),
                       report["config"]["training"]["batch_size"].get<int>(),
                       report["cpu"]["threads"].get<int>());
    out += fmt::format("{:<18} {:<11} {:>11} {:>12} {:>10} {:>9}\n", "layer", "type", "forward ms",
                       "backward ms", "total ms", "share");
    for (const auto& layer : profile["layers"]) {
      double forward = ms(layer["forward_seconds"]), backward = ms(layer["backward_seconds"]);
      out += row(layer["name"], layer["type"], fmt::format("{:.3f}", forward),
                 fmt::format("{:.3f}", backward), forward + backward, sum);
    }
    for (const auto& part : profile["other"])
      out += row(part["label"], "", "", "", ms(part["seconds"]), sum);
    out += row("sum of the parts", "", "", "", sum, sum);
    out += fmt::format(
        "measured step (un-profiled, median of {}; p10 {:.3f}, p90 {:.3f} ms): {:.3f} ms; "
        "the parts sum to {:.1f} % of it\n",
        step["steps"].get<int>(), ms(step["p10_seconds"]), ms(step["p90_seconds"]),
        ms(step["median_seconds"]), 100 * profile["sum_over_measured"].get<double>());
  } else {
    out += fmt::format("step time (median of {}): {:.3f} ms (p10 {:.3f}, p90 {:.3f})\n",
                       step["steps"].get<int>(), ms(step["median_seconds"]),
                       ms(step["p10_seconds"]), ms(step["p90_seconds"]));
  }
  const auto& throughput = report["throughput"];
  out += fmt::format("data wait: {:.1f} % of the timed steps\n",
                     100 * throughput["data_wait_fraction"].get<double>());
  double images_per_second = step["images_per_second"].get<double>();
  double flops = report["model"]["flops_per_image"].get<double>();
  out += fmt::format(
      "throughput: {:.0f} images/s (median step), {:.0f} images/s (whole run), {}FLOP/s "
      "achieved (3 x {}FLOP forward per image), CPU utilisation {:.0f} % of {} threads",
      images_per_second, throughput["train_images_per_second"].get<double>(),
      human_count(3 * flops * images_per_second), human_count(flops),
      100 * report["cpu"]["utilisation"].get<double>(), report["cpu"]["threads"].get<int>());
  return out;
}

}  // namespace runner
