#include "runner/sweep/search_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "runner/config/field_path.h"
#include "runner/config/monitor_spec.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/random.h"

namespace runner {
namespace {

struct KindName {
  Distribution::Kind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{Distribution::Kind::uniform, "uniform"},
                               {Distribution::Kind::log_uniform, "log_uniform"},
                               {Distribution::Kind::int_uniform, "int_uniform"},
                               {Distribution::Kind::int_log_uniform, "int_log_uniform"},
                               {Distribution::Kind::choice, "choice"},
                               {Distribution::Kind::normal, "normal"}};

class DistributionReader {
 public:
  DistributionReader(const SourceMap& map, std::string at) : map_(map), at_(std::move(at)) {}

  Distribution read(const nlohmann::json& block) const {
    std::vector<const KindName*> given;
    for (const KindName& k : kKinds) {
      if (block.contains(k.name)) given.push_back(&k);
    }
    if (given.size() != 1) {
      fail(at_, given.empty() ? "no distribution is given" : "more than one distribution is given",
           "give one of uniform, log_uniform, int_uniform, int_log_uniform, choice or normal");
    }
    Distribution d;
    d.kind = given[0]->kind;
    const std::string field = child_path(at_, given[0]->name);
    const nlohmann::json& value = block[given[0]->name];
    if (block.contains("weights") && d.kind != Distribution::Kind::choice) {
      fail(child_path(at_, "weights"), "weights belong to a choice", "remove them");
    }
    switch (d.kind) {
      case Distribution::Kind::choice:
        d.choices.assign(value.begin(), value.end());
        d.weights.assign(d.choices.size(), 1.0);
        if (block.contains("weights")) {
          d.weights = block["weights"].get<std::vector<double>>();
          if (d.weights.size() != d.choices.size()) {
            fail(child_path(at_, "weights"),
                 fmt::format("{} weights for {} choices", d.weights.size(), d.choices.size()),
                 "give one weight per choice");
          }
        }
        return d;
      case Distribution::Kind::normal:
        d.mean = value["mean"].get<double>();
        d.std = value["std"].get<double>();
        d.low = value.value("low", -std::numeric_limits<double>::infinity());
        d.high = value.value("high", std::numeric_limits<double>::infinity());
        check_bounds(field, d, "low", "high");
        return d;
      default:
        d.low = value[0].get<double>();
        d.high = value[1].get<double>();
        check_bounds(field, d, "[0]", "[1]");
        return d;
    }
  }

 private:
  const SourceMap& map_;
  std::string at_;

  [[noreturn]] void fail(const std::string& path, const std::string& problem,
                         const std::string& hint) const {
    throw_user_error(map_.locate(path), problem, hint);
  }

