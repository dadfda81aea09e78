// Benchmark settings and the per-layer profile as report sections.
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

RecordBenchmark benchmark_record(const BenchmarkSpec& spec, const BenchmarkOutcome& outcome) {
  RecordBenchmark b;
  b.warmup_steps = spec.warmup_steps;
  b.steps = spec.steps;
  b.profile_steps = spec.profile_steps;
  b.mean_loss = outcome.mean_loss;
  return b;
}

RecordProfile profile_record(const std::vector<StepTiming>& profile, int profile_steps,
                             const Graph& graph, double measured_step_seconds) {
  std::vector<RecordTiming> timings, other;
  std::vector<RecordLayerTime> layers;
  for (const Node& node : graph.nodes) layers.push_back({node.name, node.type, 0.0, 0.0, {}});
  double sum = 0;
  for (const StepTiming& t : profile) {
    sum += t.seconds;
    timings.push_back({t.label, t.seconds, {}});
    const Node* node = owner_of(t.label, graph);
    if (!node) {
      other.push_back({t.label, t.seconds, {}});
      continue;
    }
    RecordLayerTime& row = layers[static_cast<std::size_t>(node - graph.nodes.data())];
    std::optional<double>& phase =
        t.label != node->name && is_backward(t.label) ? row.backward_seconds : row.forward_seconds;
    *phase += t.seconds;
  }
  RecordProfile out;
  out.steps = profile_steps;
  out.timings = std::move(timings);
  out.layers = std::move(layers);
  out.other = std::move(other);
  out.sum_seconds = sum;
  out.measured_step_seconds = measured_step_seconds;
  out.sum_over_measured = measured_step_seconds > 0 ? sum / measured_step_seconds : 0.0;
  return out;
}

}  // namespace runner
