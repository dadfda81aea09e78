// Compiles a graph into forward and backward step lists for one batch size.
#include "backends/onednn/net.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "backends/onednn/arena_layout.h"
#include "runner/graph/backward_plan.h"

namespace runner::onednn {
namespace {

using ReluPlacement = BuildContext::ReluPlacement;

// Where each layer's ReLU goes: `fuse` for the layers that apply a relu layer's ReLU, and each
// relu layer's placement. A relu that is the only reader of its input and is read only by a
// max_pool2d moves after the pool: max(relu(x)) == relu(max(x)) exactly, the gradient too (both
// reach the window's first maximum when it is positive, nothing otherwise), and the ReLU then
// touches a quarter of the values. Otherwise a relu that is the only reader of a conv2d, linear
// or add becomes that layer's post-op, and one that is the only reader of a batch_norm2d is
// applied by the batch norm in both passes, saving a pass over the values each way.
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
    } else if (graph.nodes[input].type == "conv2d" || graph.nodes[input].type == "linear" ||
               graph.nodes[input].type == "add") {
      plan.fuse[input] = true;
      plan.placement[r] = ReluPlacement::by_input;
    } else if (graph.nodes[input].type == "batch_norm2d") {
      plan.fuse[input] = true;
      plan.placement[r] = ReluPlacement::in_input;
    }
  }
  return plan;
}

// Appends the sum of `parts` into `target` to the backward steps: a binary add for two parts
// (a third faster than oneDNN 2.6's sum), in place where `target` is one of them.
void add_gradient_sum(BuildContext& ctx, const dnnl::memory& target,
                      std::vector<dnnl::memory> parts, const std::string& label) {
  auto shares_target = [&](const dnnl::memory& part) {
    return part.get_data_handle() == target.get_data_handle();
  };
  std::stable_partition(parts.begin(), parts.end(), shares_target);  // in place: dst is src 0
  auto md = target.get_desc();
  if (parts.size() == 2) {
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(dnnl::algorithm::binary_add, md, md, md),
                                    ctx.engine);
    ctx.backward->add(
        label, dnnl::binary(pd),
        {{DNNL_ARG_SRC_0, parts[0]}, {DNNL_ARG_SRC_1, parts[1]}, {DNNL_ARG_DST, target}});
    return;
  }
  std::vector<dnnl::memory::desc> mds(parts.size(), md);
  dnnl::sum::primitive_desc pd(md, std::vector<float>(mds.size(), 1.f), mds, ctx.engine);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DST, target}};
  for (std::size_t k = 0; k < parts.size(); ++k) {
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k)] = parts[k];
  }
  ctx.backward->add(label, dnnl::sum(pd), args);
}

// Per gradient buffer, the buffer whose memory it uses. Buffers that always hold the same values
// share one: a relu moved after its pool or into its batch norm passes its output's gradient
// straight on, and an add's input gradients are its output gradient (where the layouts agree),
// so the add has nothing to copy. An output read several times gets the sum of its readers'
// contributions in the memory of one of them that nothing else reads (summed in place).
std::vector<int> memory_owners(const Graph& graph, const BackwardPlan& plan, const ReluPlan& relus,
                               const std::vector<dnnl::memory>& outputs) {
  std::vector<int> owner(plan.buffer_shape_of.size());
  std::iota(owner.begin(), owner.end(), 0);
  auto root = [&](int b) {
    while (owner[b] != b) b = owner[b];
    return b;
  };
  auto join = [&](int a, int b) { owner[root(a)] = root(b); };
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& inputs = graph.nodes[i].inputs;
    const int input = inputs.empty() ? kDataInput : inputs[0];
    const bool passes_through = relus.placement[i] == ReluPlacement::after_pool ||
                                relus.placement[i] == ReluPlacement::in_input;
    if (passes_through && plan.output_gradient[i] != kNoGradient && input != kDataInput &&
        plan.output_gradient[input] != kNoGradient) {
      join(plan.output_gradient[i], plan.output_gradient[input]);
    }
  }
  for (const BackwardStep& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    if (node.type != "add") continue;
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const int target = step.input_gradients[k];
      if (target != kNoGradient &&
          outputs[node.inputs[k]].get_desc() == outputs[step.node].get_desc()) {
        join(target, plan.output_gradient[step.node]);
      }
    }
  }
  std::vector<int> sharers(owner.size(), 0);
  for (std::size_t b = 0; b < owner.size(); ++b) ++sharers[root(static_cast<int>(b))];
  for (const BackwardStep& step : plan.steps) {
    for (int part : step.summed) {
      if (sharers[root(part)] == 1) {
        const int own = plan.output_gradient[step.node];
        sharers[root(own)] += 1;
        join(part, own);
        break;
      }
    }
  }
  for (int& b : owner) b = root(b);
  return owner;
}

