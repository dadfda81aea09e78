// Planning a sweep: configs, graphs and memory estimates, before anything runs.
#include "runner/sweep/sweep_plan.h"

#include <fmt/format.h>

#include <map>

#include "backends/backend.h"
#include "runner/config/load_config.h"
#include "runner/data/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "runner/util/console.h"
#include "runner/util/digest.h"
#include "runner/util/interrupt.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

struct DeviceProbe {
  std::int64_t memory = 0;  // 0: unknown
  std::string problem;      // why the device is not usable
};

// Opens each device's backend once per plan: its memory, or why it cannot be used. A plan's own
// cache, so that a device that appears or goes away between sweeps (or tests) is seen.
class DeviceProbes {
 public:
  const DeviceProbe& operator()(const std::string& device) {
    auto it = probed_.find(device);
    if (it != probed_.end()) return it->second;
    DeviceProbe probe;
    try {
      probe.memory = make_backend(device, nullptr)->info().memory_bytes;
    } catch (const UserError& error) {
      probe.problem = error.what();
    }
    return probed_[device] = probe;
  }

 private:
  std::map<std::string, DeviceProbe> probed_;
};

std::string run_settings(const SweepSpec& spec) {
  if (spec.mode != "benchmark") return spec.mode;
  return fmt::format("benchmark warmup={} steps={} profile={}", spec.benchmark.warmup_steps,
                     spec.benchmark.steps, spec.benchmark.profile_steps);
}

PlannedPoint plan_point(const SweepSpec& spec, const std::filesystem::path& base, SweepPoint point,
                        DeviceProbes& probe_device) {
  PlannedPoint planned;
  planned.point = std::move(point);
  try {
    planned.config = read_config(base, planned.point.overrides).json;
    Experiment experiment = load_experiment(base, planned.point.overrides);
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    Graph graph = build_graph(experiment.model, geometry.image, geometry.classes);
    planned.valid = true;
    planned.config = experiment.resolved;
    planned.name = experiment.name;
    planned.device = experiment.device;
    planned.batch_size = experiment.training.batch_size;
    planned.width = experiment.model.width;
    planned.parameters = graph.parameter_count();
    planned.memory = estimate_training_memory(graph, experiment.training.batch_size,
                                              experiment.training.eval_batch_size,
                                              experiment.training.optimizer);
    const DeviceProbe& probe = probe_device(experiment.device);
    planned.device_memory = probe.memory;
    planned.device_problem = probe.problem;
    planned.point_sha = sha256_hex(experiment.resolved.dump() + "\n" + run_settings(spec));
  } catch (const UserError& error) {
    planned.error = error.what();
    const nlohmann::json& c = planned.config;
    if (c.is_object()) {
      planned.name = c.value("name", "");
      planned.device = c.value("device", "auto");
    }
  }
  return planned;
}

}  // namespace

std::vector<PlannedPoint> plan_sweep(const SweepSpec& spec,
                                     const std::filesystem::path& base_config) {
  nlohmann::json base = read_config(base_config, spec.overrides).json;
  std::uint64_t base_seed =
      base.is_object() && base.contains("seed") && base["seed"].is_number_unsigned()
          ? base["seed"].get<std::uint64_t>()
          : 0;
  std::vector<PlannedPoint> plan;
  DeviceProbes probes;
  for (SweepPoint& point : expand_points(spec, base_seed)) {
    throw_if_interrupted("planning the sweep");
    plan.push_back(plan_point(spec, base_config, point, probes));
  }
  return plan;
}

std::string plan_table(const std::vector<PlannedPoint>& plan,
                       const std::vector<std::string>& notes) {
  std::size_t id_width = 5;
  for (const auto& p : plan) id_width = std::max(id_width, p.point.id.size());
  const char* row = "{:>3}  {:<{}}  {:<7} {:>6} {:>6} {:>11} {:>11} {:>11} {:>11}  {}\n";
  std::string out = fmt::format(fmt::runtime(row), "#", "point", id_width, "device", "batch",
                                "width", "parameters", "weights", "activations", "memory", "");
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedPoint& p = plan[i];
    std::string note = i < notes.size() ? notes[i] : "";
    if (!p.valid) {
      out += fmt::format("{:>3}  {:<{}}  invalid: {}\n", i + 1, p.point.id, id_width,
                         p.error.substr(0, p.error.find('\n')));
      warnings.push_back(fmt::format("point {} ({}) is invalid and will be recorded as such: {}",
                                     i + 1, p.point.id, p.error));
      continue;
    }
    const MemoryEstimate& m = p.memory;
    double weights = static_cast<double>(m.parameters + m.gradients + m.optimizer_state);
    double activations = static_cast<double>(m.activations + m.activation_gradients + m.workspaces);
    out += fmt::format(fmt::runtime(row), i + 1, p.point.id, id_width, p.device, p.batch_size,
                       p.width, p.parameters, human_bytes(weights), human_bytes(activations),
                       human_bytes(static_cast<double>(m.total())), note);
    if (!p.device_problem.empty()) {
      warnings.push_back(fmt::format("point {} ({}) will be recorded as failed: {}", i + 1,
                                     p.point.id, p.device_problem));
    } else if (!p.fits()) {
      warnings.push_back(
          fmt::format("point {} ({}) needs about {} but the machine has {} of memory: it will "
                      "probably fail (out of memory)",
                      i + 1, p.point.id, human_bytes(static_cast<double>(p.memory.total())),
                      human_bytes(static_cast<double>(p.device_memory))));
    }
  }
  out +=
      "estimated from the graph: weights = parameters + gradients + optimizer state; activations = "
      "layer "
      "outputs and their gradients for the batch, plus workspaces; memory = those and the "
      "evaluation batch\n";
  for (const auto& w : warnings) out += "warning: " + w + "\n";
  return out;
}

nlohmann::json plan_json(const SweepSpec& spec, const std::vector<PlannedPoint>& plan) {
  nlohmann::json points = nlohmann::json::array();
  for (const PlannedPoint& p : plan) {
    points.push_back(
        {{"id", p.point.id},
         {"index", p.point.index},
         {"values", p.point.values_json()},
         {"overrides", p.point.overrides},
         {"device", p.device},
         {"batch_size", p.valid ? nlohmann::json(p.batch_size) : nlohmann::json()},
         {"width", p.valid ? nlohmann::json(p.width) : nlohmann::json()},
         {"estimated_memory_bytes", p.valid ? nlohmann::json(p.memory.total()) : nlohmann::json()},
         {"valid", p.valid},
         {"error", p.error}});
  }
  return {{"name", spec.name},
          {"mode", spec.mode},
          {"repeats", spec.repeats},
          {"base_config", spec.base_config.string()},
          {"benchmark",
           {{"warmup_steps", spec.benchmark.warmup_steps},
            {"steps", spec.benchmark.steps},
            {"profile_steps", spec.benchmark.profile_steps}}},
          {"overrides", spec.overrides},
          {"points", points}};
}

}  // namespace runner
