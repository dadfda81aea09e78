// batch_norm2d on oneDNN: batch_normalization with the batch's statistics in training (then a
// host step folds them into the running statistics, PyTorch's way), with the running
// statistics (use_global_stats) in inference; a ReLU after it fused in. The program runs a batch
// norm graph's training batches whole (LayerKind::batch_statistics), so `ctx.batch` is the batch's
// true size.
#include "backends/onednn/build_context.h"

namespace runner::onednn {
namespace {

using flags = dnnl::normalization_flags;

class BatchNorm : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const LayerAttrs& a = node.attrs;
    const dnnl::memory::desc channels = plain_desc({node.output.c});
    eps_ = static_cast<float>(a.eps);
    flags_ = a.affine ? flags::use_scale | flags::use_shift : flags::none;
    if (!ctx.training) flags_ = flags_ | flags::use_global_stats;
    // The relu layer reading this one (its only reader) is applied here, in both passes; the
    // backward pass masks the gradient with the workspace the forward pass leaves.
    if (ctx.fuse_relu) flags_ = flags_ | flags::fuse_norm_relu;
    dnnl::batch_normalization_forward::desc desc(ctx.forward_kind(), inputs[0].get_desc(), eps_,
                                                 flags_);
    forward_pd_ = dnnl::batch_normalization_forward::primitive_desc(desc, ctx.engine);
    src_ = inputs[0];
    dnnl::memory dst = ctx.allocate_activation(forward_pd_.dst_desc());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst}};
    std::size_t next = 0;
    if (a.affine) {
      scale_ = ctx.params->value(node.params[next++], channels, *ctx.refresh);
      args[DNNL_ARG_SCALE] = scale_;
      shift_ = ctx.params->value(node.params[next++], channels, *ctx.refresh);
      args[DNNL_ARG_SHIFT] = shift_;
    }
    dnnl::memory running_mean = ctx.params->value(node.params[next++], channels, *ctx.refresh);
    dnnl::memory running_var = ctx.params->value(node.params[next++], channels, *ctx.refresh);
    if (!ctx.training) {
      args[DNNL_ARG_MEAN] = running_mean;
      args[DNNL_ARG_VARIANCE] = running_var;
      ctx.forward->add(node.name, dnnl::batch_normalization_forward(forward_pd_), args);
      return dst;
    }
    mean_ = ctx.allocate(forward_pd_.mean_desc());
    variance_ = ctx.allocate(forward_pd_.variance_desc());
    args[DNNL_ARG_MEAN] = mean_;
    args[DNNL_ARG_VARIANCE] = variance_;
    if (ctx.fuse_relu) {
      workspace_ = ctx.allocate(forward_pd_.workspace_desc());
      args[DNNL_ARG_WORKSPACE] = workspace_;
    }
    ctx.forward->add(node.name, dnnl::batch_normalization_forward(forward_pd_), args);
    const dnnl::memory::dims dims = src_.get_desc().dims();
    const double values = static_cast<double>(dims[0]) * dims[2] * dims[3];
    ctx.forward->add(node.name + " running statistics",
                     [running_mean, running_var, mean = mean_, variance = variance_,
                      momentum = a.momentum, values, count = node.output.c] {
                       update_running(data_of(running_mean), data_of(running_var), data_of(mean),
                                      data_of(variance), count, momentum, values);
                     });
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const bool affine = node.attrs.affine;
    if (!affine && !input_grads[0]) return;
    dnnl::batch_normalization_backward::desc desc(
        affine ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data, output_grad.get_desc(),
        src_.get_desc(), eps_, flags_);
    dnnl::batch_normalization_backward::primitive_desc pd(desc, ctx.engine, forward_pd_);
    // The layer's own parameters need the data gradient computed even when its input does not;
    // where the input's gradient has another layout, a reorder follows.
    dnnl::memory diff_src =
        input_grads[0] ? ctx.view_as(input_grads[0], pd.diff_src_desc()) : dnnl::memory();
    const bool direct = static_cast<bool>(diff_src);
    if (!direct) diff_src = ctx.allocate(pd.diff_src_desc());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src_},
                                                  {DNNL_ARG_MEAN, mean_},
                                                  {DNNL_ARG_VARIANCE, variance_},
                                                  {DNNL_ARG_DIFF_DST, output_grad},
                                                  {DNNL_ARG_DIFF_SRC, diff_src}};
    if (workspace_) args[DNNL_ARG_WORKSPACE] = workspace_;
    StepList gradient_layouts;
    if (affine) {
      const dnnl::memory::desc channels = plain_desc({node.output.c});
      args[DNNL_ARG_SCALE] = scale_;
      args[DNNL_ARG_SHIFT] = shift_;  // unused, but oneDNN 2.6 refuses to run without it
      args[DNNL_ARG_DIFF_SCALE] =
          ctx.params->gradient(node.params[0].name, channels, gradient_layouts);
      args[DNNL_ARG_DIFF_SHIFT] =
          ctx.params->gradient(node.params[1].name, channels, gradient_layouts);
    }
    ctx.backward->add(node.name + " backward", dnnl::batch_normalization_backward(pd), args);
    ctx.backward->append(gradient_layouts);
    if (input_grads[0] && !direct) {
      ctx.copy(diff_src, input_grads[0], *ctx.backward, node.name + " input gradient layout");
    }
  }

 private:
  // PyTorch: running = (1 - momentum) running + momentum batch, with the batch's unbiased
  // variance (values / (values - 1) times the biased one that normalised the batch).
  static void update_running(float* running_mean, float* running_var, const float* mean,
                             const float* variance, int channels, double momentum, double values) {
    const double unbiased = values > 1 ? values / (values - 1) : 1.0;
    const float keep = static_cast<float>(1 - momentum), take = static_cast<float>(momentum);
    for (int c = 0; c < channels; ++c) {
      running_mean[c] = keep * running_mean[c] + take * mean[c];
      running_var[c] = keep * running_var[c] + take * static_cast<float>(variance[c] * unbiased);
    }
  }

  float eps_ = 1e-5f;
  flags flags_ = flags::none;
  dnnl::batch_normalization_forward::primitive_desc forward_pd_;
  dnnl::memory src_, mean_, variance_, scale_, shift_, workspace_;
};

}  // namespace

RUNNER_ONEDNN_LAYER(batch_norm2d) {
  return std::make_unique<BatchNorm>();
}

}  // namespace runner::onednn
