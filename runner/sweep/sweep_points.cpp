// Expanding a sweep into points.
#include "runner/sweep/sweep_points.h"

#include <fmt/format.h>

#include <unordered_map>

#include "runner/config/yaml_to_json.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/parallel_for.h"
#include "runner/util/random.h"

namespace runner {
namespace {

std::string last_part(const std::string& path) {
  std::string name = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  return name.substr(0, name.find('['));
}

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string sanitized(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
                c == '-' || c == '=';
    if (!keep) c = '_';
  }
  return out;
}

bool sets_seed(const SweepSpec& spec) {
  for (const auto& text : spec.overrides) {
    if (text.rfind("seed=", 0) == 0) return true;
  }
  for (const auto* axes : {&spec.grid, &spec.zip}) {
    for (const auto& axis : *axes) {
      if (axis.path == "seed") return true;
    }
  }
  if (spec.random) {
    for (const SearchDimension& dimension : spec.random->space) {
      if (dimension.path == "seed") return true;
    }
  }
  return false;
}

}  // namespace

nlohmann::json SweepPoint::values_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [path, value] : values) out[path] = value;
  return out;
}

std::string override_text(const std::string& path, const nlohmann::json& value) {
  if (value.is_string()) {
    // Plain when YAML reads it back as this string ("cpu"), else JSON-quoted ("\"1\"").
    const std::string& text = value.get<std::string>();
    bool plain = false;
    try {
      SourceMap ignored;
      plain = !text.empty() && yaml_to_json(text, "", ignored) == value;
    } catch (const UserError&) {  // not YAML on its own, e.g. "[": quote it
    }
    return path + "=" + (plain ? text : value.dump());
  }
  return path + "=" + value.dump();
}

std::string point_id(const PointValues& values) {
  std::vector<std::string> parts;
  for (const auto& [path, value] : values) {
    int sharing = 0;
    for (const auto& other : values) sharing += last_part(other.first) == last_part(path);
    parts.push_back(fmt::format("{}={}", sharing > 1 ? path : last_part(path), value_text(value)));
  }
  std::string id = sanitized(fmt::format("{}", fmt::join(parts, "__")));
  if (id.size() > 100) id = id.substr(0, 91) + "-" + sha256_hex(id).substr(0, 8);
  return id;
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec, std::uint64_t base_seed) {
  check_grid_size(spec, "sweep");  // the callers checked it naming the file; this bounds the loop
  // Each axis as a list of value tuples; the zip is one axis of several paths.
  struct Axis {
    std::vector<std::string> paths;
    std::vector<std::vector<nlohmann::json>> rows;
    std::string id_name;  // when set, the id says "id_name=<row number>", not the row's values
  };
  std::vector<Axis> axes;
  for (const SweepAxis& a : spec.grid) {
    Axis axis{{a.path}, {}, {}};
    for (const auto& v : a.values) axis.rows.push_back({v});
    axes.push_back(std::move(axis));
  }
  if (!spec.zip.empty()) {
    Axis axis;
    for (const SweepAxis& a : spec.zip) axis.paths.push_back(a.path);
    for (std::size_t i = 0; i < spec.zip.front().values.size(); ++i) {
      std::vector<nlohmann::json> row;
      for (const SweepAxis& a : spec.zip) row.push_back(a.values[i]);
      axis.rows.push_back(std::move(row));
    }
    axes.push_back(std::move(axis));
  }
  // Random trials: one axis whose rows are the draws, named by their number in the id
  // ("trial=7": drawn values make long ids; unpadded, so that asking for more trials later keeps
  // the ids, and the resume, of those done), the same draws at every grid point.
  if (spec.random) {
    Axis trials;
    for (const SearchDimension& dimension : spec.random->space)
      trials.paths.push_back(dimension.path);
    for (int t = 0; t < spec.random->trials; ++t) {
      std::vector<nlohmann::json> row;
      for (auto& [path, value] : sample_trial(*spec.random, t)) row.push_back(std::move(value));
      trials.rows.push_back(std::move(row));
    }
    trials.id_name = "trial";
    axes.push_back(std::move(trials));
  }
  // Repeats are a seed axis that varies fastest, so a point's runs are neighbours and their ids
  // read "batch_size=16__seed=1"; the summary groups them as it groups a seed axis.
  const bool repeats = spec.repeats > 1;
  if (repeats) {
    const std::uint64_t first = spec.seed ? *spec.seed : base_seed;
    Axis seeds{{"seed"}, {}, {}};
    for (int r = 0; r < spec.repeats; ++r) seeds.rows.push_back({first + r});
    axes.push_back(std::move(seeds));
  }

  std::size_t count = 1;
  for (const Axis& axis : axes) count *= axis.rows.size();
  const bool own_seeds = !repeats && !spec.seed && !sets_seed(spec);
  std::vector<SweepPoint> points(count);
  // Points are independent: made on every core (100,000 took 0.3 s on one).
  parallel_for("expanding the sweep's grid", count, 4096, [&](std::size_t n) {
    SweepPoint& point = points[n];
    point.index = static_cast<int>(n);
    std::size_t rest = n;
    std::vector<std::size_t> choice(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {  // the last axis varies fastest
      choice[a] = rest % axes[a].rows.size();
      rest /= axes[a].rows.size();
    }
    PointValues id_values;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (std::size_t k = 0; k < axes[a].paths.size(); ++k) {
        point.values.emplace_back(axes[a].paths[k], axes[a].rows[choice[a]][k]);
        if (axes[a].id_name.empty()) id_values.push_back(point.values.back());
      }
      if (!axes[a].id_name.empty()) {
        id_values.emplace_back(axes[a].id_name, static_cast<std::int64_t>(choice[a] + 1));
      }
    }
    point.id = point_id(id_values);
    point.overrides = spec.overrides;
    for (const auto& [path, value] : point.values)
      point.overrides.push_back(override_text(path, value));
    if (spec.seed && !repeats) {
      point.overrides.push_back(fmt::format("seed={}", *spec.seed));
    } else if (own_seeds) {
      std::uint64_t stream = std::stoull(sha256_hex(point.id).substr(0, 12), nullptr, 16);
      point.overrides.push_back(
          fmt::format("seed={}", derive_seed(base_seed, stream) & 0x7fffffffu));
    }
  });
  std::unordered_map<std::string, int> index_of_id;
  for (const SweepPoint& point : points) {
    if (auto [earlier, fresh] = index_of_id.emplace(point.id, point.index); !fresh) {
      throw UserError(
          fmt::format("sweep: points {} and {} are the same ({}); give each value of an axis once",
                      earlier->second + 1, point.index + 1, point.id));
    }
  }
  return points;
}

}  // namespace runner
