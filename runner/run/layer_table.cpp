// Formats the layer table.
#include "runner/run/layer_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace runner {
namespace {

struct Row {
  std::string name, type, inputs, output, parameters, flops;
};

std::int64_t parameter_count(const Node& node) {
  std::int64_t params = 0;
  for (const auto& p : node.params) params += p.elements();
  return params;
}

Row layer_row(const Graph& graph, const Node& node, const std::string& indent) {
  std::string inputs;
  for (int i : node.inputs) {
    if (!inputs.empty()) inputs += ",";
    inputs += i == kDataInput ? "input" : graph.nodes[i].name;
  }
  return {indent + node.name,
          node.type,
          inputs,
          node.output.str(),
          fmt::format("{}", parameter_count(node)),
          human_count(static_cast<double>(node.flops))};
}

// A top-level block use as the table names it: "basic_block x2" (or "basic_block").
struct Group {
  std::string block;
  int repeat = 0;
};

std::map<std::string, Group> block_uses(const ModelSpec& model) {
  std::map<std::string, Group> groups;
  if (!model.uses_blocks()) return groups;
  for (const auto& entry : model.written_layers) {
    if (!entry.contains("block") || entry.value("enabled", nlohmann::json(true)) != true) continue;
    Group group{entry["block"].get<std::string>(), 0};
    if (entry.contains("repeat") && entry["repeat"].is_number_integer()) {
      group.repeat = entry["repeat"].get<int>();
    }
    groups[entry["name"].get<std::string>()] = group;
  }
  return groups;
}

// The top-level block use a layer came from ("layer2" for layer2.0.conv1), or "".
std::string group_of(const std::string& name, const std::map<std::string, Group>& groups) {
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return "";
  std::string head = name.substr(0, dot);
  return groups.contains(head) ? head : "";
}

std::vector<Row> rows(const Graph& graph, const ModelSpec& model, bool flat) {
  std::vector<Row> out;
  out.push_back({"input", "data", "", graph.input.str(), "0", ""});
  const std::map<std::string, Group> groups =
      flat ? std::map<std::string, Group>{} : block_uses(model);
  for (std::size_t i = 0; i < graph.nodes.size();) {
    const std::string group = group_of(graph.nodes[i].name, groups);
    if (group.empty()) {
      out.push_back(layer_row(graph, graph.nodes[i++], ""));
      continue;
    }
    std::size_t end = i;
    std::int64_t params = 0, flops = 0;
    while (end < graph.nodes.size() && group_of(graph.nodes[end].name, groups) == group) {
      params += parameter_count(graph.nodes[end]);
      flops += graph.nodes[end].flops;
      ++end;
    }
    const Group& use = groups.at(group);
    out.push_back({group + ":",
                   use.repeat > 0 ? fmt::format("{} x{}", use.block, use.repeat) : use.block, "",
                   graph.nodes[end - 1].output.str(), fmt::format("{}", params),
                   human_count(static_cast<double>(flops))});
    for (; i < end; ++i) out.push_back(layer_row(graph, graph.nodes[i], "  "));
  }
  return out;
}

}  // namespace

std::string human_count(double value) {
  if (value >= 1e9) return fmt::format("{:.2f} G", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.2f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.2f} k", value / 1e3);
  return fmt::format("{:.0f}", value);
}

std::string layer_table(const Graph& graph, const ModelSpec& model, bool flat) {
  std::vector<Row> table = rows(graph, model, flat);
  const Row header{"layer", "type", "inputs", "output", "parameters", "FLOPs/image"};
  // Columns as wide as their widest cell (block names run long); inputs capped so a layer with
  // many inputs does not push the numbers off the screen.
  std::size_t name = header.name.size(), type = header.type.size(), output = 10;
  std::size_t inputs = header.inputs.size();
  for (const Row& row : table) {
    name = std::max(name, row.name.size());
    type = std::max(type, row.type.size());
    inputs = std::min<std::size_t>(std::max(inputs, row.inputs.size()), 40);
    output = std::max(output, row.output.size());
  }
  auto line = [&](const Row& row) {
    return fmt::format("{:<{}} {:<{}} {:<{}} {:>{}} {:>12} {:>14}\n", row.name, name, row.type,
                       type, row.inputs, inputs, row.output, output, row.parameters, row.flops);
  };
  std::string out = line(header);
  for (const Row& row : table) out += line(row);
  out += fmt::format("total: {} parameters, {} FLOPs per image forward (about 3x that to train)",
                     graph.parameter_count(),
                     human_count(static_cast<double>(graph.flops_per_sample())));
  return out;
}

}  // namespace runner
