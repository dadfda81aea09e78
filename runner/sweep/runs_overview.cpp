// Tables of unrelated runs, grouped by experiment and mode.
#include "runner/sweep/runs_overview.h"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

#include "runner/sweep/summary_cells.h"
#include "runner/train/run_status.h"

namespace runner {
namespace {

using nlohmann::json;

std::string text_of(const json& value, const char* otherwise) {
  return value.is_string() ? value.get<std::string>() : otherwise;
}

// (experiment, mode) of a row; rows that never ran have neither.
std::pair<std::string, std::string> kind_of(const json& row) {
  return {text_of(row.value("experiment", json()), "(unnamed)"),
          text_of(row.value("mode", json()), "no mode")};
}

std::map<std::pair<std::string, std::string>, std::vector<json>> by_kind(const json& rows) {
  std::map<std::pair<std::string, std::string>, std::vector<json>> kinds;
  for (const json& row : rows) kinds[kind_of(row)].push_back(row);
  return kinds;
}

std::string step_cell(const json& row) {
  if (!row["step_time_median_seconds"].is_number()) return "";
  return fmt::format("{} ({}–{})", number_cell(row["step_time_median_seconds"], "{:.3f}", 1e3),
                     number_cell(row["step_time_p10_seconds"], "{:.3f}", 1e3),
                     number_cell(row["step_time_p90_seconds"], "{:.3f}", 1e3));
}

// The columns of one mode: header, alignment and the cells of a row.
struct Columns {
  const char* header;
  const char* rule;
  std::vector<std::string> (*cells)(const json& row);
};

// The epochs a run reached (its last epoch's number): fewer than configured where it stopped
// early.
json epochs_trained(const json& r) {
  const json losses = r.value("epoch_losses", json());
  if (losses.is_array() && !losses.empty() && losses.back().is_object()) {
    return losses.back().value("epoch", r.value("epochs", json()));
  }
  return r.value("epochs", json());
}

std::vector<std::string> train_cells(const json& r) {
  return {number_cell(r["batch_size"], "{:.0f}"),
          number_cell(epochs_trained(r), "{:.0f}"),
          number_cell(r["test_accuracy"], "{:.2f} %", 100),
          number_cell(r["test_loss"], "{:.4f}"),
          number_cell(r["final_loss"], "{:.4f}"),
          number_cell(r["images_per_second"], "{:.0f}"),
          number_cell(r.value("whole_run_images_per_second", json()), "{:.0f}")};
}

std::vector<std::string> benchmark_cells(const json& r) {
  return {number_cell(r["batch_size"], "{:.0f}"),
          number_cell(r["images_per_second"], "{:.0f}"),
          number_cell(r.value("whole_run_images_per_second", json()), "{:.0f}"),
          step_cell(r),
          number_cell(r["cpu_utilisation"], "{:.0f} %", 100),
          number_cell(r["achieved_flops_per_second"], "{:.2f}", 1e-9)};
}

std::vector<std::string> eval_cells(const json& r) {
  return {number_cell(r["test_accuracy"], "{:.2f} %", 100), number_cell(r["test_loss"], "{:.4f}")};
}

std::vector<std::string> no_cells(const json&) {
  return {};
}

Columns columns_for(const std::string& mode_text) {
  const std::optional<RunMode> mode = parse_run_mode(mode_text);
  if (mode == RunMode::train)
    return {" batch | epochs | test acc. | test loss | loss | images/s | images/s (whole run) |",
            "---:|---:|---:|---:|---:|---:|---:|", train_cells};
  if (mode == RunMode::benchmark)
    return {" batch | images/s | images/s (whole run) | step ms (p10–p90) | CPU util. | GFLOP/s |",
            "---:|---:|---:|---:|---:|---:|", benchmark_cells};
  if (mode == RunMode::eval) return {" test acc. | test loss |", "---:|---:|", eval_cells};
  return {"", "", no_cells};
}

std::string kind_table(const std::string& mode, const std::vector<json>& rows) {
  Columns columns = columns_for(mode);
  std::string out = fmt::format("| run | status | device |{} finished |\n", columns.header);
  out += fmt::format("|---|---|---|{}---|\n", columns.rule);
  for (const json& row : rows) {
    std::string cells;
    for (const std::string& cell : columns.cells(row)) cells += " " + cell + " |";
    out += fmt::format("| {} | {} | {} |{} {} |\n", markdown_text(text_of(row["id"], "")),
                       text_of(row["status"], ""), text_of(row["device"], ""), cells,
                       text_of(row.value("finished_at", json()), ""));
  }
  return out;
}

}  // namespace

bool holds_unrelated_runs(const json& summary) {
  return by_kind(summary["points"]).size() > 1;
}

std::string runs_overview_markdown(const json& summary) {
  const auto kinds = by_kind(summary["points"]);
  std::string out =
      fmt::format("# Runs in {}\n\n{} runs of {} experiment/mode kinds, by kind.\n",
                  summary["sweep"].get<std::string>(), summary["points"].size(), kinds.size());
  for (const auto& [kind, rows] : kinds) {
    out += fmt::format("\n## {} ({})\n\n", kind.first, kind.second) + kind_table(kind.second, rows);
  }
  out +=
      "\nimages/s: batch size / median step time (after the warm-up); images/s (whole run): every "
      "image after the warm-up over the wall time, stalls included; loss: the last epoch's "
      "training loss.\n";
  return out;
}

}  // namespace runner
