#include "runner/sweep/summary_search.h"

#include <fmt/format.h>

#include "runner/config/monitor_spec.h"
#include "runner/report/read_report.h"
#include "runner/sweep/rung_records.h"
#include "runner/sweep/summary_cells.h"
#include "runner/util/command_line.h"

namespace runner {

using nlohmann::json;

namespace {

// The text at `pointer` ("/metric"), else `fallback`: a forged sweep.json or summary.json must not
// end `runner report` with a raw type error.
std::string text_or(const json& object, const char* pointer, const std::string& fallback) {
  std::string text = text_at(object, pointer);
  return text.empty() ? fallback : text;
}

// ", stopped at ASHA's rungs: rung 1 (epochs): 8 recorded, 2 went on; ...; 13 of 32 epochs
// trained" ("" without ASHA).
std::string asha_text(const json& asha) {
  if (!asha.is_object()) return "";
  std::vector<RungCount> counts;
  const json rungs = asha.value("rungs", json::array());
  for (const json& rung : rungs.is_array() ? rungs : json::array()) {
    auto number = [&](const char* key) {
      const json value = rung.is_object() ? rung.value(key, json()) : json();
      return value.is_number_integer() ? value.get<int>() : 0;
    };
    counts.push_back({number("epochs"), number("recorded"), number("continued")});
  }
  return fmt::format(" with ASHA ({} stopped early; {}; {} of {} epochs trained)",
                     asha.value("stopped_early", json()).dump(), rung_counts_text(counts),
                     asha.value("epochs_trained", json()).dump(),
                     asha.value("epochs_without_stopping", json()).dump());
}

}  // namespace

std::string metric_field(const std::string& metric) {
  if (metric == "train_loss") return "final_loss";
  // val_accuracy, val_loss and the metrics' figures (val_macro_f1) are row fields of that name.
  if (metric.rfind("val_", 0) == 0) return metric;
  return "";
}

json search_summary(const json& manifest) {
  if (!manifest.is_object()) return nullptr;
  if (!manifest.contains("random") || !manifest["random"].is_object()) {
    if (!manifest.contains("asha") || !manifest["asha"].is_object()) return nullptr;
    const json& asha = manifest["asha"];  // a grid's points, compared at ASHA's rungs
    return {{"method", "grid"},
            {"trials", nullptr},
            {"seed", nullptr},
            {"metric", text_or(asha, "/metric", "val_accuracy")},
            {"mode", text_or(asha, "/mode", "max")},
            {"paths", json::array()}};
  }
  const json& random = manifest["random"];
  json paths = json::array();
  if (random.contains("space") && random["space"].is_object()) {
    for (const auto& [path, distribution] : random["space"].items()) paths.push_back(path);
  }
  auto count = [&](const char* key) {
    return random.contains(key) && random[key].is_number_unsigned() ? random[key] : json();
  };
  return {{"method", "random"},
          {"trials", count("trials")},
          {"seed", count("seed")},
          {"metric", text_or(random, "/metric", "val_accuracy")},
          {"mode", text_or(random, "/mode", "max")},
          {"paths", paths}};
}

json asha_summary(const json& manifest, const std::filesystem::path& dir, const json& rows) {
  if (!manifest.is_object() || !manifest.contains("asha") || !manifest["asha"].is_object())
    return nullptr;
  json block = json::object();
  for (const char* key : {"min_epochs", "max_epochs", "reduction_factor"}) {
    const json& value = manifest["asha"].value(key, json());
    block[key] =
        value.is_number_unsigned() && value.get<std::uint64_t>() <= 1'000'000 ? value : json();
  }
  json rungs = json::array();
  for (const RungCount& c : rung_counts(read_rung_records(dir))) {
    rungs.push_back({{"epochs", c.rung}, {"recorded", c.recorded}, {"continued", c.continued}});
  }
  block["rungs"] = rungs;
  int stopped = 0;
  std::int64_t trained = 0, planned = 0;
  for (const json& row : rows) {
    stopped += reported_status(row).is(RunStatus::stopped_early);
    const json& losses = row.value("epoch_losses", json());
    if (losses.is_array()) trained += static_cast<std::int64_t>(losses.size());
    const json& epochs = row.value("epochs", json());
    if (epochs.is_number_integer() && epochs.get<std::int64_t>() > 0)
      planned += epochs.get<std::int64_t>();
  }
  block["stopped_early"] = stopped;
  block["epochs_trained"] = trained;
  block["epochs_without_stopping"] = planned;
  return block;
}

json best_point(const json& search, const json& rows) {
  const std::string metric = text_or(search, "/metric", "");
  const std::string field = metric_field(metric);
  const bool maximize = text_or(search, "/mode", "max") == "max";
  const json* best = nullptr;
  for (const json& row : rows) {
    if (field.empty() || !reported_status(row).is(RunStatus::completed)) continue;
    const json& value = row.value(field, json());
    if (!value.is_number()) continue;
    if (!best || (maximize ? value.get<double>() > (*best)[field].get<double>()
                           : value.get<double>() < (*best)[field].get<double>())) {
      best = &row;
    }
  }
  if (!best) return nullptr;
  const json& report = (*best)["report"];
  return {{"id", (*best)["id"]},
          {"index", best->value("index", json())},
          {"values", best->value("values", json::object())},
          {"metric", metric},
          {"mode", maximize ? "max" : "min"},
          {"value", (*best)[field]},
          {"report", report},
          {"command", report.is_string() ? runner_program() + " reproduce " +
                                               shell_quote(report.get<std::string>())
                                         : ""}};
}

std::string best_section(const json& summary) {
  const json& search = summary.value("search", json());
  if (!search.is_object()) return "";
  const std::string metric = text_or(search, "/metric", "");
  const bool random = text_or(search, "/method", "") == "random";
  std::string out = fmt::format(
      "\n## Best point\n\nBy {} ({}), over {}{}:\n\n", metric, text_or(search, "/mode", "max"),
      random
          ? fmt::format("{} trials of random search (seed {})",
                        search.value("trials", json()).dump(), search.value("seed", json()).dump())
          : std::string("the grid's points"),
      asha_text(search.value("asha", json())));
  const json& best = summary.value("best", json());
  if (!best.is_object()) {
    return out +
           fmt::format("No completed point reported {}{}.\n", metric,
                       metric.rfind("val_", 0) == 0
                           ? " (the config needs a validation split: dataset.validation_split)"
                           : "");
  }
  std::string values;
  for (const auto& [path, value] : best["values"].items()) {
    values += fmt::format("{}`{}` = {}", values.empty() ? "" : ", ", path,
                          value.is_string() ? value.get<std::string>() : value.dump());
  }
  const bool accuracy = figure_unit(metric) == std::string_view("share");
  out += fmt::format(
      "- point: `{}`\n- {}: {}\n- values: {}\n- report: `{}`\n- rerun it: `{}`\n",
      text_or(best, "/id", ""), metric,
      accuracy ? number_cell(best["value"], "{:.2f} %", 100) : number_cell(best["value"], "{:.4f}"),
      values.empty() ? "(none)" : values, text_or(best, "/report", ""),
      text_or(best, "/command", ""));
  return out;
}

}  // namespace runner
