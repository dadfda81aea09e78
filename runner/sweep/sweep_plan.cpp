// Planning a sweep: configs, graphs and memory estimates, before anything runs.
#include "runner/sweep/sweep_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "backends/backend.h"
#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"
#include "runner/sweep/asha.h"
#include "runner/sweep/search_space.h"
#include "runner/util/console.h"
#include "runner/util/digest.h"
#include "runner/util/parallel_for.h"
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
  DeviceProbe operator()(const Device& device) {
    std::lock_guard lock(mutex_);  // points are planned on several threads
    auto it = probed_.find(device.name());
    if (it != probed_.end()) return it->second;
    DeviceProbe probe;
    try {
      probe.memory = make_backend(device, nullptr)->info().memory_bytes;
    } catch (const UserError& error) {
      probe.problem = error.what();
    }
    return probed_[device.name()] = probe;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, DeviceProbe> probed_;
};

std::string run_settings(const SweepSpec& spec) {
  // ASHA's rungs decide how far a trial trains: other rungs, another outcome.
  if (spec.asha) return std::string(mode_name(spec.mode)) + " asha " + asha_json(*spec.asha).dump();
  if (spec.mode != RunMode::benchmark) return mode_name(spec.mode);
  return fmt::format("benchmark warmup={} steps={} profile={}", spec.benchmark.warmup_steps,
                     spec.benchmark.steps, spec.benchmark.profile_steps);
}

PlannedPoint plan_point(const SweepSpec& spec, const ConfigDocument& base, SweepPoint point,
                        DeviceProbes& probe_device) {
  PlannedPoint planned;
  planned.point = std::move(point);
  std::optional<ConfigDocument> read;  // what the error branch reads the name and device from
  try {
    read = apply_overrides(base, planned.point.overrides, planned.point.origins);
    const ConfigDocument& doc = *read;
    validate_config(doc);
    Experiment experiment = resolve_experiment(doc);
    if (spec.asha) {
      if (auto problem = asha_point_problem(*spec.asha, experiment.resolved); !problem.empty())
        throw UserError(problem);
    }
    if (spec.random) {
      if (auto problem = average_metric_problem("sweep.random.metric", spec.random->metric,
                                                experiment.resolved);
          !problem.empty())
        throw UserError(problem);
    }
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    Graph graph = build_graph(experiment.model, geometry);
    planned.valid = true;
    planned.config_json = experiment.resolved.dump();
    planned.name = experiment.name;
    planned.device = experiment.device;
    planned.batch_size = experiment.training.batch_size;
    planned.width = experiment.model.width;
    planned.parameters = graph.parameter_count();
    planned.memory =
        estimate_training_memory(graph, experiment.training.batch_size,
                                 experiment.training.eval_batch_size, experiment.training.optimizer,
                                 experiment.training.precision, memory_reuse_on(experiment.device));
    const DeviceProbe probe = probe_device(experiment.device);
    planned.device_memory = probe.memory;
    planned.device_problem = probe.problem;
    planned.point_sha = sha256_hex(planned.config_json + "\n" + run_settings(spec));
  } catch (const UserError& error) {
    planned.error = error.what();
    static const nlohmann::json kUnread;
    const nlohmann::json& c = read ? read->json : kUnread;
    if (!c.is_null()) planned.config_json = c.dump();
    // The config of an invalid point holds whatever its axes gave (`name: 3`, `device: [1]`):
    // each field is read only when it is a text, else left to the point's error.
    const auto text_field = [&](const char* key) -> const std::string* {
      return c.is_object() && c.contains(key) ? c[key].get_ptr<const std::string*>() : nullptr;
    };
    if (const std::string* name = text_field("name")) planned.name = *name;
    // An unreadable device is this point's error already: auto stands in for it.
    const std::string* device = text_field("device");
    planned.device = device ? Device::parse(*device).value_or(Device{}) : Device{};
  }
  return planned;
}

// Warnings with the same reason for many points (a device that is not usable, the same invalid
// value), said once with the points they concern, in the order first seen.
class GroupedWarnings {
 public:
  void add(const std::string& reason, std::size_t index, const std::string& id, const char* one,
           const char* many) {
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const Group& g) { return g.reason == reason; });
    if (it == groups_.end()) it = groups_.insert(groups_.end(), Group{reason, one, many, {}, {}});
    it->numbers.push_back(std::to_string(index + 1));
    it->ids.push_back(id);
  }

  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const Group& g : groups_) {
      if (g.ids.size() == 1) {
        out.push_back(fmt::format("point {} ({}) {}: {}", g.numbers[0], g.ids[0], g.one, g.reason));
        continue;
      }
      constexpr std::size_t kNamed = 5;  // a long sweep's list stays one readable line
      std::vector<std::string> ids(g.ids.begin(), g.ids.begin() + std::min(kNamed, g.ids.size()));
      if (g.ids.size() > kNamed) ids.push_back(fmt::format("and {} more", g.ids.size() - kNamed));
      std::vector<std::string> numbers(g.numbers.begin(),
                                       g.numbers.begin() + std::min(kNamed, g.numbers.size()));
      if (g.numbers.size() > kNamed) numbers.push_back("...");
      out.push_back(fmt::format("{} points ({}: {}) {}: {}", g.ids.size(), fmt::join(numbers, ", "),
                                fmt::join(ids, ", "), g.many, g.reason));
    }
    return out;
  }

 private:
  struct Group {
    std::string reason;
    const char* one;
    const char* many;
    std::vector<std::string> numbers, ids;
  };
  std::vector<Group> groups_;
};

}  // namespace

