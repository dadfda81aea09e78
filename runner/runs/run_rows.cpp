// Report fields flattened for queries.
#include "runner/runs/run_rows.h"

#include <algorithm>

namespace runner {
namespace {

// Adds every scalar (and array) under `value` as prefix.key.key...
void flatten(const nlohmann::json& value, const std::string& prefix, RunRow& row) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      flatten(child, prefix.empty() ? key : prefix + "." + key, row);
    }
    return;
  }
  // Lists of scalars stay (a crop's scale); lists of mappings (model.layers) are no field.
  const bool table = value.is_array() && std::any_of(value.begin(), value.end(), [](const auto& v) {
                       return v.is_structured();
                     });
  if (!prefix.empty() && !table) row[prefix] = value;
}

const nlohmann::json* find(const nlohmann::json& report, const char* a, const char* b = nullptr) {
  if (!report.contains(a)) return nullptr;
  const nlohmann::json& first = report[a];
  if (!b) return &first;
  return first.is_object() && first.contains(b) ? &first[b] : nullptr;
}

}  // namespace

RunRow run_row(const nlohmann::json& report, const std::string& run) {
  RunRow row;
  row["run"] = run;
  if (!report.is_object()) return row;
  if (const auto* config = find(report, "config")) flatten(*config, "", row);
  for (const char* key : {"name", "run_id", "status", "stop_reason", "seed", "device", "mode",
                          "started_at", "finished_at", "config_sha256"}) {
    if (const auto* value = find(report, key); value && !value->is_object()) row[key] = *value;
  }
  if (const auto* epochs = find(report, "epochs"); epochs && epochs->is_array()) {
    row["epochs"] = epochs->size();
  }
  // The kept model's figures: the scalars of `metrics` (not its tables).
  if (const auto* metrics = find(report, "metrics"); metrics && metrics->is_object()) {
    for (const auto& [key, value] : metrics->items()) {
      if (value.is_number() || value.is_string()) row[key] = value;
    }
  }
  if (const auto* tags = find(report, "tags"); tags && tags->is_object()) {
    for (const auto& [key, value] : tags->items()) row["tags." + key] = value;
  }
  if (const auto* rate = find(report, "throughput", "train_images_per_second")) {
    row["images_per_second"] = *rate;
  }
  if (const auto* rate = find(report, "throughput", "whole_run_images_per_second")) {
    row["whole_run_images_per_second"] = *rate;
  }
  if (const auto* seconds = find(report, "wall_time", "total_seconds")) {
    row["wall_seconds"] = *seconds;
  }
  return row;
}

const nlohmann::json& row_field(const RunRow& row, const std::string& field) {
  static const nlohmann::json null_value;
  if (auto it = row.find(field); it != row.end()) return it->second;
  constexpr std::string_view config = "config.";
  if (field.rfind(config, 0) == 0) {
    if (auto it = row.find(field.substr(config.size())); it != row.end()) return it->second;
  }
  return null_value;
}

}  // namespace runner
