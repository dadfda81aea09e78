// A run's page: the model's layers, its speed (throughput, step times, utilisation, the
// machine's load), its memory, and a benchmark's per-layer profile.
#include <fmt/format.h>

#include <cmath>

#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/run_sections.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

using nlohmann::json;

// "" when the report lacks the figure, so facts_list leaves the line out.
std::string figure_at(const json& report, const char* pointer, const char* unit) {
  const double v = number_field(report, pointer);
  return std::isfinite(v) ? escape_html(figure_text(v, unit)) : "";
}

std::string load_text(const json& report) {
  const double start = number_field(report, "/machine_load/load_average_start");
  const double end = number_field(report, "/machine_load/load_average_end");
  const double cores = number_field(report, "/machine_load/cores");
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(cores)) return "";
  const bool busy = std::max(start, end) > cores;
  return fmt::format("load average {:.2f} at the start, {:.2f} at the end, {} cores{}", start, end,
                     cores,
                     busy ? " <span class=\"bad\">(busy: the timings are noisy)</span>" : "");
}

std::string step_times(const json& report) {
  const double median = number_field(report, "/step_time/median_seconds");
  if (!std::isfinite(median)) return "";
  return fmt::format("{} median (p10 {}, p90 {}) over {} steps", figure_text(median, "seconds"),
                     figure_text(number_field(report, "/step_time/p10_seconds"), "seconds"),
                     figure_text(number_field(report, "/step_time/p90_seconds"), "seconds"),
                     text_field(report, "/step_time/steps"));
}

// 3 x forward FLOPs x images/s, as the sweep tables count it.
std::string gflops_text(const json& report) {
  const double flops = number_field(report, "/throughput/achieved_flops_per_second");
  return std::isfinite(flops) ? fmt::format("{:.4g} GFLOP/s", flops / 1e9) : "";
}

// nvidia-smi's sampled utilisation, as the seed's "watch -n 1 nvidia-smi".
std::string gpu_utilisation(const json& report) {
  const double mean = number_field(report, "/gpu/utilisation/mean_gpu_percent");
  if (!std::isfinite(mean)) return "";
  return fmt::format("{:.0f} % mean, {:.0f} % peak ({} samples)", mean,
                     number_field(report, "/gpu/utilisation/peak_gpu_percent"),
                     text_field(report, "/gpu/utilisation/samples"));
}

std::string estimate_table(const json& estimate) {
  if (!estimate.is_object()) return "";
  HtmlTable table{"memory-table", {"part", "bytes"}, {}, false};
  for (const auto& [part, bytes] : estimate.items()) {
    if (!bytes.is_number()) continue;
    table.rows.push_back({text_cell(part), number_cell(bytes.get<double>(),
                                                       figure_text(bytes.get<double>(), "bytes"))});
  }
  return "<h3>Estimated from the graph</h3>\n" + render_table(table);
}

}  // namespace

std::string layers_section(const json& report) {
  const json& layers = field(report, "/model/layers");
  if (!layers.is_array() || layers.empty()) return "";
  HtmlTable table{
      "layers", {"layer", "type", "output", "parameters", "FLOPs per image"}, {}, false};
  for (const json& layer : layers) {
    const double parameters = number_field(layer, "/parameters");
    const double flops = number_field(layer, "/flops_per_image");
    table.rows.push_back(
        {text_cell(text_field(layer, "/name")), text_cell(text_field(layer, "/type")),
         text_cell(text_field(layer, "/output_shape")),
         number_cell(parameters, std::isfinite(parameters) ? grouped_digits(parameters) : ""),
         number_cell(flops, std::isfinite(flops) ? grouped_digits(flops) : "")});
  }
  const double total = number_field(report, "/model/parameters");
  const std::string totals = fmt::format(
      "<p>Input {}, {} classes, {} parameters, {} FLOPs per image (forward).</p>\n",
      escape_html(text_field(report, "/model/input_shape")), text_field(report, "/model/classes"),
      std::isfinite(total) ? grouped_digits(total) : "?",
      figure_at(report, "/model/flops_per_image", "count"));
  return section("model", "Model",
                 totals + "<div class=\"wide\">" + render_table(table) + "</div>");
}

std::string performance_section(const json& report) {
  std::string speed = facts_list({
      {"images/s (median step)",
       figure_at(report, "/step_time/median_step_images_per_second", "rate")},
      {"images/s (whole run)",
       figure_at(report, "/throughput/whole_run_images_per_second", "rate")},
      {"step time", escape_html(step_times(report))},
      {"waiting for data", figure_at(report, "/throughput/data_wait_fraction", "share")},
      {"compute", gflops_text(report)},
      {"CPU utilisation", figure_at(report, "/cpu/utilisation", "share")},
      {"threads", escape_html(text_field(report, "/cpu/threads"))},
      {"loader threads", escape_html(text_field(report, "/throughput/loader_workers"))},
      {"GPU utilisation", gpu_utilisation(report)},
      {"machine", load_text(report)},
  });
  std::string memory = facts_list({
      {"peak resident memory", figure_at(report, "/memory/peak_rss_bytes", "bytes")},
      {"GPU memory used (peak)",
       figure_at(report, "/gpu/utilisation/peak_memory_used_bytes", "bytes")},
      {"GPU memory of the program", figure_at(report, "/gpu/device_memory_bytes", "bytes")},
      {"dataset in memory", figure_at(report, "/memory/dataset_bytes", "bytes")},
  });
  if (speed == facts_list({}) && memory == facts_list({})) return "";
  return section("performance", "Throughput and memory",
                 "<h3>Throughput</h3>\n" + speed + "<h3>Memory</h3>\n" + memory +
                     estimate_table(field(report, "/memory/estimate")));
}

std::string profile_section(const json& report) {
  const json& layers = field(report, "/profile/layers");
  if (!layers.is_array() || layers.empty()) return "";
  HtmlTable table{"profile-table", {"layer", "type", "forward", "backward"}, {}, true};
  for (const json& layer : layers) {
    const double forward = number_field(layer, "/forward_seconds");
    const double backward = number_field(layer, "/backward_seconds");
    table.rows.push_back({text_cell(text_field(layer, "/name")),
                          text_cell(text_field(layer, "/type")),
                          number_cell(forward, figure_text(forward, "seconds")),
                          number_cell(backward, figure_text(backward, "seconds"))});
  }
  return section("profile", "Profile (time per step)",
                 fmt::format("<p>Over {} profiled steps; the parts add up to {} of the measured "
                             "step.</p>\n",
                             text_field(report, "/profile/steps"),
                             figure_at(report, "/profile/sum_over_measured", "share")) +
                     render_table(table));
}

}  // namespace runner
