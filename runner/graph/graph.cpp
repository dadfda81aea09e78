// Graph building: resolves layer inputs, orders the nodes, infers shapes and checks them.
#include "runner/graph/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runner/graph/layer_kind.h"

namespace runner {
namespace {

inline constexpr const char* kDataName = "input";

// For each layer, the indices (in config order) of its inputs; kDataInput for the images.
std::vector<std::vector<int>> resolve_inputs(const ModelSpec& model) {
  std::map<std::string, int> index_of;
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    index_of[model.layers[i].name] = static_cast<int>(i);
  std::vector<std::string> names;
  for (const auto& layer : model.layers) names.push_back(layer.name);
  names.push_back(kDataName);

  std::vector<std::vector<int>> inputs(model.layers.size());
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const LayerSpec& layer = model.layers[i];
    if (layer.inputs.empty()) {
      inputs[i].push_back(static_cast<int>(i) - 1);  // the previous layer; -1 is the data
      continue;
    }
    for (std::size_t k = 0; k < layer.inputs.size(); ++k) {
      const std::string& name = layer.inputs[k];
      if (name == kDataName) {
        inputs[i].push_back(kDataInput);
        continue;
      }
      auto it = index_of.find(name);
      if (it == index_of.end()) {
        SourceLocation at = layer.where;
        at.path += fmt::format(".inputs[{}]", k);
        std::string suggestion = nearest_match(name, names);
        throw_user_error(at, fmt::format("no layer named '{}'", name),
                         suggestion.empty() ? fmt::format("known: {}", fmt::join(names, ", "))
                                            : fmt::format("did you mean '{}'?", suggestion));
      }
      if (it->second == static_cast<int>(i)) {
        throw_user_error(layer.where, fmt::format("layer '{}' names itself as an input", name));
      }
      inputs[i].push_back(it->second);
    }
  }
  return inputs;
}

// Depth-first topological order; a cycle is a UserError listing it.
std::vector<int> topological_order(const ModelSpec& model,
                                   const std::vector<std::vector<int>>& inputs) {
  enum class Mark { kNone, kActive, kDone };
  std::vector<Mark> marks(model.layers.size(), Mark::kNone);
  std::vector<int> order, stack;
  auto visit = [&](auto&& self, int i) -> void {
    if (marks[i] == Mark::kDone) return;
    if (marks[i] == Mark::kActive) {
      std::vector<std::string> cycle;
      auto start = std::find(stack.begin(), stack.end(), i);
      for (auto it = start; it != stack.end(); ++it) cycle.push_back(model.layers[*it].name);
      cycle.push_back(model.layers[i].name);
      throw_user_error(model.layers[i].where,
                       fmt::format("the layer graph has a cycle: {}", fmt::join(cycle, " -> ")));
    }
    marks[i] = Mark::kActive;
    stack.push_back(i);
    for (int input : inputs[i]) {
      if (input != kDataInput) self(self, input);
    }
    stack.pop_back();
    marks[i] = Mark::kDone;
    order.push_back(i);
  };
  visit(visit, static_cast<int>(model.layers.size()) - 1);  // the last layer is the output
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    if (marks[i] == Mark::kNone) {
      throw_user_error(model.layers[i].where,
                       fmt::format("layer '{}' does not feed the output layer '{}'",
                                   model.layers[i].name, model.layers.back().name),
                       "name it in a later layer's inputs, or remove it");
    }
  }
  return order;
}

// A layer output too large for one image (the shape arithmetic itself stays in 64 bits).
void check_output_size(const Node& node) {
  if (node.output.elements() > graph_limits::max_sample_elements) {
    throw_user_error(node.where,
                     fmt::format("{} ({}): its output {} holds {} values per image, more than {}",
                                 node.name, node.type, node.output.str(), node.output.elements(),
                                 graph_limits::max_sample_elements));
  }
}

// Each parameter tensor's element count, multiplied with overflow checks.
void check_parameter_sizes(const Node& node) {
  for (const ParamSpec& param : node.params) {
    std::int64_t elements = 1;
    for (std::int64_t dim : param.dims) {
      if (__builtin_mul_overflow(elements, dim, &elements) ||
          elements > graph_limits::max_tensor_elements) {
        throw_user_error(node.where,
                         fmt::format("{} ({}): its parameter {} of shape ({}) holds more than {} "
                                     "values",
                                     node.name, node.type, param.name, fmt::join(param.dims, ", "),
                                     graph_limits::max_tensor_elements));
      }
    }
  }
}

}  // namespace

