// Formats the layer table.
#include "runner/run/layer_table.h"

#include <fmt/format.h>

namespace runner {

std::string human_count(double value) {
  if (value >= 1e9) return fmt::format("{:.2f} G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.2f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.2f} k", value / 1e3);
  return fmt::format("{:.0f}", value);
}

std::string layer_table(const Graph& graph) {
  std::string out = fmt::format("{:<12} {:<11} {:<14} {:>10} {:>12} {:>14}\n", "layer", "type",
                                "inputs", "output", "parameters", "FLOPs/image");
  out += fmt::format("{:<12} {:<11} {:<14} {:>10} {:>12} {:>14}\n", "input", "data", "",
                     graph.input.str(), 0, "");
  for (const Node& node : graph.nodes) {
    std::string inputs;
    for (int i : node.inputs) {
      if (!inputs.empty()) inputs += ",";
      inputs += i == kDataInput ? "input" : graph.nodes[i].name;
    }
    std::int64_t params = 0;
    for (const auto& p : node.params) params += p.elements();
    out += fmt::format("{:<12} {:<11} {:<14} {:>10} {:>12} {:>14}\n", node.name, node.type, inputs,
                       node.output.str(), params, human_count(static_cast<double>(node.flops)));
  }
  out += fmt::format("total: {} parameters, {} FLOPs per image forward (about 3x that to train)",
                     graph.parameter_count(),
                     human_count(static_cast<double>(graph.flops_per_sample())));
  return out;
}

}  // namespace runner