// Per gradient buffer that owns its memory (memory_owners), its bytes and its life in backward
// steps (buffer_lives, over the buffers sharing it); a buffer no step touches lives throughout,
// one that shares its owner's bytes takes none.
std::vector<ArenaValue> gradient_lives(const BackwardPlan& plan, const std::vector<int>& owner,
                                       const std::vector<dnnl::memory::desc>& descs) {
  constexpr int kNever = std::numeric_limits<int>::max();
  std::vector<ArenaValue> lives(owner.size(), {0, kNever, -1});
  const std::vector<BufferLife> used = buffer_lives(plan);
  for (std::size_t b = 0; b < used.size(); ++b) {
    if (used[b].last < used[b].first) continue;
    ArenaValue& life = lives[owner[b]];
    life.first = std::min(life.first, used[b].first);
    life.last = std::max(life.last, used[b].last);
  }
  for (std::size_t b = 0; b < lives.size(); ++b) {
    if (owner[b] != static_cast<int>(b)) {
      lives[b] = {0, -1, -1};
    } else {
      lives[b].size = descs[b].get_size();
      if (lives[b].last < lives[b].first) lives[b] = {lives[b].size, -1, kNever};
    }
  }
  return lives;
}

// Runs the graph's backward plan (runner/graph/backward_plan.h). Buffers take their node
// output's layout and share memory as memory_owners says; buffers never live at once share
// bytes of one arena (a gradient is read by its node's step and then dead, as PyTorch frees it).
void build_backward(const Graph& graph, Net& net, BuildContext& ctx,
                    const std::vector<dnnl::memory>& outputs, const ReluPlan& relus) {
  const BackwardPlan plan = plan_backward(graph);
  const std::vector<int> owner = memory_owners(graph, plan, relus, outputs);
  std::vector<dnnl::memory::desc> descs;
  for (int shape_of : plan.buffer_shape_of) descs.push_back(outputs[shape_of].get_desc());
  const ArenaLayout layout = lay_out_arena(gradient_lives(plan, owner, descs));
  net.gradient_arena = arena_bytes(layout.size, ctx.engine);
  char* arena = static_cast<char*>(net.gradient_arena.get_data_handle());
  std::vector<dnnl::memory> buffers(plan.buffer_shape_of.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (owner[b] == static_cast<int>(b)) {
      buffers[b] = dnnl::memory(descs[b], ctx.engine, arena + layout.offsets[b]);
    }
  }
  for (std::size_t b = 0; b < buffers.size(); ++b) buffers[b] = buffers[owner[b]];
  net.gradients = buffers;
  auto buffer = [&](int id) { return id == kNoGradient ? dnnl::memory() : buffers[id]; };
  // The loss writes an f32 gradient; bf16 layers read it converted, before everything else.
  const dnnl::memory logits_grad = buffer(plan.output_gradient.back());
  net.logits_grad = ctx.view_as(logits_grad, net.logits.get_desc());
  if (!net.logits_grad) {
    net.logits_grad = ctx.allocate(net.logits.get_desc());
    ctx.copy(net.logits_grad, logits_grad, *ctx.backward, "logits gradient from f32");
  }

  for (const BackwardStep& step : plan.steps) {
    const Node& node = graph.nodes[step.node];
    const dnnl::memory& grad = buffers[plan.output_gradient[step.node]];
    if (!step.summed.empty()) {
      std::vector<dnnl::memory> parts;
      for (int id : step.summed) parts.push_back(buffers[id]);
      add_gradient_sum(ctx, grad, parts, node.name + " gradient sum");
    }
    std::vector<dnnl::memory> input_grads;
    for (int id : step.input_gradients) input_grads.push_back(buffer(id));
    net.layers[step.node]->backward(ctx, node, grad, input_grads);
  }
}

