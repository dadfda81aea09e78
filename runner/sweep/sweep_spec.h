// A sweep as read from a sweep file (schemas/sweep.schema.json) or built from `--grid` and
// `--zip` options: a base config, overrides for every point, and the axes that vary.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/sweep/asha.h"
#include "runner/sweep/search_space.h"
#include "runner/train/benchmark.h"
#include "runner/train/run_status.h"

namespace runner {

// One varied config path and its values.
struct SweepAxis {
  std::string path;  // e.g. training.batch_size
  std::vector<nlohmann::json> values;
  // Per value, where it was written, for the messages of a point it makes invalid: "--grid
  // name=3", "sweep.yaml:5:20: sweep.grid.name[1]" (empty: unknown).
  std::vector<std::string> origins;
};

struct SweepSpec {
  std::string name;
  std::filesystem::path base_config;  // the experiment config file
  nlohmann::json embedded_config;     // or the config itself (then base_config is empty)
  RunMode mode = RunMode::benchmark;
  BenchmarkSpec benchmark{5, 30, 0};
  std::optional<std::uint64_t> seed;  // every point's seed; else each point its own
  int repeats = 1;  // > 1: each point runs with seeds base, base+1, ... (a `seed` axis, added last)
  std::vector<std::string> overrides;  // PATH=VALUE for every point, before the axes
  std::vector<std::string> tags;       // --tag key=value: on every point's report (over tags:)
  std::vector<SweepAxis> grid;         // the cartesian product, the last axis varying fastest
  std::vector<SweepAxis> zip;          // equally long, varying together (one more grid axis)
  std::optional<RandomSearch> random;  // random trials: one more grid axis, after the zip
  std::optional<AshaSpec> asha;        // early stopping across the points (mode train)
  std::filesystem::path output = "results/sweeps";
};

// True when the YAML file has a top-level `sweep`, `base` or `config` key (else it is a config).
bool is_sweep_file(const std::filesystem::path& file);

// Reads and validates a sweep file; `base` is resolved against the file's folder. Problems are
// UserErrors naming the file, line and field.
SweepSpec read_sweep_file(const std::filesystem::path& file);

// "training.batch_size=16,64,256" (a --grid or --zip option) as an axis: values are read as YAML,
// separated by commas outside brackets and quotes ("model.layers[0].kernel=[3,3],[5,5]").
SweepAxis parse_axis(const std::string& text, const std::string& option);

// Adds an axis, replacing one with the same path.
void set_axis(std::vector<SweepAxis>& axes, SweepAxis axis);

// Checks what the schema cannot: at least one axis, zip lists of one length, no path twice (in
// the grid, the zip and the random search's space), not both repeats and a seed axis, ASHA only
// in mode train and not beside a training.epochs axis, and the grid's size (below).
void check_axes(const SweepSpec& spec, const std::string& origin);

// More points than any sweep runs: a grid (times its trials and repeats) beyond it is refused
// before it is expanded, with a UserError naming `origin` (the sweep file or config) and the axes'
// sizes.
inline constexpr std::size_t kMaxSweepPoints = 100'000;
inline constexpr int kMaxRepeats = 1000;
void check_grid_size(const SweepSpec& spec, const std::string& origin);

}  // namespace runner
