// Compiles a graph into forward and backward step lists for one batch size.
#include "backends/onednn/net.h"

#include <fmt/format.h>

namespace runner::onednn {
namespace {

void build_backward(const Graph& graph, Net& net, BuildContext& ctx,
                    const std::vector<dnnl::memory>& outputs) {
  const std::size_t count = graph.nodes.size();
  auto needs = graph.nodes_needing_gradient();
  // Each node's output gradient, in its output's layout.
  std::vector<dnnl::memory> grads(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (needs[i]) grads[i] = ctx.allocate(outputs[i].get_desc());
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

// For each node, whether a ReLU is fused into it: a conv2d or linear whose only consumer is a
// relu layer (the relu then passes its input through and only runs its backward pass).
std::vector<bool> relu_fusions(const Graph& graph) {
  const auto consumers = graph.consumers();
  std::vector<bool> fused(graph.nodes.size(), false);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const std::string& type = graph.nodes[i].type;
    fused[i] = (type == "conv2d" || type == "linear") && consumers[i].size() == 1 &&
               graph.nodes[consumers[i][0]].type == "relu";
  }
  return fused;
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
  const auto fused = relu_fusions(graph);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    std::vector<dnnl::memory> inputs;
    for (int input : node.inputs) inputs.push_back(input == kDataInput ? net->input : outputs[input]);
    ctx.fuse_relu = fused[i];
    ctx.relu_fused_into_input = node.type == "relu" && node.inputs[0] != kDataInput && fused[node.inputs[0]];
    net->layers.push_back(make_layer(node.type));
    outputs.push_back(net->layers.back()->forward(ctx, node, inputs));
  }
  net->logits = outputs.back();  // plain (N, classes): the graph ends in a flat layer
  if (training) build_backward(graph, *net, ctx, outputs);
  return net;
}

}  // namespace runner::onednn