// The net; an inference net takes its activations from `activations`.
std::unique_ptr<Net> compile_net(const Graph& graph, const dnnl::engine& engine, int batch,
                                 bool training, ParamStore& params, const NetSettings& settings,
                                 ActivationPool* activations) {
  auto net = std::make_unique<Net>();
  net->batch = batch;
  BuildContext ctx;
  ctx.engine = engine;
  ctx.activations = activations;
  ctx.data = settings.data;
  ctx.own_kernels = settings.own_kernels;
  ctx.winograd = settings.winograd;
  ctx.masks = settings.masks;
  ctx.batch = batch;
  ctx.training = training;
  ctx.params = &params;
  ctx.refresh = &net->refresh;
  ctx.forward = &net->forward;
  ctx.backward = &net->backward;
  ctx.backward_scratch = &net->backward_scratch;

  const auto input_dims = ctx.dims_of(graph.input);
  net->input = ctx.allocate(dnnl::memory::desc(input_dims, dt::f32, tag::abcd));
  // The layers read the images in the data type (the loss and the host see f32 either way).
  const dnnl::memory images =
      ctx.in_layout(net->input, dnnl::memory::desc(input_dims, ctx.data, tag::abcd), net->forward,
                    "input to bf16");
  std::vector<dnnl::memory> outputs;
  const ReluPlan relus = plan_relus(graph);
  const std::vector<int> last_reader = graph.last_readers();
  if (!training) ctx.activations->read_until(images, last_reader.back());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    std::vector<dnnl::memory> inputs;
    for (int input : node.inputs) inputs.push_back(input == kDataInput ? images : outputs[input]);
    ctx.fuse_relu = relus.fuse[i];
    ctx.relu_placement = relus.placement[i];
    ctx.layer = static_cast<int>(i);
    net->layers.push_back(layer_factories().make(node.type));
    outputs.push_back(ctx.blocked_view(net->layers.back()->forward(ctx, node, inputs)));
    if (!training) ctx.activations->read_until(outputs.back(), last_reader[i]);
  }
  ctx.layer = static_cast<int>(graph.nodes.size());  // the logits' conversion, read by the host
  // Plain (N, classes): the graph ends in a flat layer. The loss reads and writes f32.
  const dnnl::memory::desc logits_f32(outputs.back().get_desc().dims(), dt::f32, tag::ab);
  net->logits = ctx.in_layout(outputs.back(), logits_f32, net->forward, "logits to f32");
  if (training) {
    build_backward(graph, *net, ctx, outputs, relus);
    net->backward_scratch.bind(engine);
  }
  return net;
}

}  // namespace

std::unique_ptr<Net> build_net(const Graph& graph, const dnnl::engine& engine, int batch,
                               bool training, ParamStore& params, const NetSettings& settings) {
  // A training net keeps every activation for its backward pass.
  if (training) return compile_net(graph, engine, batch, true, params, settings, nullptr);
  auto activations = std::make_unique<ActivationPool>(engine);
  auto recording = compile_net(graph, engine, batch, false, params, settings, activations.get());
  params.drop_mirrors(recording->refresh);  // the next net's list may take its address
  recording.reset();
  activations->plan();
  auto net = compile_net(graph, engine, batch, false, params, settings, activations.get());
  net->activations = std::move(activations);
  return net;
}

}  // namespace runner::onednn
