// Expanding a sweep into points.
#include "runner/sweep/sweep_points.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
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

// "path=text" parts as an id (point_id's rules), `text` standing for the path's value.
using IdParts = std::vector<std::pair<std::string, std::string>>;

std::string id_of(const IdParts& parts) {
  std::vector<std::string> named;
  for (const auto& [path, text] : parts) {
    int sharing = 0;
    for (const auto& other : parts) sharing += last_part(other.first) == last_part(path);
    named.push_back(fmt::format("{}={}", sharing > 1 ? path : last_part(path), text));
  }
  std::string id = sanitized(fmt::format("{}", fmt::join(named, "__")));
  if (id.size() > 100) id = id.substr(0, 91) + "-" + sha256_hex(id).substr(0, 8);
  return id;
}

// How each of an axis's values shows in the ids. Values that differ but show alike once made safe
// for a folder name ("a b" and "a_b", the number 1 and the text "1") once made one folder for two
// points ("points are the same"): all but the first that shows as it is end in a hash of the
// value ("a_b-1c9f0e2a"). Equal values keep equal texts: expand_points refuses them.
std::vector<std::string> id_texts(const std::vector<nlohmann::json>& values) {
  std::vector<std::string> texts;
  std::map<std::string, std::vector<std::size_t>> by_shown;
  for (std::size_t i = 0; i < values.size(); ++i) {
    texts.push_back(value_text(values[i]));
    by_shown[sanitized(texts.back())].push_back(i);
  }
  for (const auto& [shown, alike] : by_shown) {
    const nlohmann::json* kept = nullptr;  // the value that keeps its text
    for (std::size_t i : alike) {
      if (texts[i] == shown) {
        kept = &values[i];
        break;
      }
    }
    for (std::size_t i : alike) {
      const bool distinct = std::any_of(alike.begin(), alike.end(),
                                        [&](std::size_t j) { return values[j] != values[i]; });
      if (distinct && (!kept || values[i] != *kept))
        texts[i] += "-" + sha256_hex(values[i].dump()).substr(0, 8);
    }
  }
  return texts;
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
  IdParts parts;
  for (const auto& [path, value] : values) parts.emplace_back(path, value_text(value));
  return id_of(parts);
}

std::vector<SweepPoint> expand_points(const SweepSpec& spec, std::uint64_t base_seed) {
  check_grid_size(spec, "sweep");  // the callers checked it naming the file; this bounds the loop
  // Each axis as a list of value tuples; the zip is one axis of several paths.
  struct Axis {
    std::vector<std::string> paths;
    std::vector<std::vector<nlohmann::json>> rows;
    std::vector<std::vector<std::string>> origins;  // per row and path: where it was written
    std::vector<std::vector<std::string>> texts;    // per row and path: as the id shows it
    std::string id_name;  // when set, the id says "id_name=<row number>", not the row's values
  };
  // The sweep's axes as one axis of several paths (a zip) or of one (a grid axis).
  auto axis_of = [](const std::vector<const SweepAxis*>& together) {
    Axis axis;
    for (const SweepAxis* a : together) axis.paths.push_back(a->path);
    for (std::size_t i = 0; i < together.front()->values.size(); ++i) {
      axis.rows.emplace_back();
      axis.origins.emplace_back();
      for (const SweepAxis* a : together) {
        axis.rows.back().push_back(a->values[i]);
        axis.origins.back().push_back(i < a->origins.size() ? a->origins[i] : "");
      }
    }
    axis.texts.resize(axis.rows.size());
    for (const SweepAxis* a : together) {
      const std::vector<std::string> texts = id_texts(a->values);
      for (std::size_t i = 0; i < texts.size(); ++i) axis.texts[i].push_back(texts[i]);
    }
    return axis;
  };
  std::vector<Axis> axes;
  for (const SweepAxis& a : spec.grid) axes.push_back(axis_of({&a}));
  if (!spec.zip.empty()) {
    std::vector<const SweepAxis*> together;
    for (const SweepAxis& a : spec.zip) together.push_back(&a);
    axes.push_back(axis_of(together));
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
    Axis seeds;
    seeds.paths = {"seed"};
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
    IdParts id_parts;
    point.overrides = spec.overrides;
    point.origins.assign(spec.overrides.size(), "");
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const Axis& axis = axes[a];
      const std::size_t row = choice[a];
      for (std::size_t k = 0; k < axis.paths.size(); ++k) {
        const nlohmann::json& value = axis.rows[row][k];
        point.values.emplace_back(axis.paths[k], value);
        point.overrides.push_back(override_text(axis.paths[k], value));
        point.origins.push_back(axis.origins.empty() ? "" : axis.origins[row][k]);
        if (axis.id_name.empty()) {
          id_parts.emplace_back(axis.paths[k],
                                axis.texts.empty() ? value_text(value) : axis.texts[row][k]);
        }
      }
      if (!axis.id_name.empty()) id_parts.emplace_back(axis.id_name, std::to_string(row + 1));
    }
    point.id = id_of(id_parts);
    if (spec.seed && !repeats) {
      point.overrides.push_back(fmt::format("seed={}", *spec.seed));
    } else if (own_seeds) {
      std::uint64_t stream = std::stoull(sha256_hex(point.id).substr(0, 12), nullptr, 16);
      point.overrides.push_back(
          fmt::format("seed={}", derive_seed(base_seed, stream) & 0x7fffffffu));
    }
    point.origins.resize(point.overrides.size());  // the seed's: "--set seed=N"
  });
  std::unordered_map<std::string, int> index_of_id;
  for (const SweepPoint& point : points) {
    if (auto [earlier, fresh] = index_of_id.emplace(point.id, point.index); !fresh) {
      const SweepPoint& first = points[static_cast<std::size_t>(earlier->second)];
      if (first.values == point.values) {
        throw UserError(fmt::format(
            "sweep: points {} and {} are the same ({}); give each value of an axis once",
            first.index + 1, point.index + 1, point.id));
      }
      throw UserError(fmt::format(  // values of two axes that join alike: "a__b=1" and "a"
          "sweep: points {} ({}) and {} ({}) would share the folder name {}; change a value",
          first.index + 1, first.values_json().dump(), point.index + 1, point.values_json().dump(),
          point.id));
    }
  }
  return points;
}

}  // namespace runner
