// Grouping a sweep's runs by point and their statistics.
#include "runner/sweep/summary_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "runner/report/read_report.h"
#include "runner/sweep/sweep_points.h"

namespace runner {
namespace {

using nlohmann::json;

json without_seed(const json& values) {
  json out = values.is_object() ? values : json::object();
  out.erase("seed");
  return out;
}

// Rows that belong together: same values but the seed; a row without values stands alone.
std::string group_key(const json& row) {
  json values = without_seed(row.value("values", json::object()));
  if (values.empty())
    return "run:" + row.value("report", json()).dump() + row.value("id", json()).dump();
  return values.dump();
}

// The point id without its "seed=N" part ("batch_size=16__seed=1" -> "batch_size=16").
std::string group_id(const json& first_row) {
  std::string id = first_row["id"].is_string() ? first_row["id"].get<std::string>() : "";
  const json& values = first_row.value("values", json::object());
  if (!values.is_object() || !values.contains("seed")) return id;
  std::string seed_part = point_id({{"seed", values["seed"]}});
  std::vector<std::string> parts;
  bool dropped = false;
  for (std::size_t start = 0; start <= id.size();) {
    std::size_t end = std::min(id.find("__", start), id.size());
    std::string part = id.substr(start, end - start);
    if (!dropped && part == seed_part) {
      dropped = true;
    } else {
      parts.push_back(part);
    }
    start = end + 2;
  }
  if (!dropped) {  // a long id, cut and hashed: the values' own id (in path order)
    PointValues rest;
    const json rest_values = without_seed(values);
    for (const auto& [path, value] : rest_values.items()) rest.emplace_back(path, value);
    return point_id(rest);
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "__") + part;
  return out.empty() ? "all" : out;  // the seed was the only axis
}

std::vector<double> figures(const std::vector<const json*>& runs, const char* name) {
  std::vector<double> out;
  for (const json* run : runs) {
    const json& value = run->value(name, json());
    if (value.is_number()) out.push_back(value.get<double>());
  }
  return out;
}

// Per epoch, the training and test loss over the runs that reached it.
json epoch_stats(const std::vector<const json*>& runs) {
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> by_epoch;
  for (const json* run : runs) {
    for (const json& epoch : run->value("epoch_losses", json::array())) {
      auto& [train, test] = by_epoch[epoch["epoch"].get<int>()];
      if (epoch["train_loss"].is_number()) train.push_back(epoch["train_loss"].get<double>());
      if (epoch["test_loss"].is_number()) test.push_back(epoch["test_loss"].get<double>());
    }
  }
  json out = json::array();
  for (const auto& [epoch, losses] : by_epoch) {
    out.push_back({{"epoch", epoch},
                   {"train_loss", sample_stats(losses.first)},
                   {"test_loss", sample_stats(losses.second)}});
  }
  return out;
}

json busy_of(const std::vector<const json*>& rows) {
  json busy;
  for (const json* row : rows) {
    const json& flag = row->value("busy", json());
    if (flag.is_boolean())
      busy = busy.is_null() ? flag : json(busy.get<bool>() || flag.get<bool>());
  }
  return busy;
}

json make_group(const std::vector<const json*>& rows) {
  const json& first = *rows.front();
  std::vector<const json*> completed;
  json points = json::array(), seeds = json::array();
  for (const json* row : rows) {
    points.push_back(row->value("id", json()));
    seeds.push_back(row->value("seed", json()));
    if (reported_status(*row).is(RunStatus::completed)) completed.push_back(row);
  }
  json stats = json::object();
  for (const char* name : kGroupedFigures) stats[name] = sample_stats(figures(completed, name));
  return {{"id", group_id(first)},
          {"values", without_seed(first.value("values", json::object()))},
          {"device", first.value("device", json())},
          {"batch_size", first.value("batch_size", json())},
          {"width", first.value("width", json())},
          {"mode", first.value("mode", json())},
          {"points", points},
          {"seeds", seeds},
          {"runs", rows.size()},
          {"completed", completed.size()},
          {"busy", busy_of(rows)},
          {"stats", stats},
          {"epochs", epoch_stats(completed)}};
}

}  // namespace

json sample_stats(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n == 0) {
    return {{"n", 0}, {"mean", nullptr}, {"std", nullptr}, {"min", nullptr}, {"max", nullptr}};
  }
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  json std_dev;
  if (n > 1) {
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    std_dev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  return {{"n", n}, {"mean", mean}, {"std", std_dev}, {"min", *lowest}, {"max", *highest}};
}

std::vector<std::string> swept_axes(const json& rows) {
  std::vector<std::string> axes;
  for (const json& row : rows) {
    const json values = row.value("values", json::object());
    for (const auto& [path, value] : values.items()) {
      if (path != "seed" && std::find(axes.begin(), axes.end(), path) == axes.end())
        axes.push_back(path);
    }
  }
  return axes;
}

json group_rows(const json& rows) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const json*>> members;
  for (const json& row : rows) {
    std::string key = group_key(row);
    if (!members.contains(key)) order.push_back(key);
    members[key].push_back(&row);
  }
  json groups = json::array();
  for (const std::string& key : order) groups.push_back(make_group(members[key]));
  return groups;
}

}  // namespace runner
