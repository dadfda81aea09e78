// CSV and Markdown renderings of a summary.
#include "runner/sweep/summary_files.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/report/read_report.h"
#include "runner/sweep/summary_cells.h"
#include "runner/sweep/summary_groups.h"
#include "runner/sweep/summary_header.h"
#include "runner/sweep/summary_search.h"
#include "runner/util/console.h"
#include "runner/util/files.h"

namespace runner {
namespace {

using nlohmann::json;

// Before the axis columns: what names the run.
const char* const kLeadColumns[] = {"id", "index"};

// After the axis columns and `seed`: the row's figures, each a plain number or text.
const char* const kColumns[] = {"status",
                                "mode",
                                "device",
                                "batch_size",
                                "width",
                                "precision",
                                "images_per_second",
                                "whole_run_images_per_second",
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
                                "val_accuracy",
                                "val_loss",
                                "best_epoch",
                                "stop_reason",
                                "final_loss",
                                "speedup_over_cpu",
                                "epochs",
                                "cores",
                                "load_average",
                                "busy",
                                "machine",
                                "commit",
                                "started_at",
                                "finished_at",
                                "error",
                                "report"};

std::string step_cell(const json& row) {
  if (!row["step_time_median_seconds"].is_number()) return "";
  return fmt::format("{} ({}–{})", number_cell(row["step_time_median_seconds"], "{:.3f}", 1e3),
                     number_cell(row["step_time_p10_seconds"], "{:.3f}", 1e3),
                     number_cell(row["step_time_p90_seconds"], "{:.3f}", 1e3));
}

std::string bytes_cell(const json& value) {
  return value.is_number() ? human_bytes(value.get<double>()) : "";
}

bool has_load(const json& rows) {
  for (const json& row : rows) {
    if (row.value("load_average", json()).is_number()) return true;
  }
  return false;
}

// "1.2 / 2 cores", and "busy" when the load was above the cores.
std::string load_cell(const json& row) {
  const json& load = row.value("load_average", json());
  if (!load.is_number()) return "";
  std::string cores = number_cell(row.value("cores", json()), " / {:.0f} cores");
  return fmt::format("{:.1f}{}{}", load.get<double>(), cores,
                     row.value("busy", json()) == true ? " busy" : "");
}

// Whether any row has a validation figure: the tables then show it in a column of its own.
bool has_validation(const json& rows) {
  for (const json& row : rows) {
    if (row.value("val_accuracy", json()).is_number()) return true;
  }
  return false;
}

// The searched paths of a random search (summary.json's search.paths): a column each, as its
// points' ids name only the trial.
std::vector<std::string> searched_paths(const json& summary) {
  std::vector<std::string> paths;
  const json& search = summary.value("search", json());
  if (search.is_object() && search.value("paths", json()).is_array()) {
    for (const json& path : search["paths"]) {
      if (path.is_string()) paths.push_back(path.get<std::string>());
    }
  }
  return paths;
}

std::string runs_table(const json& rows, const std::vector<std::string>& searched) {
  const bool load = has_load(rows), validation = has_validation(rows);
  std::string out = "| point |";
  for (const std::string& path : searched) out += " " + markdown_text(path) + " |";
  out +=
      " device | batch | width | status | images/s (whole run) | images/s (median step) | step ms "
      "(p10–p90) | CPU util. | GPU "
      "util. | peak memory | est. memory | GFLOP/s | test acc. | loss | GPU/CPU |";
  out += validation ? " val acc. | best epoch |" : "";
  out += load ? " load |\n" : "\n";
  out += "|---|";
  for (std::size_t i = 0; i < searched.size(); ++i) out += "---:|";
  out += "---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  out += validation ? "---:|---:|" : "";
  out += load ? "---:|\n" : "\n";
  for (const json& row : rows) {
    out += fmt::format("| {} |",
                       markdown_text(row["id"].is_string() ? row["id"].get<std::string>() : ""));
    for (const std::string& path : searched) {
      const json& value = row.value("values", json::object()).value(path, json());
      // Appended in parts: GCC 12 warns (-Wrestrict, falsely) on " " + text + " |" here.
      out += ' ';
      out += markdown_text(value.is_string() ? value.get<std::string>()
                           : value.is_null() ? ""
                                             : value.dump());
      out += " |";
    }
    out += fmt::format(
        " {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        row["device"].is_string() ? row["device"].get<std::string>() : "",
        number_cell(row["batch_size"], "{:.0f}"), number_cell(row["width"], "{:g}"),
        row["status"].get<std::string>(),
        number_cell(row.value("whole_run_images_per_second", json()), "{:.0f}"),
        number_cell(row["images_per_second"], "{:.0f}"), step_cell(row),
        number_cell(row["cpu_utilisation"], "{:.0f} %", 100),
        number_cell(row["gpu_utilisation"], "{:.0f} %", 100), bytes_cell(row["peak_memory_bytes"]),
        bytes_cell(row["estimated_memory_bytes"]),
        number_cell(row["achieved_flops_per_second"], "{:.2f}", 1e-9),
        number_cell(row["test_accuracy"], "{:.2f} %", 100),
        number_cell(row["final_loss"], "{:.4f}"), number_cell(row["speedup_over_cpu"], "{:.2f}x"));
    if (validation) {
      out +=
          fmt::format(" {} | {} |", number_cell(row.value("val_accuracy", json()), "{:.2f} %", 100),
                      number_cell(row.value("best_epoch", json()), "{:.0f}"));
    }
    out += load ? fmt::format(" {} |\n", load_cell(row)) : "\n";
  }
  return out;
}

bool has_repeats(const json& groups) {
  for (const json& group : groups) {
    if (group["runs"].get<int>() > 1) return true;
  }
  return false;
}

// With `load`, a last column marks the groups with a run on a busy machine.
std::string groups_table(const json& groups, bool load, bool validation) {
  std::string out =
      "| point group | device | batch | width | runs | images/s | test acc. | test loss | loss |";
  out += validation ? " val acc. |" : "";
  out += load ? " load |\n" : "\n";
  out += "|---|---|---:|---:|---:|---:|---:|---:|---:|";
  out += validation ? "---:|" : "";
  out += load ? "---|\n" : "\n";
  for (const json& g : groups) {
    const json& stats = g["stats"];
    out += fmt::format("| {} | {} | {} | {} | {}/{} | {} | {} | {} | {} |",
                       markdown_text(g["id"].get<std::string>()),
                       g["device"].is_string() ? g["device"].get<std::string>() : "",
                       number_cell(g["batch_size"], "{:.0f}"), number_cell(g["width"], "{:g}"),
                       g["completed"].get<int>(), g["runs"].get<int>(),
                       mean_std_cell(stats["images_per_second"], "{:.0f}"),
                       mean_std_cell(stats["test_accuracy"], "{:.2f}", 100, " %"),
                       mean_std_cell(stats["test_loss"], "{:.4f}"),
                       mean_std_cell(stats["final_loss"], "{:.4f}"));
    if (validation)
      out += fmt::format(" {} |", mean_std_cell(stats["val_accuracy"], "{:.2f}", 100, " %"));
    out += load ? fmt::format(" {} |\n", g["busy"] == true ? "busy" : "") : "\n";
  }
  return out;
}

json axis_value(const json& holder, const std::string& path) {
  const json& values = holder.value("values", json::object());
  return values.is_object() && values.contains(path) ? values[path] : json();
}

}  // namespace

std::vector<std::string> summary_axes(const json& summary) {
  std::vector<std::string> axes = summary.contains("axes")
                                      ? summary["axes"].get<std::vector<std::string>>()
                                      : swept_axes(summary["points"]);
  std::erase_if(axes, [](const std::string& axis) {
    return std::find(std::begin(kColumns), std::end(kColumns), axis) != std::end(kColumns);
  });
  return axes;
}

std::string summary_csv(const json& summary) {
  const std::vector<std::string> axes = summary_axes(summary);
  std::vector<std::string> header(std::begin(kLeadColumns), std::end(kLeadColumns));
  header.insert(header.end(), axes.begin(), axes.end());
  header.push_back("seed");
  header.insert(header.end(), std::begin(kColumns), std::end(kColumns));
  std::string out = csv_line(header);
  for (const json& row : summary["points"]) {
    std::vector<std::string> cells;
    for (const char* column : kLeadColumns) cells.push_back(csv_cell(row.value(column, json())));
    for (const std::string& axis : axes) cells.push_back(csv_cell(axis_value(row, axis)));
    cells.push_back(csv_cell(row.value("seed", json())));
    for (const char* column : kColumns) cells.push_back(csv_cell(row.value(column, json())));
    out += csv_line(cells);
  }
  return out;
}

std::string summary_grouped_csv(const json& summary) {
  const std::vector<std::string> axes = summary_axes(summary);
  const json groups =
      summary.contains("groups") ? summary["groups"] : group_rows(summary["points"]);
  std::vector<std::string> header = {"group"};
  header.insert(header.end(), axes.begin(), axes.end());
  for (const char* column : {"mode", "device", "batch_size", "width", "runs", "completed", "busy"})
    header.push_back(column);
  for (const char* figure : kGroupedFigures) {
    for (const char* stat : {"mean", "std", "min", "max", "n"})
      header.push_back(fmt::format("{}_{}", figure, stat));
  }
  std::string out = csv_line(header);
  for (const json& g : groups) {
    std::vector<std::string> cells = {csv_cell(g["id"])};
    for (const std::string& axis : axes) cells.push_back(csv_cell(axis_value(g, axis)));
    for (const char* column :
         {"mode", "device", "batch_size", "width", "runs", "completed", "busy"})
      cells.push_back(csv_cell(g[column]));
    for (const char* figure : kGroupedFigures) {
      for (const char* stat : {"mean", "std", "min", "max", "n"})
        cells.push_back(csv_cell(g["stats"][figure][stat]));
    }
    out += csv_line(cells);
  }
  return out;
}

std::string summary_markdown(const json& summary) {
  std::string out = summary_header(summary);
  const json groups =
      summary.contains("groups") ? summary["groups"] : group_rows(summary["points"]);
  if (has_repeats(groups)) {
    out +=
        "\n## Point groups\n\nEach point's runs (its repeats, one seed each): mean ± standard "
        "deviation (number of completed runs); the standard deviation is the sample one (n − "
        "1).\n\n" +
        groups_table(groups, has_load(summary["points"]), has_validation(summary["points"])) +
        "\n## Runs\n";
  }
  out += best_section(summary);
  out += "\n" + runs_table(summary["points"], searched_paths(summary));
  std::string notes;
  for (const json& row : summary["points"]) {
    // A trial stopped at a rung ended as its search planned: its rung is in the Best point section.
    if (row["error"].is_string() && !reported_status(row).is(RunStatus::stopped_early)) {
      notes += fmt::format("- `{}`: {}: {}\n", row["id"].get<std::string>(),
                           row["status"].get<std::string>(),
                           markdown_text(row["error"].get<std::string>()));
    }
  }
  if (!notes.empty()) out += "\nPoints that did not complete:\n\n" + notes;
  out +=
      "\nimages/s (whole run): training images over the training's wall time (evaluation apart); "
      "images/s (median step): batch size / median step time (after the warm-up, data wait "
      "included); GFLOP/s: "
      "3 x forward FLOPs per image x images/s; CPU util.: process CPU time / wall time / threads; "
      "loss: the last epoch's training loss (train) or the mean over the timed steps (benchmark); "
      "GPU/CPU: images/s over the CPU point with the same values (empty without GPU points)";
  out += has_load(summary["points"])
             ? "; load: the higher load average at the run's start and end, busy when above "
               "the cores (its timings are noisy).\n"
             : ".\n";
  return out;
}

void write_summary_files(const std::filesystem::path& dir, const json& summary) {
  write_json_atomically(dir / "summary.json", summary);
  write_file_atomically(dir / "summary.csv", summary_csv(summary));
  write_file_atomically(dir / "summary_grouped.csv", summary_grouped_csv(summary));
  write_file_atomically(dir / "summary.md", summary_markdown(summary));
}

}  // namespace runner
