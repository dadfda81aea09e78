// Compiles a graph into forward and backward step lists for one batch size, and the launch that
// loads a batch.
#include "backends/cudnn/net.h"

#include <algorithm>

#include "runner/graph/backward_plan.h"

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
    void* out = target.data;
    const DataType type = target.type;
    steps.add(label, [=](cudaStream_t stream) {
      kernels::sum_arrays(out, inputs, n, accumulate, type, stream);
    });
  }
}

// Runs the graph's backward plan (runner/graph/backward_plan.h); every buffer is shaped like
// its node's output.
void build_backward(const Graph& graph, Net& net, BuildContext& ctx,
                    const std::vector<DeviceTensor>& outputs) {
  const BackwardPlan plan = plan_backward(graph);
  std::vector<DeviceTensor> buffers(plan.buffer_shape_of.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const int node = plan.buffer_shape_of[b];
    const bool own = plan.output_gradient[node] == static_cast<int>(b);
    buffers[b] = ctx.allocate_like(
        outputs[node], graph.nodes[node].name + (own ? " gradient" : " input gradient"));
  }
  auto buffer = [&](int id) { return id == kNoGradient ? DeviceTensor() : buffers[id]; };
  net.logits_grad = buffer(plan.output_gradient.back());

  for (const BackwardStep& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    const DeviceTensor& grad = buffers[plan.output_gradient[step.node]];
    if (!step.summed.empty()) {
      std::vector<DeviceTensor> parts;
      for (int id : step.summed) parts.push_back(buffers[id]);
      add_gradient_sum(grad, parts, *ctx.backward, node.name + " gradient sum");
    }
    std::vector<DeviceTensor> input_grads;
    for (int id : step.input_gradients) input_grads.push_back(buffer(id));
    net.layers[step.node]->backward(ctx, node, grad, input_grads);
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
  if (ctx.training) net->mix = ctx.memory->array<batch_mix::BatchMix>(1, "batch mix");
  net->input = ctx.allocate(graph.input, "normalised input");

  std::vector<DeviceTensor> outputs;
  for (const Node& node : graph.nodes) {
    std::vector<DeviceTensor> inputs;
    for (int in : node.inputs) inputs.push_back(in == kDataInput ? net->input : outputs[in]);
    net->layers.push_back(layer_factories().make(node.type));
    outputs.push_back(net->layers.back()->forward(ctx, node, inputs));
  }
  net->logits = outputs.back();  // (N, classes): the graph ends in a flat layer
  if (ctx.training) build_backward(graph, *net, ctx, outputs);
  return net;
}

StepList load_steps(const Net& net, kernels::BatchSource source, DeviceNormalizer normalizer,
                    const std::string& label) {
  void* input = net.input.data;
  const DataType type = net.input.type;
  std::int32_t* labels = net.training ? net.labels : nullptr;
  batch_mix::BatchMix* mix = net.training ? net.mix : nullptr;
  const int batch = net.batch, channels = net.image.c, height = net.image.h, width = net.image.w;
  StepList steps;
  steps.add(label, [=](cudaStream_t stream) {
    kernels::load_batch(source, batch, channels, height, width, normalizer.scale, normalizer.shift,
                        input, type, labels, mix, stream);
  });
  return steps;
}

}  // namespace runner::cudnn
