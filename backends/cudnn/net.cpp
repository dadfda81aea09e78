// Compiles a graph into forward and backward step lists for one batch size, and the launch that
// loads a batch.
#include "backends/cudnn/net.h"

#include <algorithm>

namespace runner::cudnn {
namespace {

// Appends launches summing `parts` into `target` (chunks of at most kMaxSumInputs).
void add_gradient_sum(const DeviceTensor& target, const std::vector<DeviceTensor>& parts,
                      StepList& steps, const std::string& label) {
  const std::size_t n = target.elements();
  for (std::size_t first = 0; first < parts.size(); first += kernels::kMaxSumInputs) {
    kernels::SumInputs inputs{};
    const std::size_t last = std::min(parts.size(), first + kernels::kMaxSumInputs);
    for (std::size_t k = first; k < last; ++k) inputs.data[inputs.count++] = parts[k].data;
    const bool accumulate = first > 0;
    float* out = target.data;
    steps.add(label, [=](cudaStream_t stream) {
      kernels::sum_arrays(out, inputs, n, accumulate, stream);
    });
  }
}

void build_backward(const Graph& graph, Net& net, BuildContext& ctx,
                    const std::vector<DeviceTensor>& outputs) {
  const std::size_t count = graph.nodes.size();
  auto needs = graph.nodes_needing_gradient();
  // Each node's output gradient, shaped like its output.
  std::vector<DeviceTensor> grads(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (needs[i]) grads[i] = ctx.allocate_like(outputs[i], graph.nodes[i].name + " gradient");
  }
  net.logits_grad = grads.back();

  // Where several consumers read one output, each writes its own contribution; they are
  // summed into the output's gradient before that node's backward pass runs.
  std::vector<std::vector<DeviceTensor>> contributions(count);
  const auto consumers = graph.consumers();

  for (std::size_t i = count; i-- > 0;) {
    const Node& node = graph.nodes[i];
    if (!needs[i]) continue;
    if (contributions[i].size() > 1) {
      add_gradient_sum(grads[i], contributions[i], *ctx.backward, node.name + " gradient sum");
    }
    std::vector<DeviceTensor> input_grads;
    for (int input : node.inputs) {
      DeviceTensor target;
      if (input != kDataInput && needs[input]) {
        target = consumers[input].size() == 1
                     ? grads[input]
                     : ctx.allocate_like(outputs[input], node.name + " input gradient");
        contributions[input].push_back(target);
      }
      input_grads.push_back(target);
    }
    net.layers[i]->backward(ctx, node, grads[i], input_grads);
  }
}

}  // namespace

std::unique_ptr<Net> build_net(const Graph& graph, BuildContext ctx) {
  auto net = std::make_unique<Net>();
  net->batch = ctx.batch;
  net->training = ctx.training;
  net->image = graph.input;
  ctx.forward = &net->forward;
  ctx.backward = &net->backward;
  net->labels = ctx.memory->array<std::int32_t>(ctx.batch + 1, "labels");
  net->input = ctx.allocate(graph.input, "normalised input");

  std::vector<DeviceTensor> outputs;
  for (const Node& node : graph.nodes) {
    std::vector<DeviceTensor> inputs;
    for (int in : node.inputs) inputs.push_back(in == kDataInput ? net->input : outputs[in]);
    net->layers.push_back(make_layer(node.type));
    outputs.push_back(net->layers.back()->forward(ctx, node, inputs));
  }
  net->logits = outputs.back();  // (N, classes): the graph ends in a flat layer
  if (ctx.training) build_backward(graph, *net, ctx, outputs);
  return net;
}

StepList load_steps(const Net& net, kernels::BatchSource source, DeviceNormalizer normalizer,
                    const std::string& label) {
  float* input = net.input.data;
  std::int32_t* labels = net.training ? net.labels : nullptr;
  const int batch = net.batch, channels = net.image.c, pixels = net.image.h * net.image.w;
  StepList steps;
  steps.add(label, [=](cudaStream_t stream) {
    kernels::load_batch(source, batch, channels, pixels, normalizer.scale, normalizer.shift, input,
                        labels, stream);
  });
  return steps;
}

}  // namespace runner::cudnn
