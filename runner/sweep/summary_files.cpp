// CSV and Markdown renderings of a summary.
#include "runner/sweep/summary_files.h"

#include <fmt/format.h>

#include "runner/util/console.h"
#include "runner/util/files.h"

namespace runner {
namespace {

using nlohmann::json;

const char* const kColumns[] = {"id",
                                "index",
                                "status",
                                "mode",
                                "device",
                                "batch_size",
                                "width",
                                "images_per_second",
                                "step_time_median_seconds",
                                "step_time_p10_seconds",
                                "step_time_p90_seconds",
                                "cpu_utilisation",
                                "gpu_utilisation",
                                "gpu_memory_bytes",
                                "threads",
                                "peak_memory_bytes",
                                "estimated_memory_bytes",
                                "flops_per_image",
                                "achieved_flops_per_second",
                                "test_accuracy",
                                "test_loss",
                                "final_loss",
                                "speedup_over_cpu",
                                "values",
                                "error",
                                "report"};

std::string values_text(const json& values) {
  std::vector<std::string> parts;
  for (const auto& [path, value] : values.items()) {
    parts.push_back(path + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string csv_cell(const json& value) {
  if (value.is_null()) return "";
  std::string text = value.is_string()   ? value.get<std::string>()
                     : value.is_object() ? values_text(value)
                                         : value.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A number cell: formatted, or "" when null.
std::string number(const json& value, const char* format, double scale = 1.0) {
  return value.is_number() ? fmt::format(fmt::runtime(format), scale * value.get<double>()) : "";
}

std::string markdown_text(std::string text) {
  text = text.substr(0, text.find('\n'));
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string step_cell(const json& row) {
  if (!row["step_time_median_seconds"].is_number()) return "";
  return fmt::format("{} ({}–{})", number(row["step_time_median_seconds"], "{:.3f}", 1e3),
                     number(row["step_time_p10_seconds"], "{:.3f}", 1e3),
                     number(row["step_time_p90_seconds"], "{:.3f}", 1e3));
}

std::string bytes_cell(const json& value) {
  return value.is_number() ? human_bytes(value.get<double>()) : "";
}

}  // namespace

std::string summary_csv(const json& summary) {
  std::string out = fmt::format("{}\n", fmt::join(kColumns, ","));
  for (const json& row : summary["points"]) {
    std::vector<std::string> cells;
    for (const char* column : kColumns) cells.push_back(csv_cell(row.value(column, json())));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

std::string summary_markdown(const json& summary) {
  std::string out = fmt::format("# Sweep {}\n\n", summary["sweep"].get<std::string>());
  out +=
      "| point | device | batch | width | status | images/s | step ms (p10–p90) | CPU util. | GPU "
      "util. | peak memory | est. memory | GFLOP/s | test acc. | loss | GPU/CPU |\n";
  out += "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const json& row : summary["points"]) {
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        markdown_text(row["id"].is_string() ? row["id"].get<std::string>() : ""),
        row["device"].is_string() ? row["device"].get<std::string>() : "",
        number(row["batch_size"], "{:.0f}"), number(row["width"], "{:g}"),
        row["status"].get<std::string>(), number(row["images_per_second"], "{:.0f}"),
        step_cell(row), number(row["cpu_utilisation"], "{:.0f} %", 100),
        number(row["gpu_utilisation"], "{:.0f} %", 100), bytes_cell(row["peak_memory_bytes"]),
        bytes_cell(row["estimated_memory_bytes"]),
        number(row["achieved_flops_per_second"], "{:.2f}", 1e-9),
        number(row["test_accuracy"], "{:.2f} %", 100), number(row["final_loss"], "{:.4f}"),
        number(row["speedup_over_cpu"], "{:.2f}x"));
  }
  std::string notes;
  for (const json& row : summary["points"]) {
    if (row["error"].is_string()) {
      notes += fmt::format("- `{}`: {}: {}\n", row["id"].get<std::string>(),
                           row["status"].get<std::string>(),
                           markdown_text(row["error"].get<std::string>()));
    }
  }
  if (!notes.empty()) out += "\nPoints that did not complete:\n\n" + notes;
  out +=
      "\nimages/s: batch size / median step time (after the warm-up, data wait included); GFLOP/s: "
      "3 x forward "
      "FLOPs per image x images/s; CPU util.: process CPU time / wall time / threads; loss: the "
      "last epoch's "
      "training loss (train) or the mean over the timed steps (benchmark); GPU/CPU: images/s over "
      "the CPU "
      "point with the same values (empty without GPU points).\n";
  return out;
}

void write_summary_files(const std::filesystem::path& dir, const json& summary) {
  write_json_atomically(dir / "summary.json", summary);
  write_file_atomically(dir / "summary.csv", summary_csv(summary));
  write_file_atomically(dir / "summary.md", summary_markdown(summary));
}

}  // namespace runner
