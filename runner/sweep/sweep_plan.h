// The plan a sweep prints before it runs: each point's config loaded and checked, its graph's
// estimated memory for that batch size and width, and whether it fits the device.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/config/device.h"
#include "runner/graph/memory_estimate.h"
#include "runner/sweep/sweep_points.h"

namespace runner {

struct PlannedPoint {
  SweepPoint point;
  bool valid = false;
  std::string error;  // why the config is invalid at this point
  // The config, resolved when valid, else as read with the overrides ("" when unreadable), as
  // compact JSON: a tree per point made a 100,000-point plan take 1.6 GB and most of its time.
  std::string config_json;
  std::string name;  // the experiment's name ("" when unreadable)
  Device device;     // as configured: auto | cpu | cuda | cuda:N
  int batch_size = 0;
  double width = 1;
  std::int64_t parameters = 0;
  MemoryEstimate memory;
  std::int64_t device_memory = 0;  // what the device has; 0 when unknown
  std::string device_problem;      // why the device is not usable here ("" when it is)
  std::string point_sha;           // resolved config and run settings ("" when invalid)

  bool fits() const { return device_memory == 0 || memory.total() <= device_memory; }
  // config_json parsed (null when unreadable).
  nlohmann::json config() const {
    return config_json.empty() ? nlohmann::json() : nlohmann::json::parse(config_json);
  }
};

// Loads every point's config (base + its overrides) and builds its graph; an invalid point is
// recorded, not thrown. An unreadable base config is a UserError.
std::vector<PlannedPoint> plan_sweep(const SweepSpec& spec,
                                     const std::filesystem::path& base_config);

// One row per point (index, id, device, batch, width, parameters, estimated memory and what it is
// made of, and `notes[i]`, e.g. what resuming will do), then warnings for points that are invalid,
// need a device that is not usable here (a GPU without the GPU backend), or will not fit.
std::string plan_table(const std::vector<PlannedPoint>& plan,
                       const std::vector<std::string>& notes);

// The sweep's folder holds `sweep.json`: its settings and points in order (what `runner report`
// lists, a point without a report being "missing"), and one folder per point id.
inline constexpr const char* kSweepManifest = "sweep.json";
nlohmann::json plan_json(const SweepSpec& spec, const std::vector<PlannedPoint>& plan);
// plan_json's text as write_json_atomically writes it (indented, a newline at the end), the
// points serialised on every core: for a sweep of 100,000 points.
std::string plan_json_text(const SweepSpec& spec, const std::vector<PlannedPoint>& plan);

}  // namespace runner
