// The facts at the head of a summary.
#include "runner/sweep/summary_context.h"

#include <algorithm>

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

}  // namespace

json summary_context(const json& manifest, const json& rows) {
  const bool has_manifest = manifest.is_object();
  json modes = distinct(rows, "mode");
  json mode = has_manifest && manifest.contains("mode") ? manifest["mode"]
              : modes.size() == 1                       ? modes[0]
                                                        : json();
  json benchmark;
  if (mode == "benchmark" && has_manifest && manifest.contains("benchmark"))
    benchmark = manifest["benchmark"];
  return {{"mode", mode},
          {"repeats", has_manifest ? manifest.value("repeats", json(1)) : json()},
          {"benchmark", benchmark},
          {"epochs", distinct(rows, "epochs")},
          {"machines", distinct(rows, "machine")},
          {"commits", distinct(rows, "commit")},
          {"started_at", extreme_time(rows, "started_at", false)},
          {"finished_at", extreme_time(rows, "finished_at", true)}};
}

}  // namespace runner