std::vector<PlannedPoint> plan_sweep(const SweepSpec& spec,
                                     const std::filesystem::path& base_config) {
  const ConfigDocument composed = compose_document(base_config);  // once: points copy it
  nlohmann::json base = apply_overrides(composed, spec.overrides).json;
  std::uint64_t base_seed =
      base.is_object() && base.contains("seed") && base["seed"].is_number_unsigned()
          ? base["seed"].get<std::uint64_t>()
          : 0;
  std::vector<SweepPoint> points = expand_points(spec, base_seed);
  std::vector<PlannedPoint> plan(points.size());
  DeviceProbes probes;
  // Points are independent: planned on every core (100,000 points are a few seconds' work), a
  // thread for every 256 points at most.
  parallel_for("planning the sweep", points.size(), 256, [&](std::size_t i) {
    plan[i] = plan_point(spec, composed, std::move(points[i]), probes);
  });
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
  GroupedWarnings grouped;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedPoint& p = plan[i];
    std::string note = i < notes.size() ? notes[i] : "";
    if (!p.valid) {
      out += fmt::format("{:>3}  {:<{}}  invalid: {}\n", i + 1, p.point.id, id_width,
                         p.error.substr(0, p.error.find('\n')));
      grouped.add(p.error, i, p.point.id, "is invalid and will be recorded as such",
                  "are invalid and will be recorded as such");
      continue;
    }
    const MemoryEstimate& m = p.memory;
    double weights = static_cast<double>(m.parameters + m.gradients + m.optimizer_state);
    double activations = static_cast<double>(m.activations + m.activation_gradients + m.workspaces);
    out += fmt::format(fmt::runtime(row), i + 1, p.point.id, id_width, p.device.name(),
                       p.batch_size, p.width, p.parameters, human_bytes(weights),
                       human_bytes(activations), human_bytes(static_cast<double>(m.total())), note);
    if (!p.device_problem.empty()) {
      grouped.add(p.device_problem, i, p.point.id, "will be recorded as failed",
                  "will be recorded as failed");
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
  for (const auto& w : grouped.lines()) out += "warning: " + w + "\n";
  for (const auto& w : warnings) out += "warning: " + w + "\n";
  return out;
}

namespace {

nlohmann::json point_json(const PlannedPoint& p) {
  return {{"id", p.point.id},
          {"index", p.point.index},
          {"values", p.point.values_json()},
          {"overrides", p.point.overrides},
          {"device", p.device.name()},
          {"batch_size", p.valid ? nlohmann::json(p.batch_size) : nlohmann::json()},
          {"width", p.valid ? nlohmann::json(p.width) : nlohmann::json()},
          {"estimated_memory_bytes", p.valid ? nlohmann::json(p.memory.total()) : nlohmann::json()},
          {"valid", p.valid},
          {"point_sha256", p.point_sha},
          {"error", p.error}};
}

// The manifest with `points` as given.
nlohmann::json manifest_with(const SweepSpec& spec, nlohmann::json points) {
  nlohmann::json manifest = {{"name", spec.name},
                             {"mode", mode_name(spec.mode)},
                             {"repeats", spec.repeats},
                             {"base_config", spec.base_config.string()},
                             {"benchmark",
                              {{"warmup_steps", spec.benchmark.warmup_steps},
                               {"steps", spec.benchmark.steps},
                               {"profile_steps", spec.benchmark.profile_steps}}},
                             {"overrides", spec.overrides},
                             {"points", std::move(points)}};
  if (spec.random) {
    manifest["random"] = {{"trials", spec.random->trials},
                          {"seed", spec.random->seed},
                          {"space", spec.random->space_json},
                          {"metric", spec.random->metric},
                          {"mode", spec.random->maximize ? "max" : "min"}};
  }
  if (spec.asha) manifest["asha"] = asha_json(*spec.asha);
  return manifest;
}

}  // namespace

nlohmann::json plan_json(const SweepSpec& spec, const std::vector<PlannedPoint>& plan) {
  nlohmann::json::array_t items(plan.size());
  // Built on every core: 100,000 points took 1.4 s on one.
  parallel_for("writing the sweep's plan", plan.size(), 4096,
               [&](std::size_t i) { items[i] = point_json(plan[i]); });
  nlohmann::json points = nlohmann::json::array();
  points.get_ref<nlohmann::json::array_t&>() = std::move(items);
  return manifest_with(spec, std::move(points));
}

std::string plan_json_text(const SweepSpec& spec, const std::vector<PlannedPoint>& plan) {
  // The points are written on every core, each as dump(2) writes it at its depth (4 spaces), and
  // spliced into the rest: what plan_json(...).dump(2) gives, without one thread writing 40 MB.
  std::vector<std::string> texts(plan.size());
  parallel_for("writing the sweep's plan", plan.size(), 4096, [&](std::size_t i) {
    const std::string text =
        point_json(plan[i]).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string& out = texts[i];
    out.reserve(text.size() + text.size() / 8);
    out += "    ";
    for (char c : text) {
      out += c;
      if (c == '\n') out += "    ";
    }
  });
  std::string rest = manifest_with(spec, nlohmann::json::array())
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string empty = "\n  \"points\": []";  // the top-level key: 2 spaces in
  const std::size_t at = rest.find(empty);
  if (plan.empty() || at == std::string::npos) return rest + "\n";
  std::size_t size = rest.size();
  for (const std::string& text : texts) size += text.size() + 2;
  std::string out;
  out.reserve(size + 16);
  out.append(rest, 0, at);
  out += "\n  \"points\": [\n";
  for (std::size_t i = 0; i < texts.size(); ++i) {
    out += texts[i];
    out += i + 1 < texts.size() ? ",\n" : "\n";
  }
  out += "  ]";
  out.append(rest, at + empty.size(), std::string::npos);
  return out + "\n";
}

}  // namespace runner
