// A run's page: the model's layers, its speed (throughput, step times, utilisation, the
// machine's load), its memory, and a benchmark's per-layer profile.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "runner/html/html_table.h"
#include "runner/html/html_text.h"
#include "runner/html/record_text.h"
#include "runner/html/run_sections.h"
#include "runner/report/report.h"
#include "runner/util/figure_text.h"

namespace runner {
namespace {

// "" when the record lacks the figure, so facts_list leaves the line out.
template <class Number>
std::string figure_html(const std::optional<Number>& value, const char* unit) {
  return escape_html(figure_of(value, unit));
}

std::string load_text(const RecordMachineLoad& load) {
  if (!load.load_average_start || !load.load_average_end || !load.cores) return "";
  const double start = *load.load_average_start, end = *load.load_average_end;
  const bool busy = std::max(start, end) > *load.cores;
  return fmt::format("load average {:.2f} at the start, {:.2f} at the end, {} cores{}", start, end,
                     *load.cores,
                     busy ? " <span class=\"bad\">(busy: the timings are noisy)</span>" : "");
}

std::string step_times(const RecordStepTime& times) {
  if (!times.median_seconds) return "";
  return fmt::format("{} median (p10 {}, p90 {}) over {} steps",
                     figure_text(*times.median_seconds, "seconds"),
                     figure_text(value_or_nan(times.p10_seconds), "seconds"),
                     figure_text(value_or_nan(times.p90_seconds), "seconds"), text_of(times.steps));
}

// 3 x forward FLOPs x images/s, as the sweep tables count it.
std::string gflops_text(const RecordThroughput& throughput) {
  const auto& flops = throughput.achieved_flops_per_second;
  return flops ? fmt::format("{:.4g} GFLOP/s", *flops / 1e9) : "";
}

// nvidia-smi's sampled utilisation, as the seed's "watch -n 1 nvidia-smi".
std::string gpu_utilisation(const RecordGpuUtilisation& utilisation) {
  if (!utilisation.mean_gpu_percent) return "";
  return fmt::format("{:.0f} % mean, {:.0f} % peak ({} samples)", *utilisation.mean_gpu_percent,
                     value_or_nan(utilisation.peak_gpu_percent), text_of(utilisation.samples));
}

std::string estimate_table(const std::optional<std::map<std::string, std::int64_t>>& estimate) {
  if (!estimate) return "";
  HtmlTable table{"memory-table", {"part", "bytes"}, {}, false};
  for (const auto& [part, bytes] : *estimate) {
    const auto value = static_cast<double>(bytes);
    table.rows.push_back({text_cell(part), number_cell(value, figure_text(value, "bytes"))});
  }
  return "<h3>Estimated from the graph</h3>\n" + render_table(table);
}

// A count of a layer's, in digits; "" when the record lacks it.
std::string count_text(const std::optional<std::int64_t>& count) {
  return count ? grouped_digits(static_cast<double>(*count)) : "";
}

}  // namespace

std::string layers_section(const RunRecord& record) {
  const RecordModel& model = or_empty(record.model);
  if (!model.layers || model.layers->empty()) return "";
  HtmlTable table{
      "layers", {"layer", "type", "output", "parameters", "FLOPs per image"}, {}, false};
  for (const RecordLayer& layer : *model.layers) {
    table.rows.push_back(
        {text_cell(text_of(layer.name)), text_cell(text_of(layer.type)),
         text_cell(text_of(layer.output_shape)),
         number_cell(value_or_nan(layer.parameters), count_text(layer.parameters)),
         number_cell(value_or_nan(layer.flops_per_image), count_text(layer.flops_per_image))});
  }
  const std::string parameters = count_text(model.parameters);
  const std::string totals = fmt::format(
      "<p>Input {}, {} classes, {} parameters, {} FLOPs per image (forward).</p>\n",
      escape_html(text_of(model.input_shape)), text_of(model.classes),
      parameters.empty() ? "?" : parameters, figure_html(model.flops_per_image, "count"));
  return section("model", "Model",
                 totals + "<div class=\"wide\">" + render_table(table) + "</div>");
}

// "12.3 s: start-up 0.8 s, training 10.9 s, evaluation 0.4 s, checkpoints 0.1 s, other 0.1 s".
std::string wall_time_text(const RecordWallTime& wall) {
  if (!wall.total_seconds) return "";
  std::string parts;
  for (const auto& [name, seconds] :
       {std::pair{"start-up", wall.startup_seconds}, std::pair{"training", wall.training_seconds},
        std::pair{"evaluation", wall.evaluation_seconds},
        std::pair{"checkpoints", wall.checkpoint_seconds},
        std::pair{"other", wall.other_seconds}}) {
    if (seconds) parts += fmt::format("{}{} {:.1f} s", parts.empty() ? "" : ", ", name, *seconds);
  }
  return fmt::format("{:.1f} s: {}", *wall.total_seconds, parts);
}

std::string performance_section(const RunRecord& record) {
  const RecordThroughput& throughput = or_empty(record.throughput);
  const RecordStepTime& step_time = or_empty(record.step_time);
  const RecordCpu& cpu = or_empty(record.cpu);
  const RecordGpu& gpu = or_empty(record.gpu);
  const RecordGpuUtilisation& gpu_use = or_empty(gpu.utilisation);
  const RecordMemory& memory_use = or_empty(record.memory);
  std::string speed = facts_list({
      {"images/s (whole run)", figure_html(throughput.whole_run_images_per_second, "rate")},
      {"images/s (median step)", figure_html(step_time.median_step_images_per_second, "rate")},
      {"step time", escape_html(step_times(step_time))},
      {"waiting for data", figure_html(throughput.data_wait_fraction, "share")},
      {"compute", gflops_text(throughput)},
      {"CPU utilisation", figure_html(cpu.utilisation, "share")},
      {"threads", escape_html(threads_text(cpu))},
      {"loader threads", escape_html(text_of(throughput.loader_workers))},
      {"GPU utilisation", gpu_utilisation(gpu_use)},
      {"wall time", escape_html(wall_time_text(or_empty(record.wall_time)))},
      {"machine", load_text(or_empty(record.machine_load))},
  });
  std::string memory = facts_list({
      {"peak resident memory", figure_html(memory_use.peak_rss_bytes, "bytes")},
      {"GPU memory used (peak)", figure_html(gpu_use.peak_memory_used_bytes, "bytes")},
      {"GPU memory of the program", figure_html(gpu.device_memory_bytes, "bytes")},
      {"dataset in memory", figure_html(memory_use.dataset_bytes, "bytes")},
  });
  if (speed == facts_list({}) && memory == facts_list({})) return "";
  return section("performance", "Throughput and memory",
                 "<h3>Throughput</h3>\n" + speed + "<h3>Memory</h3>\n" + memory +
                     estimate_table(memory_use.estimate));
}

std::string profile_section(const RunRecord& record) {
  const RecordProfile& profile = or_empty(record.profile);
  if (!profile.layers || profile.layers->empty()) return "";
  HtmlTable table{"profile-table", {"layer", "type", "forward", "backward"}, {}, true};
  for (const RecordLayerTime& layer : *profile.layers) {
    const double forward = value_or_nan(layer.forward_seconds);
    const double backward = value_or_nan(layer.backward_seconds);
    table.rows.push_back({text_cell(text_of(layer.name)), text_cell(text_of(layer.type)),
                          number_cell(forward, figure_text(forward, "seconds")),
                          number_cell(backward, figure_text(backward, "seconds"))});
  }
  return section(
      "profile", "Profile (time per step)",
      fmt::format("<p>Over {} profiled steps; the parts add up to {} of the measured "
                  "step.</p>\n",
                  text_of(profile.steps), figure_html(profile.sum_over_measured, "share")) +
          render_table(table));
}

}  // namespace runner
