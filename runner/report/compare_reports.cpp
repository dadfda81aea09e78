// Grouping reports into repeats and comparing the groups.
#include "runner/report/compare_reports.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "runner/util/json_paths.h"

namespace runner {
namespace {

using nlohmann::json;

// The figures compared, by name, where a report holds them, how they read, and whether they
// vary with the seed (the figures of training) or from run to run whatever the seed (timings and
// memory, with the machine's load): only the first are judged against the seed noise.
struct Metric {
  std::string name;
  std::function<std::optional<double>(const RunRecord&)> value;
  const char* unit;  // share | loss | count | rate | seconds | bytes
  bool seeded;
};

// A figure of a section, when the record has the section.
template <class Section, class Field>
std::optional<double> figure(const std::optional<Section>& section,
                             std::optional<Field> Section::*field) {
  const std::optional<Field> value = field_of(section, field);
  return value ? std::optional<double>(static_cast<double>(*value)) : std::nullopt;
}

// The last epoch's training loss, or a benchmark's mean loss.
std::optional<double> final_train_loss(const RunRecord& r) {
  if (r.epochs && !r.epochs->empty() && r.epochs->back().train_loss)
    return r.epochs->back().train_loss;
  return figure(r.benchmark, &RecordBenchmark::mean_loss);
}

const Metric kMetrics[] = {
    {"test_accuracy",
     [](const RunRecord& r) { return figure(r.metrics, &RecordMetrics::test_accuracy); }, "share",
     true},
    {"test_loss", [](const RunRecord& r) { return figure(r.metrics, &RecordMetrics::test_loss); },
     "loss", true},
    // left out when no report has it
    {"val_accuracy",
     [](const RunRecord& r) { return figure(r.metrics, &RecordMetrics::val_accuracy); }, "share",
     true},
    {"val_loss", [](const RunRecord& r) { return figure(r.metrics, &RecordMetrics::val_loss); },
     "loss", true},
    {"best_epoch", [](const RunRecord& r) { return figure(r.metrics, &RecordMetrics::best_epoch); },
     "count", true},
    {"final_train_loss", final_train_loss, "loss", true},
    {"median_step_images_per_second",
     [](const RunRecord& r) { return figure(r.step_time, &RecordStepTime::images_per_second); },
     "rate", false},
    {"whole_run_images_per_second",
     [](const RunRecord& r) {
       return figure(r.throughput, &RecordThroughput::train_images_per_second);
     },
     "rate", false},
    {"step_time_median_seconds",
     [](const RunRecord& r) { return figure(r.step_time, &RecordStepTime::median_seconds); },
     "seconds", false},
    {"train_seconds",
     [](const RunRecord& r) { return figure(r.throughput, &RecordThroughput::train_seconds); },
     "seconds", false},
    {"peak_rss_bytes",
     [](const RunRecord& r) { return figure(r.memory, &RecordMemory::peak_rss_bytes); }, "bytes",
     false},
};

// What repeats share: the mode and the config without its seed and tags.
std::string repeat_key(const RunRecord& report) {
  json config = report.config.value_or(json::object());
  if (config.is_object()) {
    config.erase("seed");
    config.erase("tags");
  }
  return (report.mode ? mode_name(*report.mode) : "") + std::string("\n") + config.dump();
}

// "A" ... "Z", then "G27", ...
std::string group_label(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("G{}", i + 1);
}

json make_groups(const std::vector<LoadedReport>& reports) {
  json groups = json::array();
  std::map<std::string, std::size_t> by_key;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const RunRecord& report = reports[r].record;
    auto [it, added] = by_key.emplace(repeat_key(report), groups.size());
    if (added) {
      groups.push_back({{"label", group_label(groups.size())},
                        {"name", report.name.value_or("")},
                        {"mode", report.mode ? mode_name(*report.mode) : ""},
                        {"runs", 0},
                        {"seeds", json::array()},
                        {"reports", json::array()}});
    }
    json& group = groups[it->second];
    group["runs"] = group["runs"].get<int>() + 1;
    group["seeds"].push_back(report.seed ? json(*report.seed) : json());
    group["reports"].push_back(reports[r].path.string());
    group["members"].push_back(r);  // removed before returning
  }
  return groups;
}

// The paths where the groups' flattened `what` differ; a group whose runs differ there shows
// the distinct values joined by " | ".
json differences(const std::vector<LoadedReport>& reports, const json& groups,
                 const std::function<json(const RunRecord&)>& what) {
  std::vector<std::map<std::string, std::string>> flat;
  std::set<std::string> paths;
  for (const auto& loaded : reports) {
    flat.push_back(flatten_json(what(loaded.record)));
    for (const auto& [path, value] : flat.back()) paths.insert(path);
  }
  json out = json::array();
  for (const std::string& path : paths) {
    json values = json::array();
    std::set<std::string> seen_anywhere;
    for (const json& group : groups) {
      std::set<std::string> seen;
      for (std::size_t r : group["members"]) {
        auto it = flat[r].find(path);
        seen.insert(it == flat[r].end() ? "(absent)" : it->second);
      }
      std::string joined;
      for (const std::string& v : seen) joined += (joined.empty() ? "" : " | ") + v;
      values.push_back(joined);
      seen_anywhere.insert(seen.begin(), seen.end());
    }
    if (seen_anywhere.size() > 1) out.push_back({{"path", path}, {"values", values}});
  }
  return out;
}

// -1, 0 or 1 as `a` sorts before, with or after `b`: numbers by value ("16" before "256"),
// before text; text as text.
int compare_values(const std::string& a, const std::string& b) {
  auto number = [](const std::string& text) -> std::optional<double> {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  };
  auto x = number(a), y = number(b);
  if (x && y) return *x < *y ? -1 : *x > *y ? 1 : 0;
  if (x || y) return x ? -1 : 1;
  return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
}

// The groups in the order of the values where their configs differ, path by path (batch sizes
// 16, 64, 256 rather than the folders' text order), labelled A, B, ... in that order.
json ordered_groups(json groups, const json& config_differences) {
  std::vector<std::size_t> order(groups.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (const json& d : config_differences) {
      const int c =
          compare_values(d["values"][a].get<std::string>(), d["values"][b].get<std::string>());
      if (c != 0) return c < 0;
    }
    return false;
  });
  json out = json::array();
  for (std::size_t g : order) {
    out.push_back(std::move(groups[g]));
    out.back()["label"] = group_label(out.size() - 1);
  }
  return out;
}

