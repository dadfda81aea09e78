// Which report fields a rerun must reproduce, and the side-by-side table.
#include "runner/report/rerun_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace runner {
namespace {

using nlohmann::json;

json at(const json& report, const std::string& pointer) {
  json::json_pointer p(pointer);
  return report.contains(p) ? report[p] : json();
}

std::string text(const json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) {  // long ones (hashes) shortened: the comparison uses the whole value
    std::string text = value.get<std::string>();
    return text.size() > 22 ? text.substr(0, 19) + "..." : text;
  }
  if (value.is_number_float()) return fmt::format("{:.10g}", value.get<double>());
  return value.dump();
}

}  // namespace

std::vector<MetricComparison> compare_reports(const RunRecord& original_record,
                                              const RunRecord& rerun_record) {
  // Compared as written: the rows name each figure by its place in the report.
  const json original = run_record_json(original_record), rerun = run_record_json(rerun_record);
  std::vector<std::string> exact = {"/status",
                                    "/config_sha256",
                                    "/data/sha256",
                                    "/metrics/test_accuracy",
                                    "/metrics/test_loss",
                                    "/checkpoint/reloaded_test_accuracy",
                                    "/benchmark/mean_loss",
                                    "/stop_reason",
                                    "/metrics/val_accuracy",
                                    "/metrics/val_loss",
                                    "/metrics/best_epoch",
                                    "/checkpoint/best_epoch"};
  const json& epochs = original.contains("epochs") ? original["epochs"] : json::array();
  for (std::size_t e = 0; e < std::max(epochs.size(), rerun.value("epochs", json::array()).size());
       ++e) {
    for (const char* key :
         {"train_loss", "test_loss", "test_accuracy", "val_loss", "val_accuracy"}) {
      exact.push_back(fmt::format("/epochs/{}/{}", e, key));
    }
  }
  const std::vector<std::string> reference = {"/step_time/median_seconds",
                                              "/step_time/images_per_second",
                                              "/throughput/train_images_per_second",
                                              "/cpu/utilisation",
                                              "/memory/peak_rss_bytes",
                                              "/environment/git_commit",
                                              "/environment/git_dirty",
                                              "/environment/onednn_version",
                                              "/environment/onednn_isa",
                                              "/environment/cpu_model",
                                              "/environment/threads",
                                              "/device"};
  std::vector<MetricComparison> rows;
  for (const auto& pointer : exact) {
    json a = at(original, pointer), b = at(rerun, pointer);
    // Reports written before data fingerprints (or stop reasons) lack them: shown, not required.
    const bool required =
        !((pointer == "/data/sha256" || pointer == "/stop_reason") && a.is_null());
    if (!a.is_null() || !b.is_null()) rows.push_back({pointer, a, b, required});
  }
  for (const auto& pointer : reference) {
    json a = at(original, pointer), b = at(rerun, pointer);
    if (!a.is_null() || !b.is_null()) rows.push_back({pointer, a, b, false});
  }
  return rows;
}

std::string comparison_table(const std::vector<MetricComparison>& rows) {
  std::string out = fmt::format("{:<38} {:>22} {:>22}  {}\n", "metric", "original", "rerun", "");
  for (const auto& row : rows) {
    std::string verdict;
    if (row.exact) {
      verdict = row.equal() ? "same" : "DIFFERS";
    } else if (row.original.is_number() && row.rerun.is_number() && !row.equal() &&
               row.original.get<double>() != 0) {
      verdict = fmt::format("x{:.2f} (for reference)",
                            row.rerun.get<double>() / row.original.get<double>());
    } else {
      verdict = row.equal() ? "same (for reference)" : "differs (for reference)";
    }
    out += fmt::format("{:<38} {:>22} {:>22}  {}\n", row.metric, text(row.original),
                       text(row.rerun), verdict);
  }
  return out;
}

bool reproduces(const std::vector<MetricComparison>& rows) {
  return std::all_of(rows.begin(), rows.end(),
                     [](const MetricComparison& r) { return !r.exact || r.equal(); });
}

std::vector<std::string> data_differences(const RunRecord& original, const RunRecord& rerun) {
  const auto before = field_of(original.data, &RecordData::files);
  const auto after = field_of(rerun.data, &RecordData::files);
  if (!before || !after) return {};
  auto by_path = [](const std::vector<RecordDataFile>& files) {  // path -> the file's entry
    std::map<std::string, RecordDataFile> out;
    for (const auto& f : files) {
      if (f.path) out[*f.path] = f;
    }
    return out;
  };
  auto describe = [](const RecordDataFile& f) {
    return fmt::format("{} bytes, sha256 {}", f.bytes ? std::to_string(*f.bytes) : "null",
                       f.sha256 ? text(*f.sha256) : "-");
  };
  const auto a = by_path(*before), b = by_path(*after);
  std::vector<std::string> lines;
  for (const auto& [path, f] : a) {
    auto it = b.find(path);
    if (it == b.end()) {
      lines.push_back(fmt::format("{}: read by the original run only", path));
    } else if (f.bytes != it->second.bytes || f.sha256 != it->second.sha256) {
      lines.push_back(fmt::format("{}: {} then, {} now", path, describe(f), describe(it->second)));
    }
  }
  for (const auto& [path, f] : b) {
    if (!a.count(path)) {
      lines.push_back(fmt::format("{}: read by the rerun only", path));
    }
  }
  return lines;
}

}  // namespace runner
