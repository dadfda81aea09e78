// conv2d on oneDNN: direct convolution (grouped, dilated), or Winograd where it is faster; image
// outputs channels-last or in the primitive's blocked layout (BuildContext::activation_desc), an
// optional fused ReLU. 16 channels in and out, 3x3, stride 1, on AVX-512: the own Winograd
// kernels of conv2d_winograd16.h instead; in bf16, some weight gradients as matrix products
// (conv2d_matmul_weights.h).
#include <algorithm>

#include "backends/onednn/build_context.h"
#include "backends/onednn/layers/conv2d_matmul_weights.h"
#include "backends/onednn/layers/conv2d_winograd16.h"

namespace runner::onednn {
namespace {

constexpr auto kDirect = dnnl::algorithm::convolution_direct;
constexpr auto kWinograd = dnnl::algorithm::convolution_winograd;

// The passes that try oneDNN's Winograd F(4x4, 3x3) first: it needs about half the
// multiplications of the direct method for a 3x3, stride-1 convolution. Measured in training on
// AVX-512 (2 threads, batch 128): from 32 input and output channels on it makes every pass about
// half as long; at 16 channels only the weight gradient gains (a third less time), the forward
// pass and the data gradient lose (a third more); on an image's few channels it is far slower.
// oneDNN 2.6 cannot lay out plain weights for its inference Winograd kernel, so evaluation nets
// stay direct. Its transforms round more: a ResNet's gradients come within about 1e-3 of exact
// (1e-6 direct), so `backend.winograd: false` keeps every pass direct.
struct WinogradPasses {
  bool forward = false;
  bool backward_data = false;
  bool backward_weights = false;
};

WinogradPasses winograd_passes(const Node& node, bool training) {
  const LayerAttrs& a = node.attrs;
  const auto channels = std::min<std::int64_t>(node.params[0].dims[1], a.out_channels);
  const bool shape = a.kernel_h == 3 && a.kernel_w == 3 && a.stride_h == 1 && a.stride_w == 1 &&
                     a.dilation_h == 1 && a.dilation_w == 1 && a.groups == 1 &&
                     node.params[0].dims[1] % 16 == 0 && a.out_channels % 16 == 0;
  if (!training || !shape || channels < 16) return {};
  const bool wide = channels >= 32;
  return {wide, wide, true};
}

// The primitive descriptor `build(algorithm, layout_choice)` makes with Winograd when `winograd`
// and oneDNN has an optimised implementation of it for these shapes, else with the direct method
// (see first_optimised for the layout choices).
template <typename PrimitiveDesc, typename Build>
PrimitiveDesc winograd_or_direct(bool winograd, int layout_choices, Build build) {
  if (winograd) {
    try {
      auto pd = first_optimised<PrimitiveDesc>(
          layout_choices, [&](int choice) { return build(kWinograd, choice); });
      if (!is_reference(pd)) return pd;
    } catch (const dnnl::error&) {  // no implementation of Winograd for these shapes
    }
  }
  return first_optimised<PrimitiveDesc>(layout_choices,
                                        [&](int choice) { return build(kDirect, choice); });
}

class Conv2d : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    // The own kernels compute in FP32; bf16 runs use oneDNN's bf16 convolutions.
    if (ctx.data == dt::f32 && ctx.own_kernels &&
        winograd16_applies(node, inputs[0].get_desc().dims())) {
      own_ = make_winograd16_conv();
      return own_->forward(ctx, node, inputs);
    }
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    strides_ = {a.stride_h, a.stride_w};
    dilates_ = {a.dilation_h - 1, a.dilation_w - 1};  // oneDNN counts the gaps between taps
    padding_ = {a.pad_h, a.pad_w};
    weight_dims_ = weight_dims(node);
    forward_pd_ = choose_forward(ctx, node, inputs[0].get_desc());
    // (N, Cin, H, W) in the layout the convolution wants
    src_ =
        ctx.in_layout(inputs[0], forward_pd_.src_desc(), *ctx.forward, node.name + " src layout");
    dnnl::memory dst = ctx.allocate_activation(forward_pd_.dst_desc());  // (N, Cout, Ho, Wo)
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src_},
        {DNNL_ARG_WEIGHTS, ctx.params->value(weight, forward_pd_.weights_desc(), *ctx.refresh)},
        {DNNL_ARG_DST, dst}};
    if (a.bias) {
      args[DNNL_ARG_BIAS] =
          ctx.params->value(node.params[1], forward_pd_.bias_desc(), *ctx.refresh);
    }
    ctx.forward->add(node.name, dnnl::convolution_forward(forward_pd_), args);
    if (ctx.fuse_relu && !relu_fused_) ctx.relu_in_place(dst, node.name + " relu");
    return dst;
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    if (own_) return own_->backward(ctx, node, output_grad, input_grads);
    // The gradient seen in the forward output's layout where those are the same bytes (16
    // channels, channels-last or blocked): oneDNN's backward kernels pair the forward's layouts.
    dnnl::memory grad = ctx.view_as(output_grad, forward_pd_.dst_desc());
    if (!grad) grad = output_grad;
    backward_weights(ctx, node, grad);
    if (input_grads[0]) backward_data(ctx, node, grad, input_grads[0]);
  }

 private:
  // The first of: the layouts of layout_candidates, the ReLU as a post-op, then without it (oneDNN
  // 2.6 has no post-ops in some channels-last training kernels), that has an optimised
  // implementation; Winograd before the direct method where it is preferred. The backward passes
  // then try the forward pass's algorithm first.
  dnnl::convolution_forward::primitive_desc choose_forward(const BuildContext& ctx,
                                                           const Node& node,
                                                           const dnnl::memory::desc& input) {
    const LayerAttrs& a = node.attrs;
    winograd_ = winograd_passes(node, ctx.training && ctx.winograd);
    const std::vector algorithms =
        winograd_.forward ? std::vector{kWinograd, kDirect} : std::vector{kDirect};
    dnnl::convolution_forward::primitive_desc fallback;
    bool fallback_fused = false;
    for (auto algorithm : algorithms) {
      for (const auto& [src, dst] : layout_candidates(ctx, input, ctx.dims_of(node.output))) {
        for (bool fuse : {ctx.fuse_relu, false}) {
          auto weights = ctx.data_any(weight_dims_);
          auto desc =
              a.bias ? dnnl::convolution_forward::desc(ctx.forward_kind(), algorithm, src, weights,
                                                       BuildContext::any({a.out_channels}), dst,
                                                       strides_, dilates_, padding_, padding_)
                     : dnnl::convolution_forward::desc(ctx.forward_kind(), algorithm, src, weights,
                                                       dst, strides_, dilates_, padding_, padding_);
          auto attr = fuse ? ctx.output_attr() : dnnl::primitive_attr();
          try {
            dnnl::convolution_forward::primitive_desc pd(desc, attr, ctx.engine);
            if (!is_reference(pd)) {
              relu_fused_ = fuse;
              return pd;
            }
            if (!fallback && algorithm == kDirect) {
              fallback = pd;
              fallback_fused = fuse;
            }
          } catch (const dnnl::error&) {
          }
        }
      }
    }
    relu_fused_ = fallback_fused;
    return fallback;
  }

  // The (input, output) layouts to try, best first: the output channels-last where
  // BuildContext::activation_desc says, else the primitive's choice. With 16 input and output
  // channels, both channels-last: oneDNN 2.6's channels-last (brgemm) forward kernel is a fifth
  // faster there than its blocked one, and the bytes are those of one 16-channel block, so no
  // reorder follows (measured on AVX-512; slower with other channel counts). Mixed precision
  // keeps both channels-last where the output's channels are not a multiple of 16 or the input
  // arrives channels-last with such a count: in 16-channel blocks LeNet's 6 or 24 channels would
  // be padded to 16 or 32, and oneDNN 2.6's bf16 kernels want the input and output in the same
  // family of layouts (a channels-last input with a blocked output has only the reference
  // kernel); at width 4 this makes a LeNet step a fifth shorter, at width 1 a tenth. FP32 keeps
  // the primitive's choice there: channels-last made its LeNet at width 1 a fifth slower.
  static std::vector<std::pair<dnnl::memory::desc, dnnl::memory::desc>> layout_candidates(
      const BuildContext& ctx, const dnnl::memory::desc& input, const dnnl::memory::dims& dst) {
    using Desc = dnnl::memory::desc;
    const dnnl::memory::dims src = input.dims();
    const std::pair channels_last{Desc(src, ctx.data, tag::acdb), Desc(dst, ctx.data, tag::acdb)};
    const std::pair primitives_choice{ctx.data_any(src), ctx.data_any(dst)};
    if (src[1] == 16 && dst[1] == 16) return {channels_last, primitives_choice};
    const std::pair primitives_output{ctx.data_any(src), ctx.activation_desc(dst)};
    if (ctx.data != dt::bf16 || (src[1] % 16 == 0 && dst[1] % 16 == 0)) {
      return {primitives_output, primitives_choice};
    }
    // An input that fills no block (an image's channels) first in its own layout: no reorder, no
    // padding; a blocked output is fine there (ResNet's stem), a channels-last one is not.
    const bool input_channels_last = input == Desc(src, input.data_type(), tag::acdb);
    if (src[1] % 16 != 0 && !input_channels_last) {
      return {{input, ctx.activation_desc(dst)}, channels_last, primitives_choice};
    }
    return {channels_last, primitives_choice};
  }

  void backward_weights(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad) {
    if (matmul_weight_gradient_applies(ctx, node, src_.get_desc().dims(),
                                       output_grad.get_desc().dims()) &&
        add_matmul_weight_gradient(ctx, node, src_, output_grad)) {
      return;
    }
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    // `compute` is the type of the input and output gradient the primitive reads; f32 weight
    // gradients whatever it is. Mixed precision computes in FP32 where oneDNN has no bf16 kernel
    // for the shape (an image's single channel), and for strided windows wider than 1x1, where
    // oneDNN 2.6's bf16 kernel runs at about half its FP32 kernel's rate (250 against 460
    // GFLOP/s on ResNet-8's downsampling convolutions, 2 threads with AVX512-BF16): two
    // conversions instead of a slow path. Wide windows run as matrix products before all this
    // (conv2d_matmul_weights.h).
    auto choose = [&](dt compute) {
      const bool given = compute == ctx.data;  // else the layouts are the primitive's
      return winograd_or_direct<dnnl::convolution_backward_weights::primitive_desc>(
          winograd_.backward_weights, 2, [&](dnnl::algorithm algorithm, int choice) {
            const bool keep = given && choice == 0;
            auto src = keep ? src_.get_desc() : BuildContext::any(src_.get_desc().dims(), compute);
            auto diff_dst = keep ? output_grad.get_desc()
                                 : BuildContext::any(output_grad.get_desc().dims(), compute);
            auto weights = BuildContext::any(weight_dims_);
            auto desc = a.bias ? dnnl::convolution_backward_weights::desc(
                                     algorithm, src, weights, BuildContext::any({a.out_channels}),
                                     diff_dst, strides_, dilates_, padding_, padding_)
                               : dnnl::convolution_backward_weights::desc(
                                     algorithm, src, weights, diff_dst, strides_, dilates_,
                                     padding_, padding_);
            return dnnl::convolution_backward_weights::primitive_desc(desc, ctx.engine,
                                                                      forward_pd_);
          });
    };
    const bool strided_window =
        (a.stride_h > 1 || a.stride_w > 1) && (a.kernel_h > 1 || a.kernel_w > 1);
    auto pd = choose(ctx.data);
    if (ctx.data == dt::bf16 && (strided_window || !is_native_bf16(pd))) pd = choose(dt::f32);
    StepList gradient_layouts;  // run after the primitive, where its layout is not the master's
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC,
         ctx.in_layout(src_, pd.src_desc(), *ctx.backward, node.name + " src layout")},
        {DNNL_ARG_DIFF_DST,
         ctx.in_layout(output_grad, pd.diff_dst_desc(), *ctx.backward, node.name + " grad layout")},
        {DNNL_ARG_DIFF_WEIGHTS,
         ctx.params->gradient(weight.name, pd.diff_weights_desc(), gradient_layouts)}};
    if (a.bias) {
      args[DNNL_ARG_DIFF_BIAS] =
          ctx.params->gradient(node.params[1].name, pd.diff_bias_desc(), gradient_layouts);
    }
    ctx.backward->add(node.name + " backward weights", dnnl::convolution_backward_weights(pd),
                      args);
    ctx.backward->append(gradient_layouts);
  }

  void backward_data(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                     const dnnl::memory& input_grad) {
    const ParamSpec& weight = node.params[0];
    // The layouts to try, best first: the input gradient's and the output gradient's; the
    // forward pass's input layout; in mixed precision both channels-last (no channel padding);
    // the primitive's choice. A reorder into the input gradient follows where its layout differs.
    using Desc = dnnl::memory::desc;
    const dnnl::memory::dims src_dims = input_grad.get_desc().dims();
    const dnnl::memory::dims dst_dims = output_grad.get_desc().dims();
    std::vector<std::pair<Desc, Desc>> choices = {{input_grad.get_desc(), output_grad.get_desc()}};
    if (forward_pd_.src_desc() != input_grad.get_desc()) {
      choices.emplace_back(forward_pd_.src_desc(), output_grad.get_desc());
    }
    if (ctx.data == dt::bf16) {
      choices.emplace_back(Desc(src_dims, ctx.data, tag::acdb),
                           Desc(dst_dims, ctx.data, tag::acdb));
    }
    choices.emplace_back(ctx.data_any(src_dims), ctx.data_any(dst_dims));
    auto pd = winograd_or_direct<dnnl::convolution_backward_data::primitive_desc>(
        winograd_.backward_data, static_cast<int>(choices.size()),
        [&](dnnl::algorithm algorithm, int choice) {
          const auto& [diff_src, diff_dst] = choices[choice];
          dnnl::convolution_backward_data::desc desc(algorithm, diff_src,
                                                     ctx.data_any(weight_dims_), diff_dst, strides_,
                                                     dilates_, padding_, padding_);
          return dnnl::convolution_backward_data::primitive_desc(desc, ctx.engine, forward_pd_);
        });
    dnnl::memory diff_dst =
        ctx.in_layout(output_grad, pd.diff_dst_desc(), *ctx.backward, node.name + " grad layout");
    dnnl::memory diff_src = ctx.view_as(input_grad, pd.diff_src_desc());
    const bool same_layout = static_cast<bool>(diff_src);
    if (!same_layout) diff_src = ctx.allocate(pd.diff_src_desc());
    ctx.backward->add(
        node.name + " backward data", dnnl::convolution_backward_data(pd),
        {{DNNL_ARG_DIFF_DST, diff_dst},
         {DNNL_ARG_WEIGHTS, ctx.params->value(weight, pd.weights_desc(), *ctx.refresh)},
         {DNNL_ARG_DIFF_SRC, diff_src}});
    if (!same_layout) ctx.copy(diff_src, input_grad, *ctx.backward, node.name + " grad layout");
  }

  // oneDNN's grouped weights are 5-D, (G, O/G, I/G, kH, kW): in the plain layout (goihw) the
  // same bytes as PyTorch's (O, I/G, kH, kW), which is how the parameter store keeps them.
  static dnnl::memory::dims weight_dims(const Node& node) {
    const auto& d = node.params[0].dims;  // (O, I/G, kH, kW)
    const int g = node.attrs.groups;
    if (g == 1) return d;
    return {g, d[0] / g, d[1], d[2], d[3]};
  }

  dnnl::memory::dims strides_, dilates_, padding_, weight_dims_;
  bool relu_fused_ = false;  // the ReLU runs as a post-op of the convolution
  WinogradPasses winograd_;
  dnnl::convolution_forward::primitive_desc forward_pd_;
  dnnl::memory src_;
  std::unique_ptr<OnednnLayer> own_;  // the own kernels' layer, where they apply
};

}  // namespace

RUNNER_ONEDNN_LAYER(conv2d) {
  return std::make_unique<Conv2d>();
}

}  // namespace runner::onednn