json config_of(const RunRecord& report) {
  json config = report.config.value_or(json::object());
  if (config.is_object()) config.erase("seed");  // repeats differ there by design: see `seeds`
  return config;
}

json environment_of(const RunRecord& report) {
  // The environment and where it ran, as the report spells them.
  RunRecord where;
  where.environment = report.environment;
  where.device = report.device;
  where.backend = report.backend;
  json written = run_record_json(where);
  json env = written.value("environment", json::object());
  for (const char* key : {"device", "backend"}) {
    if (written.contains(key)) env[key] = written[key];
  }
  return env;
}

// n, mean and sample std (null for fewer than two values) of a metric over a group's runs.
json statistics(const std::vector<LoadedReport>& reports, const json& group, const Metric& m) {
  std::vector<double> values;
  for (std::size_t r : group["members"]) {
    if (auto v = m.value(reports[r].record)) values.push_back(*v);
  }
  if (values.empty()) return {{"n", 0}, {"mean", nullptr}, {"std", nullptr}};
  double mean = 0;
  for (double v : values) mean += v / values.size();
  json std_value = nullptr;
  if (values.size() > 1) {
    double sum = 0;
    for (double v : values) sum += (v - mean) * (v - mean);
    std_value = std::sqrt(sum / (values.size() - 1));
  }
  return {{"n", values.size()}, {"mean", mean}, {"std", std_value}};
}

json delta(const json& base, const json& other, bool seeded) {
  if (!base["mean"].is_number() || !other["mean"].is_number()) return nullptr;
  double d = other["mean"].get<double>() - base["mean"].get<double>();
  double b = base["mean"].get<double>();
  json noise = nullptr;
  for (const json* s : {&base, &other}) {
    if ((*s)["std"].is_number() &&
        (noise.is_null() || (*s)["std"].get<double>() > noise.get<double>()))
      noise = (*s)["std"];
  }
  // Timings and memory move with the machine, not the seed: the repeats' spread says nothing
  // of them.
  // Equal means are within any noise, none included.
  json within =
      noise.is_null() || !seeded ? json() : json(d == 0 || std::abs(d) < 2 * noise.get<double>());
  return {{"delta", d},
          {"relative", b != 0 ? json(d / std::abs(b)) : json()},
          {"noise", noise},
          {"within_noise", within}};
}

// The figures compared: the built-in ones, and after the validation loss the `metrics` list's
// figures that any report holds (test_macro_f1, val_top5_accuracy), by name.
std::vector<Metric> compared_metrics(const std::vector<LoadedReport>& reports) {
  std::set<std::string> figures;
  for (const LoadedReport& loaded : reports) {
    if (!loaded.record.metrics) continue;
    for (const auto& [key, value] : loaded.record.metrics->figures) figures.insert(key);
  }
  std::vector<Metric> compared;
  for (const Metric& m : kMetrics) {
    compared.push_back(m);
    if (m.name != "val_loss") continue;
    for (const std::string& key : figures) {
      compared.push_back({key,
                          [key](const RunRecord& r) -> std::optional<double> {
                            if (!r.metrics) return std::nullopt;
                            const auto found = r.metrics->figures.find(key);
                            if (found == r.metrics->figures.end()) return std::nullopt;
                            return found->second;
                          },
                          "share", true});
    }
  }
  return compared;
}

json metrics(const std::vector<LoadedReport>& reports, const json& groups) {
  json out = json::array();
  for (const Metric& m : compared_metrics(reports)) {
    json stats = json::array();
    for (const json& group : groups) stats.push_back(statistics(reports, group, m));
    bool any = false;
    for (const json& s : stats) any = any || s["n"].get<int>() > 0;
    if (!any) continue;
    json deltas = json::array();
    for (std::size_t g = 1; g < stats.size(); ++g)
      deltas.push_back(delta(stats[0], stats[g], m.seeded));
    out.push_back({{"metric", m.name},
                   {"unit", m.unit},
                   {"seed_dependent", m.seeded},
                   {"groups", stats},
                   {"deltas", deltas}});
  }
  return out;
}

}  // namespace

json compare_runs(const std::vector<LoadedReport>& reports) {
  json groups = make_groups(reports);
  const json unordered = differences(reports, groups, config_of);
  groups = ordered_groups(std::move(groups), unordered);
  json result = {{"groups", groups},
                 {"config_differences", differences(reports, groups, config_of)},
                 {"environment_differences", differences(reports, groups, environment_of)},
                 {"metrics", metrics(reports, groups)}};
  for (json& group : result["groups"]) group.erase("members");
  return result;
}

}  // namespace runner
