// Random search: distributions over config paths (a sweep file's `sweep.random`) and the trials
// drawn from them. A trial's values depend on the search's seed, the trial's number and the
// path only: the same file gives the same values on any machine, and adding a dimension leaves
// the others' values as they were.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runner/config/source_map.h"

namespace runner {

struct Distribution {
  enum class Kind { uniform, log_uniform, int_uniform, int_log_uniform, choice, normal };
  Kind kind = Kind::uniform;
  double low = 0, high = 0;  // the bounds, closed; a normal's (-inf, inf) when not given
  double mean = 0, std = 1;  // normal
  std::vector<nlohmann::json> choices;
  std::vector<double> weights;  // choice: one per choice (all 1 when not given)
};

struct SearchDimension {
  std::string path;  // a config path, e.g. training.optimizer.lr
  Distribution distribution;
};

struct RandomSearch {
  int trials = 0;
  std::uint64_t seed = 0;
  std::vector<SearchDimension> space;  // in the paths' alphabetical order
  nlohmann::json space_json;           // the space as written, for the sweep's manifest
  // What the summary's best point is chosen by: val_accuracy, val_loss or train_loss (never a
  // test figure), and whether higher is better (default: max for accuracy, min for a loss).
  std::string metric = "val_accuracy";
  bool maximize = true;
};

inline constexpr int kMaxTrials = 100'000;

// Reads `block` (a sweep file's sweep.random, already checked against the schema) and checks
// what the schema cannot: one distribution per path, low < high, positive bounds for the log
// ones, integer bounds for the integer ones, one weight per choice. Problems are UserErrors at
// the field's file:line:col from `map`; `at` is the block's field path.
RandomSearch read_random_search(const nlohmann::json& block, const SourceMap& map,
                                const std::string& at);

// The values of trial `trial` (0-based), one per dimension in the space's order. Floating-point
// values are rounded to 6 significant digits: they read the same in ids, tables and overrides.
std::vector<std::pair<std::string, nlohmann::json>> sample_trial(const RandomSearch& search,
                                                                 int trial);

// The trials' values as a table for --dry-run: a row per trial, a column per path.
std::string trials_table(const RandomSearch& search);

// Why a point's config cannot give a searched metric of training.ema's average (val_ema_accuracy)
// ("" when it can, or the metric is another): the config does not enable training.ema. `field`
// names the setting (sweep.random.metric); `config` is the point's resolved config.
std::string average_metric_problem(const std::string& field, const std::string& metric,
                                   const nlohmann::json& config);

}  // namespace runner
