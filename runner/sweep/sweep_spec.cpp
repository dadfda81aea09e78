// Reading sweep files and --grid/--zip options.
#include "runner/sweep/sweep_spec.h"

#include <fmt/format.h>

#include "runner/config/config_limits.h"
#include "runner/config/field_path.h"
#include "runner/config/load_config.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/terminal_text.h"

namespace runner {
namespace {

// The axes of `block` (the file's `sweep.grid` or `sweep.zip`, at `block_path`), each value
// with its file:line:col.
std::vector<SweepAxis> axes_from(const nlohmann::json& block, const SourceMap& source_map,
                                 const std::string& block_path) {
  std::vector<SweepAxis> axes;  // keys in the JSON's (alphabetical) order
  for (const auto& [path, values] : block.items()) {
    SweepAxis axis{path, std::vector<nlohmann::json>(values.begin(), values.end()), {}};
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string value_path = item_path(child_path(block_path, path), i);
      SourceLocation where = source_map.locate(value_path);
      where.path.clear();
      axis.origins.push_back(format_location(where) + value_path);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

// Splits at commas that are not inside [], {} or quotes.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

// A searched path is not also an axis, is a config path, and is not the seed under repeats.
void check_random_space(const SweepSpec& spec, const std::string& origin) {
  for (const SearchDimension& dimension : spec.random->space) {
    if (!parse_path(dimension.path)) {
      throw UserError(
          fmt::format("{}: sweep.random.space: '{}' is not a config path; write it "
                      "like training.optimizer.lr",
                      origin, dimension.path));
    }
    for (const auto* axes : {&spec.grid, &spec.zip}) {
      for (const SweepAxis& axis : *axes) {
        if (axis.path == dimension.path) {
          throw UserError(
              fmt::format("{}: {} is both an axis and in sweep.random.space; give it once", origin,
                          dimension.path));
        }
      }
    }
    if (dimension.path == "seed" && spec.repeats > 1) {
      throw UserError(
          fmt::format("{}: repeats: {} and sweep.random.space both vary the seed; "
                      "give one of them",
                      origin, spec.repeats));
    }
  }
}

// A random search and ASHA select by one metric: one given is the other's too.
void agree_on_metric(SweepSpec& spec, const nlohmann::json& sweep, const SourceMap& map) {
  if (!spec.random) return;
  const bool random_given = sweep["random"].contains("metric");
  if (!spec.asha->metric_given) {
    spec.asha->metric = spec.random->metric;
    if (!sweep["asha"].contains("mode")) spec.asha->maximize = spec.random->maximize;
  } else if (!random_given) {
    spec.random->metric = spec.asha->metric;
    if (!sweep["random"].contains("mode")) spec.random->maximize = spec.asha->maximize;
  }
  if (spec.random->metric != spec.asha->metric || spec.random->maximize != spec.asha->maximize) {
    throw_user_error(map.locate("sweep.asha.metric"),
                     fmt::format("sweep.asha selects by {} ({}) but sweep.random by {} ({})",
                                 spec.asha->metric, spec.asha->maximize ? "max" : "min",
                                 spec.random->metric, spec.random->maximize ? "max" : "min"),
                     "give the same metric and mode to both, or to one of them only");
  }
}

// ASHA stops trials between epochs: it needs training, and the epochs are its own.
void check_asha(const SweepSpec& spec, const std::string& origin) {
  if (spec.mode != RunMode::train) {
    throw UserError(fmt::format(
        "{}: sweep.asha stops trials between training epochs; it needs mode: train (found {})",
        origin, mode_name(spec.mode)));
  }
  if (!spec.asha->max_epochs) return;
  for (const auto* axes : {&spec.grid, &spec.zip}) {
    for (const SweepAxis& axis : *axes) {
      if (axis.path == "training.epochs") {
        throw UserError(fmt::format(
            "{}: training.epochs is both an axis and sweep.asha.max_epochs; give one of them",
            origin));
      }
    }
  }
  if (spec.random) {
    for (const SearchDimension& dimension : spec.random->space) {
      if (dimension.path == "training.epochs") {
        throw UserError(fmt::format(
            "{}: training.epochs is both in sweep.random.space and sweep.asha.max_epochs; give "
            "one of them",
            origin));
      }
    }
  }
}

}  // namespace

bool is_sweep_file(const std::filesystem::path& file) {
  SourceMap ignored;
  std::string text =
      read_regular_file(file, limits::max_config_bytes, "a YAML config or sweep file");
  nlohmann::json json = yaml_to_json(text, file.string(), ignored);
  // Experiment configs have none of these keys (their schema allows no others).
  return json.is_object() &&
         (json.contains("sweep") || json.contains("base") || json.contains("config"));
}

SweepSpec read_sweep_file(const std::filesystem::path& file) {
  ConfigDocument doc = read_config(file, {});
  validate_document(doc, "sweep.schema.json");
  const nlohmann::json& j = doc.json;
  SweepSpec spec;
  spec.name = j["name"];
  bool has_base = j.contains("base"), has_config = j.contains("config");
  if (has_base == has_config) {
    throw_user_error(doc.source_map.locate(has_base ? "config" : ""),
                     has_base ? "both base and config are given" : "missing required key 'base'",
                     "expected exactly one of base (a config file) or config (an embedded config)");
  }
  if (has_base) {
    std::filesystem::path base = j["base"].get<std::string>();
    spec.base_config = base.is_absolute() ? base : file.parent_path() / base;
  } else {
    spec.embedded_config = j["config"];
  }
  // ASHA stops trials between training epochs: a search with it trains unless told otherwise.
  const RunMode fallback = j["sweep"].contains("asha") ? RunMode::train : RunMode::benchmark;
  const std::string mode = j.value("mode", mode_name(fallback));
  if (auto known = parse_run_mode(mode)) {
    spec.mode = *known;
  } else {  // the schema allows only these two; a file that got past it is still named
    throw UserError(
        fmt::format("{}: mode: found '{}', expected train or benchmark", file.string(), mode));
  }
  if (j.contains("benchmark")) {
    const auto& b = j["benchmark"];
    spec.benchmark.warmup_steps = b.value("warmup_steps", spec.benchmark.warmup_steps);
    spec.benchmark.steps = b.value("steps", spec.benchmark.steps);
    spec.benchmark.profile_steps = b.value("profile_steps", spec.benchmark.profile_steps);
  }
  if (j.contains("seed")) spec.seed = j["seed"].get<std::uint64_t>();
  if (j.contains("repeats")) spec.repeats = j["repeats"].get<int>();
  if (j.contains("set")) spec.overrides = j["set"].get<std::vector<std::string>>();
  if (j.contains("output")) spec.output = j["output"].get<std::string>();
  const auto& sweep = j["sweep"];
  if (sweep.contains("grid")) spec.grid = axes_from(sweep["grid"], doc.source_map, "sweep.grid");
  if (sweep.contains("zip")) spec.zip = axes_from(sweep["zip"], doc.source_map, "sweep.zip");
  if (sweep.contains("random")) {
    spec.random = read_random_search(sweep["random"], doc.source_map, "sweep.random");
  }
  if (sweep.contains("asha")) {
    spec.asha = read_asha(sweep["asha"], doc.source_map, "sweep.asha");
    agree_on_metric(spec, sweep, doc.source_map);
    // Every trial's horizon: the schedule runs over it, the rungs stop short of it.
    if (spec.asha->max_epochs) {
      spec.overrides.push_back(fmt::format("training.epochs={}", *spec.asha->max_epochs));
    }
  }
  check_axes(spec, file.string());
  return spec;
}

SweepAxis parse_axis(const std::string& text, const std::string& option) {
  std::string origin = fmt::format("{} {}", option, terminal_safe(text));  // one line
  std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw UserError(fmt::format("{}: expected PATH=V1,V2,... (e.g. {} training.batch_size=16,64)",
                                origin, option));
  }
  SweepAxis axis{text.substr(0, equals), {}, {}};
  for (const std::string& value : split_values(text.substr(equals + 1))) {
    if (value.empty()) {
      throw UserError(
          fmt::format("{}: an empty value; separate values with single commas", origin));
    }
    SourceMap ignored;
    axis.values.push_back(yaml_to_json(value, origin, ignored, axis.path));
    axis.origins.push_back(fmt::format("{} {}={}", option, axis.path, terminal_safe(value)));
  }
  return axis;
}

void set_axis(std::vector<SweepAxis>& axes, SweepAxis axis) {
  for (auto& existing : axes) {
    if (existing.path == axis.path) {
      existing = std::move(axis);
      return;
    }
  }
  axes.push_back(std::move(axis));
}

void check_axes(const SweepSpec& spec, const std::string& origin) {
  if (spec.grid.empty() && spec.zip.empty() && !spec.random && spec.repeats <= 1) {
    throw UserError(
        fmt::format("{}: the sweep varies nothing; give a grid or zip axis (e.g. --grid "
                    "training.batch_size=16,64) or repeats (--repeats 3)",
                    origin));
  }
  for (const SweepAxis& axis : spec.zip) {
    if (axis.values.size() != spec.zip.front().values.size()) {
      throw UserError(
          fmt::format("{}: sweep.zip: {} has {} values but {} has {}; zipped lists vary together "
                      "and need one length",
                      origin, axis.path, axis.values.size(), spec.zip.front().path,
                      spec.zip.front().values.size()));
    }
  }
  for (const auto* axes : {&spec.grid, &spec.zip}) {
    for (const SweepAxis& axis : *axes) {
      if (!parse_path(axis.path)) {
        throw UserError(
            fmt::format("{}: '{}' is not a config path; write it like training.batch_size or "
                        "model.layers[0].kernel",
                        origin, axis.path));
      }
    }
  }
  if (spec.repeats > 1) {
    for (const auto* axes : {&spec.grid, &spec.zip}) {
      for (const SweepAxis& axis : *axes) {
        if (axis.path == "seed") {
          throw UserError(fmt::format(
              "{}: repeats: {} and a seed axis both vary the seed; give one of them (repeats "
              "runs every point with seeds seed, seed+1, ...)",
              origin, spec.repeats));
        }
      }
    }
  }
  for (const SweepAxis& a : spec.grid) {
    for (const SweepAxis& b : spec.zip) {
      if (a.path == b.path) {
        throw UserError(
            fmt::format("{}: {} is both a grid and a zip axis; give it once", origin, a.path));
      }
    }
  }
  if (spec.random) check_random_space(spec, origin);
  if (spec.asha) check_asha(spec, origin);
  check_grid_size(spec, origin);
}

void check_grid_size(const SweepSpec& spec, const std::string& origin) {
  std::vector<std::size_t> sizes;
  for (const SweepAxis& a : spec.grid) sizes.push_back(a.values.size());
  if (!spec.zip.empty()) sizes.push_back(spec.zip.front().values.size());
  if (spec.random) sizes.push_back(static_cast<std::size_t>(spec.random->trials));
  if (spec.repeats > 1) sizes.push_back(static_cast<std::size_t>(spec.repeats));
  std::size_t points = 1;
  bool overflow = false;
  for (std::size_t size : sizes)
    overflow = overflow || __builtin_mul_overflow(points, size, &points);
  if (overflow || points > kMaxSweepPoints) {
    throw UserError(
        fmt::format("{}: the grid has more than {} points ({} = {}); split it into several sweeps",
                    origin, kMaxSweepPoints, fmt::join(sizes, " x "),
                    overflow ? std::string("more than 2^64") : std::to_string(points)));
  }
}

}  // namespace runner
