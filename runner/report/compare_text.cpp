// `runner compare` as text: the groups, their config and environment differences, and a table
// of metrics with each group's delta against the first and whether it is within the seed noise.
#include <fmt/format.h>

#include "runner/report/compare_reports.h"
#include "runner/util/figure_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

using nlohmann::json;

std::string seeds_text(const json& seeds) {
  std::string out;
  for (const json& s : seeds) out += (out.empty() ? "" : ", ") + (s.is_null() ? "?" : s.dump());
  return out;
}

std::string groups_text(const json& groups) {
  std::string out;
  for (const json& g : groups) {
    int runs = g["runs"].get<int>();
    out += fmt::format("{}: {} ({}), {} run{} (seed{} {})\n", g["label"].get<std::string>(),
                       g["name"].get<std::string>(), g["mode"].get<std::string>(), runs,
                       runs == 1 ? "" : "s", runs == 1 ? "" : "s", seeds_text(g["seeds"]));
    for (const json& path : g["reports"]) out += "   " + path.get<std::string>() + "\n";
  }
  return out;
}

// Rows of left-aligned cells, each column as wide as its widest cell.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], utf8_characters(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c)
      line += " " + row[c] +
              std::string(c + 1 < row.size() ? width[c] - utf8_characters(row[c]) + 1 : 0, ' ');
    out += line + "\n";
  }
  return out;
}

std::string differences_text(const std::string& title, const json& groups, const json& diffs) {
  if (diffs.empty()) return title + ": none\n";
  std::vector<std::vector<std::string>> rows{{"path"}};
  for (const json& g : groups) rows[0].push_back(g["label"].get<std::string>());
  for (const json& d : diffs) {
    std::vector<std::string> row{d["path"].get<std::string>()};
    for (const json& v : d["values"]) row.push_back(v.get<std::string>());
    rows.push_back(row);
  }
  return title + ":\n" + table(rows);
}

std::string delta_cell(const json& d, const std::string& unit) {
  std::string out = delta_text(d, unit);
  if (d.is_null() || d["within_noise"].is_null()) return out;
  return out + (d["within_noise"].get<bool>() ? " within seed noise" : " beyond seed noise");
}

std::string metrics_text(const json& groups, const json& metrics) {
  std::vector<std::vector<std::string>> rows{{"metric"}};
  for (const json& g : groups) rows[0].push_back(g["label"].get<std::string>());
  for (std::size_t g = 1; g < groups.size(); ++g)
    rows[0].push_back(fmt::format("{}-A", groups[g]["label"].get<std::string>()));
  for (const json& m : metrics) {
    const std::string unit = m.value("unit", "");
    std::vector<std::string> row{m["metric"].get<std::string>()};
    for (const json& s : m["groups"]) row.push_back(stats_text(s, unit));
    for (const json& d : m["deltas"]) row.push_back(delta_cell(d, unit));
    rows.push_back(row);
  }
  return "metrics (mean ± std over a group's runs; seed noise: |delta| < 2 std, judged for the "
         "figures of training only):\n" +
         table(rows) +
         "timings and memory vary from run to run with the machine's load, not with the seed: "
         "no seed-noise verdict for them\n";
}

}  // namespace

std::string stats_text(const json& s, const std::string& unit) {
  if (!s.is_object() || !s.value("mean", json()).is_number()) return "-";
  std::string out = figure_text(s["mean"].get<double>(), unit);
  if (s.value("std", json()).is_number()) out += " ± " + figure_text(s["std"].get<double>(), unit);
  return out + fmt::format(" (n={})", s.value("n", json()).dump());
}

std::string delta_text(const json& d, const std::string& unit) {
  if (!d.is_object() || !d.value("delta", json()).is_number()) return "-";
  std::string out = figure_text(d["delta"].get<double>(), unit, /*signed_delta=*/true);
  if (d.value("relative", json()).is_number())
    out += fmt::format(" ({:+.1f} %)", 100 * d["relative"].get<double>());
  return out;
}

std::string comparison_text(const json& c) {
  const json& groups = c["groups"];
  std::string out = groups_text(groups) + "\n";
  out += differences_text("config differences", groups, c["config_differences"]) + "\n";
  out += differences_text("environment differences", groups, c["environment_differences"]) + "\n";
  out += metrics_text(groups, c["metrics"]);
  bool repeats = false;
  for (const json& g : groups) repeats = repeats || g["runs"].get<int>() > 1;
  if (!repeats && groups.size() > 1) {
    out += "no repeats (reports sharing a config up to the seed): the seed noise is unknown\n";
  }
  return out;
}

}  // namespace runner