  void check_bounds(const std::string& field, const Distribution& d, const char* low_name,
                    const char* high_name) const {
    const bool integer =
        d.kind == Distribution::Kind::int_uniform || d.kind == Distribution::Kind::int_log_uniform;
    const bool log =
        d.kind == Distribution::Kind::log_uniform || d.kind == Distribution::Kind::int_log_uniform;
    if (d.kind != Distribution::Kind::normal && !std::isfinite(d.high - d.low)) {
      fail(field, fmt::format("the range [{}, {}] is too wide to draw from", d.low, d.high),
           "give bounds whose difference is a finite number");
    }
    if (!(d.low < d.high)) {
      fail(field, fmt::format("the low bound {} is not below the high bound {}", d.low, d.high),
           "give [low, high] with low < high");
    }
    if (log && d.low <= 0) {
      fail(field, fmt::format("a log distribution's low bound {} is not positive", d.low),
           "give a low bound above 0");
    }
    if (integer && (d.low != std::floor(d.low) || d.high != std::floor(d.high))) {
      fail(field, fmt::format("[{}, {}] are not both integers", d.low, d.high),
           fmt::format("give integer bounds ({} and {})", low_name, high_name));
    }
    // Draws are doubles: beyond this they would skip integers.
    if (integer && (std::fabs(d.low) > 1e15 || std::fabs(d.high) > 1e15)) {
      fail(field, fmt::format("[{:.0f}, {:.0f}] reaches beyond 10^15", d.low, d.high),
           "give integer bounds within [-10^15, 10^15], where every integer can be drawn");
    }
  }
};

// To 6 significant digits: the value reads the same in ids, tables and overrides.
double significant(double value) {
  return std::stod(fmt::format("{:.6g}", value));
}

// To the decimal place of a millionth of `scale` (a range, a std): [1000000, 1000001] keeps its
// fractions, [0, 1] has 6 decimals.
double to_a_millionth_of(double value, double scale) {
  const int place = static_cast<int>(std::floor(std::log10(scale * 1e-6)));
  if (place >= 0) return std::round(value);
  if (place < -17) return value;
  return std::stod(fmt::format("{:.{}f}", value, -place));
}

nlohmann::json draw(const Distribution& d, Random& random, const std::string& path) {
  switch (d.kind) {
    case Distribution::Kind::uniform:
      return std::clamp(to_a_millionth_of(random.uniform(d.low, d.high), d.high - d.low), d.low,
                        d.high);
    case Distribution::Kind::log_uniform:
      return std::clamp(significant(std::exp(random.uniform(std::log(d.low), std::log(d.high)))),
                        d.low, d.high);
    case Distribution::Kind::int_uniform:
      return static_cast<std::int64_t>(d.low) +
             static_cast<std::int64_t>(
                 random.below(static_cast<std::uint64_t>(d.high - d.low) + 1));
    case Distribution::Kind::int_log_uniform: {
      // Log-uniform over [low, high + 1), floored: each integer's share is its width in log space.
      double value = std::floor(std::exp(random.uniform(std::log(d.low), std::log(d.high + 1))));
      return static_cast<std::int64_t>(std::clamp(value, d.low, d.high));
    }
    case Distribution::Kind::choice: {
      const double total = std::accumulate(d.weights.begin(), d.weights.end(), 0.0);
      double target = random.next_unit() * total;
      for (std::size_t i = 0; i < d.choices.size(); ++i) {
        if (target < d.weights[i]) return d.choices[i];
        target -= d.weights[i];
      }
      return d.choices.back();
    }
    case Distribution::Kind::normal:
      // Rejection keeps the shape inside the bounds. Bounds that hold almost none of it would
      // loop for long: a bounded number of draws, then an error (the same on every run).
      for (int tries = 0; tries < 100'000; ++tries) {
        double value = to_a_millionth_of(d.mean + d.std * random.normal(), d.std);
        if (std::isfinite(value) && value >= d.low && value <= d.high) return value;
      }
      throw UserError(fmt::format(
          "{}: no draw of 100,000 from normal(mean {}, std {}) fell inside [{}, {}]; widen the "
          "bounds or draw from a uniform distribution over them",
          path, d.mean, d.std, d.low, d.high));
  }
  return nullptr;
}

}  // namespace

RandomSearch read_random_search(const nlohmann::json& block, const SourceMap& map,
                                const std::string& at) {
  RandomSearch search;
  search.trials = block["trials"].get<int>();
  search.seed = block.value("seed", std::uint64_t{0});
  search.space_json = block["space"];
  search.metric = block.value("metric", search.metric);
  search.maximize = block.contains("mode") ? block["mode"] == "max"
                                           : default_mode(search.metric) == MonitorMode::max;
  const std::string space_at = child_path(at, "space");
  for (const auto& [path, distribution] : block["space"].items()) {
    search.space.push_back(
        {path, DistributionReader(map, child_path(space_at, path)).read(distribution)});
  }
  return search;
}

std::vector<std::pair<std::string, nlohmann::json>> sample_trial(const RandomSearch& search,
                                                                 int trial) {
  std::vector<std::pair<std::string, nlohmann::json>> values;
  const std::uint64_t trial_seed = derive_seed(search.seed, static_cast<std::uint64_t>(trial));
  for (const SearchDimension& dimension : search.space) {
    // A stream per path: adding a dimension leaves the others' draws as they were.
    const std::uint64_t stream = std::stoull(sha256_hex(dimension.path).substr(0, 12), nullptr, 16);
    Random random(derive_seed(trial_seed, stream));
    values.emplace_back(dimension.path, draw(dimension.distribution, random, dimension.path));
  }
  return values;
}

std::string trials_table(const RandomSearch& search) {
  std::string out = fmt::format("random search: {} trials, seed {}\n", search.trials, search.seed);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> widths{5};
  for (const SearchDimension& d : search.space) widths.push_back(d.path.size());
  for (int t = 0; t < search.trials; ++t) {
    std::vector<std::string> row{std::to_string(t + 1)};
    for (const auto& [path, value] : sample_trial(search, t)) row.push_back(value.dump());
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    rows.push_back(std::move(row));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      text += fmt::format("{:>{}}  ", cells[c], widths[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::vector<std::string> header{"trial"};
  for (const SearchDimension& d : search.space) header.push_back(d.path);
  out += line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string average_metric_problem(const std::string& field, const std::string& metric,
                                   const nlohmann::json& config) {
  if (!watches_average(metric)) return "";
  const bool enabled = config.is_object() && config.contains("training") &&
                       config["training"].is_object() && config["training"].contains("ema");
  if (enabled) return "";
  return fmt::format(
      "{}: {} is a figure of training.ema's weight average, which this point's config does not "
      "keep; enable it (training.ema: {{decay: 0.9999}}) or search by {}",
      field, metric, "val_" + std::string(model_figure(metric)));
}

}  // namespace runner