std::vector<Shape> Graph::input_shapes(const Node& node) const {
  std::vector<Shape> shapes;
  for (int i : node.inputs) shapes.push_back(i == kDataInput ? input : nodes[i].output);
  return shapes;
}

std::vector<bool> Graph::nodes_needing_gradient() const {
  std::vector<bool> needs(nodes.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    needs[i] = !nodes[i].params.empty();
    for (int input : nodes[i].inputs) {
      if (input != kDataInput && needs[input]) needs[i] = true;
    }
  }
  return needs;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> readers(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (int input : nodes[i].inputs) {
      if (input != kDataInput) readers[input].push_back(static_cast<int>(i));
    }
  }
  return readers;
}

std::vector<int> Graph::last_readers() const {
  const int count = static_cast<int>(nodes.size());
  std::vector<int> last(count + 1, 0);
  for (int i = 0; i < count; ++i) last[i] = i == count - 1 ? count : i;
  for (int i = 0; i < count; ++i) {
    for (int input : nodes[i].inputs) {
      int& reader = input == kDataInput ? last[count] : last[input];
      reader = std::max(reader, i);
    }
  }
  return last;
}

std::int64_t Graph::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& node : nodes) {
    for (const auto& p : node.params) n += p.elements();
  }
  return n;
}

std::int64_t Graph::flops_per_sample() const {
  std::int64_t n = 0;
  for (const auto& node : nodes) n += node.flops;
  return n;
}

Graph build_graph(const ModelSpec& model, Shape input, int classes,
                  const std::string& classes_origin) {
  if (model.layers.empty()) throw UserError("model.layers: the model has no layers");
  auto inputs = resolve_inputs(model);
  auto order = topological_order(model, inputs);

  if (input.elements() > graph_limits::max_sample_elements) {
    throw UserError(
        fmt::format("dataset: images of {} values ({}) are more than the {} a model "
                    "input may have",
                    input.elements(), input.str(), graph_limits::max_sample_elements));
  }
  Graph graph;
  graph.input = input;
  graph.classes = classes;
  std::int64_t total_flops = 0;
  std::vector<int> position(model.layers.size(), -1);
  for (int config_index : order) {
    const LayerSpec& spec = model.layers[config_index];
    const LayerKind& kind = find_layer_kind(spec.type, spec.where);
    Node node;
    node.name = spec.name;
    node.type = spec.type;
    node.where = spec.where;
    node.attrs.init = model.init;  // a kind with an init attribute may override it
    for (int i : inputs[config_index])
      node.inputs.push_back(i == kDataInput ? kDataInput : position[i]);
    int count = static_cast<int>(node.inputs.size());
    if (count < kind.min_inputs || count > kind.max_inputs) {
      throw_user_error(
          spec.where, fmt::format("layer '{}' ({}) takes {} input(s), got {}", spec.name, spec.type,
                                  kind.min_inputs == kind.max_inputs
                                      ? fmt::format("{}", kind.min_inputs)
                                      : fmt::format("{} to {}", kind.min_inputs, kind.max_inputs),
                                  count));
    }
    bool is_classifier = config_index == static_cast<int>(model.layers.size()) - 1;
    kind.parse(spec, is_classifier ? 1.0 : model.width, node.attrs);
    auto in = graph.input_shapes(node);
    if (kind.bind) kind.bind(node, in);
    node.output = kind.infer_shape(node, in);
    check_output_size(node);
    node.params = kind.params(node, in);
    check_parameter_sizes(node);
    node.flops = kind.flops(node, in);
    if (__builtin_add_overflow(total_flops, node.flops, &total_flops)) {
      throw_user_error(node.where, "the model needs more than 2^63 FLOPs per image");
    }
    position[config_index] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(std::move(node));
  }
  const Node& out = graph.output();
  if (!out.output.flat || out.output.c != classes) {
    throw_user_error(out.where,
                     fmt::format("the output layer '{}' gives {} values per image, but the dataset "
                                 "has {} classes{}",
                                 out.name, out.output.str(), classes,
                                 classes_origin.empty() ? "" : " because " + classes_origin),
                     fmt::format("end the model with a linear layer of out_features: {}", classes));
  }
  return graph;
}

}  // namespace runner
