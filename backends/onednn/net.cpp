// Compiles a graph into forward and backward step lists for one batch size.
#include "backends/onednn/net.h"

#include <fmt/format.h>

namespace runner::onednn {
namespace {

using ReluPlacement = BuildContext::ReluPlacement;

// Where each layer's ReLU goes: `fuse` for the layers that apply a relu layer's ReLU, and each
// relu layer's placement. A relu that is the only reader of its input and is read only by a
// max_pool2d moves after the pool: max(relu(x)) == relu(max(x)) exactly, the gradient too (both
// reach the window's first maximum when it is positive, nothing otherwise), and the ReLU then
// touches a quarter of the values. Otherwise a relu that is the only reader of a conv2d or
// linear becomes that layer's post-op.
struct ReluPlan {
  std::vector<bool> fuse;
  std::vector<ReluPlacement> placement;
};

ReluPlan plan_relus(const Graph& graph) {
  const auto consumers = graph.consumers();
  ReluPlan plan{std::vector<bool>(graph.nodes.size(), false),
                std::vector<ReluPlacement>(graph.nodes.size(), ReluPlacement::own)};
  for (std::size_t r = 0; r < graph.nodes.size(); ++r) {
    const Node& relu = graph.nodes[r];
    const int input = relu.inputs.empty() ? kDataInput : relu.inputs[0];
    if (relu.type != "relu" || input == kDataInput || consumers[input].size() != 1) continue;
    const auto& readers = consumers[r];
    if (readers.size() == 1 && graph.nodes[readers[0]].type == "max_pool2d") {
      plan.fuse[readers[0]] = true;
      plan.placement[r] = ReluPlacement::after_pool;
    } else if (graph.nodes[input].type == "conv2d" || graph.nodes[input].type == "linear") {
      plan.fuse[input] = true;
      plan.placement[r] = ReluPlacement::by_input;
    }
  }
  return plan;
}

void build_backward(const Graph& graph, Net& net, BuildContext& ctx,
                    const std::vector<dnnl::memory>& outputs, const ReluPlan& relus) {
  const std::size_t count = graph.nodes.size();
  auto needs = graph.nodes_needing_gradient();
  // Each node's output gradient, in its output's layout; a relu moved after its pool passes
  // the pool's input gradient straight on, so it shares its input's.
  std::vector<dnnl::memory> grads(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!needs[i]) continue;
    const int input = graph.nodes[i].inputs.empty() ? kDataInput : graph.nodes[i].inputs[0];
    const bool shared = relus.placement[i] == ReluPlacement::after_pool && grads[input];
    grads[i] = shared ? grads[input] : ctx.allocate(outputs[i].get_desc());
  }
  net.logits_grad = grads.back();

  // Where several consumers read one output, each writes its own contribution; they are
  // summed into the output's gradient before that node's backward pass runs.
  std::vector<std::vector<dnnl::memory>> contributions(count);
  const auto consumers = graph.consumers();

  for (std::size_t i = count; i-- > 0;) {
    const Node& node = graph.nodes[i];
    if (!needs[i]) continue;
    if (contributions[i].size() > 1) {
      auto md = grads[i].get_desc();
      std::vector<dnnl::memory::desc> mds(contributions[i].size(), md);
      dnnl::sum::primitive_desc pd(md, std::vector<float>(mds.size(), 1.f), mds, ctx.engine);
      std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DST, grads[i]}};
      for (std::size_t k = 0; k < contributions[i].size(); ++k) {
        args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k)] = contributions[i][k];
      }
      ctx.backward->add(node.name + " gradient sum", dnnl::sum(pd), args);
    }
    std::vector<dnnl::memory> input_grads;
    for (int input : node.inputs) {
      dnnl::memory target;
      if (input != kDataInput && needs[input]) {
        target = consumers[input].size() == 1 ? grads[input] : ctx.allocate(outputs[input].get_desc());
        contributions[input].push_back(target);
      }
      input_grads.push_back(target);
    }
    net.layers[i]->backward(ctx, node, grads[i], input_grads);
  }
}

}  // namespace

std::unique_ptr<Net> build_net(const Graph& graph, const dnnl::engine& engine, int batch,
                               bool training, ParamStore& params) {
  auto net = std::make_unique<Net>();
  net->batch = batch;
  BuildContext ctx;
  ctx.engine = engine;
  ctx.batch = batch;
  ctx.training = training;
  ctx.params = &params;
  ctx.refresh = &net->refresh;
  ctx.forward = &net->forward;
  ctx.backward = &net->backward;

  net->input = ctx.allocate(dnnl::memory::desc(ctx.dims_of(graph.input), dt::f32, tag::abcd));
  std::vector<dnnl::memory> outputs;
  const ReluPlan relus = plan_relus(graph);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    std::vector<dnnl::memory> inputs;
    for (int input : node.inputs) inputs.push_back(input == kDataInput ? net->input : outputs[input]);
    ctx.fuse_relu = relus.fuse[i];
    ctx.relu_placement = relus.placement[i];
    net->layers.push_back(make_layer(node.type));
    outputs.push_back(net->layers.back()->forward(ctx, node, inputs));
  }
  net->logits = outputs.back();  // plain (N, classes): the graph ends in a flat layer
  if (training) build_backward(graph, *net, ctx, outputs, relus);
  return net;
}

}  // namespace runner::onednn
