// Benchmark settings and the per-layer profile as report JSON.
#include "runner/report/benchmark_report.h"

namespace runner {
namespace {

// The node a profile label belongs to (the longest matching name), or nullptr.
const Node* owner_of(const std::string& label, const Graph& graph) {
  const Node* best = nullptr;
  for (const Node& node : graph.nodes) {
    const std::string& name = node.name;
    bool match =
        label == name || (label.size() > name.size() && label.compare(0, name.size(), name) == 0 &&
                          (label[name.size()] == ' ' || label[name.size()] == '.'));
    if (match && (!best || name.size() > best->name.size())) best = &node;
  }
  return best;
}

bool is_backward(const std::string& label) {
  return label.find("backward") != std::string::npos || label.find("grad") != std::string::npos;
}

}  // namespace

nlohmann::json benchmark_json(const BenchmarkSpec& spec, const BenchmarkOutcome& outcome) {
  return {{"warmup_steps", spec.warmup_steps},
          {"steps", spec.steps},
          {"profile_steps", spec.profile_steps},
          {"mean_loss", outcome.mean_loss}};
}

nlohmann::json profile_json(const std::vector<StepTiming>& profile, int profile_steps,
                            const Graph& graph, double measured_step_seconds) {
  nlohmann::json timings = nlohmann::json::array(), other = nlohmann::json::array();
  nlohmann::json layers = nlohmann::json::array();
  for (const Node& node : graph.nodes) {
    layers.push_back({{"name", node.name},
                      {"type", node.type},
                      {"forward_seconds", 0.0},
                      {"backward_seconds", 0.0}});
  }
  double sum = 0;
  for (const StepTiming& t : profile) {
    sum += t.seconds;
    timings.push_back({{"label", t.label}, {"seconds", t.seconds}});
    const Node* node = owner_of(t.label, graph);
    if (!node) {
      other.push_back({{"label", t.label}, {"seconds", t.seconds}});
      continue;
    }
    auto& row = layers[static_cast<std::size_t>(node - graph.nodes.data())];
    const char* phase =
        t.label != node->name && is_backward(t.label) ? "backward_seconds" : "forward_seconds";
    row[phase] = row[phase].get<double>() + t.seconds;
  }
  return {{"steps", profile_steps},
          {"timings", timings},
          {"layers", layers},
          {"other", other},
          {"sum_seconds", sum},
          {"measured_step_seconds", measured_step_seconds},
          {"sum_over_measured", measured_step_seconds > 0 ? sum / measured_step_seconds : 0.0}};
}

}  // namespace runner
