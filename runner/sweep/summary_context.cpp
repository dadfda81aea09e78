// The facts at the head of a summary.
#include "runner/sweep/summary_context.h"

#include <algorithm>

#include "runner/report/read_report.h"

namespace runner {
namespace {

using nlohmann::json;

// Each distinct non-null value of a row field, in row order.
json distinct(const json& rows, const char* field) {
  json out = json::array();
  for (const json& row : rows) {
    const json& value = row.value(field, json());
    if (!value.is_null() && std::find(out.begin(), out.end(), value) == out.end())
      out.push_back(value);
  }
  return out;
}

// The earliest (or latest) timestamp; ISO 8601 UTC strings sort as text.
json extreme_time(const json& rows, const char* field, bool latest) {
  json out;
  for (const json& row : rows) {
    const json& value = row.value(field, json());
    if (!value.is_string()) continue;
    if (out.is_null() || (latest ? value > out : value < out)) out = value;
  }
  return out;
}

// The plan's benchmark settings, only the whole numbers of the fields the runner writes: a
// forged or damaged sweep.json must not reach the summary's header with other types.
json planned_benchmark(const json& manifest) {
  if (!manifest.contains("benchmark") || !manifest["benchmark"].is_object()) return nullptr;
  json out = json::object();
  for (const char* key : {"warmup_steps", "steps", "profile_steps"}) {
    const json& value = manifest["benchmark"].value(key, json());
    if (value.is_number_unsigned()) out[key] = value;
  }
  return out;
}

}  // namespace

json summary_context(const json& manifest, const json& rows) {
  const bool has_manifest = manifest.is_object();
  json modes = distinct(rows, "mode");
  const json planned_mode = has_manifest && manifest.contains("mode") ? manifest["mode"] : json();
  json mode = has_manifest && reported_mode(manifest) ? planned_mode
              : modes.size() == 1                     ? modes[0]
                                                      : json();
  json benchmark;
  if (mode == "benchmark" && has_manifest) benchmark = planned_benchmark(manifest);
  json repeats;
  if (has_manifest) {
    repeats = manifest.contains("repeats") && manifest["repeats"].is_number_unsigned()
                  ? manifest["repeats"]
                  : json(1);
  }
  return {{"mode", mode},
          {"repeats", repeats},
          {"benchmark", benchmark},
          {"epochs", distinct(rows, "epochs")},
          {"machines", distinct(rows, "machine")},
          {"commits", distinct(rows, "commit")},
          {"started_at", extreme_time(rows, "started_at", false)},
          {"finished_at", extreme_time(rows, "finished_at", true)}};
}

}  // namespace runner
