// A sweep's points: every combination of its axes, each a list of --set overrides on the base
// config, with a stable id (its folder name, the key for resuming) and its own seed.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "runner/sweep/sweep_spec.h"

namespace runner {

using PointValues = std::vector<std::pair<std::string, nlohmann::json>>;  // axis path -> value

struct SweepPoint {
  int index = 0;
  std::string id;                      // e.g. "device=cpu__batch_size=16"
  PointValues values;                  // in axis order
  std::vector<std::string> overrides;  // the sweep's, then the values', then the point's seed
  // Per override, where it was written ("--grid name=3"; "" for --set): what a point's error names.
  std::vector<std::string> origins;
  nlohmann::json values_json() const;  // {"training.batch_size": 16, ...}
};

// Grid axes in order, then the zip as one axis, then with repeats a `seed` axis (seed, seed+1,
// ...: the sweep's seed, else `base_seed`, the config's); the last varies fastest. Unless the
// sweep fixes the seed (or varies or sets it), each point gets seed = a hash of `base_seed` and
// its id.
std::vector<SweepPoint> expand_points(const SweepSpec& spec, std::uint64_t base_seed);

// The id of a point: "name=value" per axis joined by "__", the name being the path's last part
// unless two axes share it; characters other than letters, digits and ._+- become '_'; long ids
// are cut and end in a hash. In a sweep, values of one axis that differ but read the same once
// made safe ("a b" and "a_b") are told apart by a hash of the value: two values, two points.
std::string point_id(const PointValues& values);

// "path=value" as a --set override that reads back as the same value.
std::string override_text(const std::string& path, const nlohmann::json& value);

}  // namespace runner
