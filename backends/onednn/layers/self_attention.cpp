// self_attention on oneDNN: the qkv and proj projections are inner products over the (N*T, C)
// token rows (dense_rows.h); the attention itself is oneDNN's batched matmul over (image, head)
// reading q, k and v in place in the qkv rows through strided descriptors (timm's
// qkv.reshape(N, T, 3, H, d).permute(2, 0, 3, 1, 4): element (n, h, t, i) of q at
// n*T*3C + t*3C + h*d + i, k and v C and 2C further), and oneDNN's softmax along the last axis.
// Per image and head, with P the attention probabilities and O the context:
//   S = scale Q K^T, P = softmax(S), P' = dropout(P), O = P' V          (T x T, T x d)
//   dV = P'^T dO, dP' = dO V^T, dP = dropout's mask * dP', dS = P * (dP - rowsum(dP * P)),
//   dQ = scale dS K, dK = scale dS^T Q
// O is written into (N, T, H, d) = the (N*T, C) rows proj reads, and dQ, dK, dV into the
// (N*T, 3C) rows of qkv's gradient. Attention dropout is a host step with dropout's masks
// (backends/common/dropout_math.h) in (N, H, T, T) order.
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "backends/common/dropout_math.h"
#include "backends/onednn/build_context.h"
#include "backends/onednn/dense_rows.h"
#include "backends/onednn/host_values.h"

namespace runner::onednn {
namespace {

using dims = dnnl::memory::dims;

// Keeps or zeroes each attention probability with this step's mask (factors 0 or 1 / (1 - p)),
// in place; the factors stay for the backward pass.
void drop_probabilities(const dnnl::memory& probs, std::vector<float>& factors, std::uint64_t key,
                        std::uint64_t first, float p) {
  const float keep = 1.f / (1.f - p);
  with_type(probs, [&](auto element) {
    using T = decltype(element);
    T* values = values_of<T>(probs);
    const std::size_t count = factors.size();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < count; ++i) {
      factors[i] = dropout_math::keeps(key, first + i, p) ? keep : 0.f;
      values[i] = from_float<T>(to_float(values[i]) * factors[i]);
    }
  });
}

// values *= factors, in place.
void multiply_in_place(const dnnl::memory& m, const std::vector<float>& factors) {
  with_type(m, [&](auto element) {
    using T = decltype(element);
    T* values = values_of<T>(m);
    const std::size_t count = factors.size();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < count; ++i)
      values[i] = from_float<T>(to_float(values[i]) * factors[i]);
  });
}

class SelfAttention : public OnednnLayer {
 public:
  dnnl::memory forward(BuildContext& ctx, const Node& node,
                       const std::vector<dnnl::memory>& inputs) override {
    const bool bias = node.attrs.bias;
    qkv_.emplace(node.params[0], bias ? &node.params[1] : nullptr, node.name + ".qkv");
    proj_.emplace(node.params[bias ? 2 : 1], bias ? &node.params[3] : nullptr, node.name + ".proj");
    batch_ = ctx.batch;
    tokens_ = node.output.h;
    features_ = node.output.c;
    heads_ = node.attrs.heads;
    head_ = features_ / heads_;
    scale_ = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_)));
    type_ = ctx.data;

    const dnnl::memory x = token_rows(ctx, inputs[0], *ctx.forward, node.name + " layout");
    qkv_rows_ = qkv_->forward(ctx, x, dnnl::primitive_attr());  // (N*T, 3C)
    probs_ = ctx.allocate_activation(dnnl::memory::desc({batch_, heads_, tokens_, tokens_}, type_,
                                                        tag::abcd));  // (N, H, T, T)
    append_matmul(*ctx.forward, node.name + " scores", ctx, head_view(qkv_rows_, 0, false),
                  head_view(qkv_rows_, 1, true), probs_, scale_);
    softmax_pd_ = dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(ctx.forward_kind(), probs_.get_desc(), 3), ctx.engine);
    ctx.forward->add(node.name + " softmax", dnnl::softmax_forward(softmax_pd_),
                     {{DNNL_ARG_SRC, probs_}, {DNNL_ARG_DST, probs_}});
    dropped_ = probs_;
    if (ctx.training && node.attrs.p > 0) append_dropout(ctx, node);
    context_ =
        ctx.allocate_activation(dnnl::memory::desc({batch_ * tokens_, features_}, type_, tag::ab));
    append_matmul(*ctx.forward, node.name + " context", ctx, dropped_,
                  head_view(qkv_rows_, 2, false), context_view(context_), 1.f);
    output_ = proj_->forward(ctx, context_, dnnl::primitive_attr());  // (N*T, C)
    return dnnl::memory(ctx.tokens_desc(node.output, type_), ctx.engine, output_.get_data_handle());
  }

  void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                const std::vector<dnnl::memory>& input_grads) override {
    const std::string& name = node.name;
    const dnnl::memory dy = token_rows(ctx, output_grad, *ctx.backward, name + " gradient layout");
    const dnnl::memory context_grad = ctx.allocate(context_.get_desc());
    proj_->backward(ctx, dy, context_grad);
    const dnnl::memory qkv_grad = ctx.allocate(qkv_rows_.get_desc());
    const dnnl::memory probs_grad = ctx.allocate(probs_.get_desc());
    const dnnl::memory dcontext = context_view(context_grad);
    append_matmul(*ctx.backward, name + " value gradient", ctx, transposed(dropped_), dcontext,
                  head_view(qkv_grad, 2, false), 1.f);
    append_matmul(*ctx.backward, name + " probability gradient", ctx, dcontext,
                  head_view(qkv_rows_, 2, true), probs_grad, 1.f);
    if (factors_) {
      ctx.backward->add(name + " dropout backward", [probs_grad, factors = factors_] {
        multiply_in_place(probs_grad, *factors);
      });
    }
    dnnl::softmax_backward::primitive_desc softmax_pd(
        dnnl::softmax_backward::desc(probs_grad.get_desc(), probs_.get_desc(), 3), ctx.engine,
        softmax_pd_);
    ctx.backward->add(name + " softmax backward", dnnl::softmax_backward(softmax_pd),
                      {{DNNL_ARG_DST, probs_},
                       {DNNL_ARG_DIFF_DST, probs_grad},
                       {DNNL_ARG_DIFF_SRC, probs_grad}});  // in place: dS
    append_matmul(*ctx.backward, name + " query gradient", ctx, probs_grad,
                  head_view(qkv_rows_, 1, false), head_view(qkv_grad, 0, false), scale_);
    append_matmul(*ctx.backward, name + " key gradient", ctx, transposed(probs_grad),
                  head_view(qkv_rows_, 0, false), head_view(qkv_grad, 1, false), scale_);
    if (!input_grads[0]) return qkv_->backward(ctx, qkv_grad, dnnl::memory());
    // The input's gradient as rows, in the token layout (a copy where it is another).
    const dnnl::memory::desc& md = input_grads[0].get_desc();
    const dnnl::memory::desc layout(md.dims(), md.data_type(), tag::acdb);
    dnnl::memory in_layout = ctx.view_as(input_grads[0], layout);
    const bool direct = static_cast<bool>(in_layout);
    if (!direct) in_layout = ctx.allocate(layout);
    qkv_->backward(ctx, qkv_grad, token_rows(ctx, in_layout, *ctx.backward, ""));
    if (!direct)
      ctx.copy(in_layout, input_grads[0], *ctx.backward, name + " input gradient layout");
  }

 private:
  // Part `part` (0 q, 1 k, 2 v) of the (N*T, 3C) rows `rows` as (N, H, T, d), or transposed as
  // (N, H, d, T): a strided view of the same bytes.
  dnnl::memory head_view(const dnnl::memory& rows, int part, bool transpose) const {
    const dnnl::memory::dim row = 3 * features_;
    const dnnl::memory::desc md = transpose
                                      ? dnnl::memory::desc({batch_, heads_, head_, tokens_}, type_,
                                                           dims{tokens_ * row, head_, 1, row})
                                      : dnnl::memory::desc({batch_, heads_, tokens_, head_}, type_,
                                                           dims{tokens_ * row, head_, row, 1});
    auto* base = static_cast<char*>(rows.get_data_handle());
    return dnnl::memory(md, rows.get_engine(),
                        base + part * features_ * dnnl::memory::data_type_size(type_));
  }

  // The (N*T, C) rows of the context as (N, H, T, d).
  dnnl::memory context_view(const dnnl::memory& rows) const {
    return dnnl::memory(dnnl::memory::desc({batch_, heads_, tokens_, head_}, type_,
                                           dims{tokens_ * features_, head_, features_, 1}),
                        rows.get_engine(), rows.get_data_handle());
  }

  // A plain (N, H, T, T) memory read as its per-image-and-head transposes.
  dnnl::memory transposed(const dnnl::memory& m) const {
    return dnnl::memory(
        dnnl::memory::desc({batch_, heads_, tokens_, tokens_}, type_,
                           dims{heads_ * tokens_ * tokens_, tokens_ * tokens_, 1, tokens_}),
        m.get_engine(), m.get_data_handle());
  }

  // Appends dst = scale * a b, batched over the leading (image, head) dimensions.
  static void append_matmul(StepList& steps, const std::string& label, const BuildContext& ctx,
                            const dnnl::memory& a, const dnnl::memory& b, const dnnl::memory& dst,
                            float scale) {
    dnnl::primitive_attr attr;
    if (scale != 1.f) attr.set_output_scales(0, {scale});
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a.get_desc(), b.get_desc(), dst.get_desc()),
                                    attr, ctx.engine);
    steps.add(label, dnnl::matmul(pd),
              {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, dst}});
  }

  // P' = dropout(P) into its own memory (P stays for the softmax's backward pass).
  void append_dropout(BuildContext& ctx, const Node& node) {
    dropped_ = ctx.allocate_activation(probs_.get_desc());
    ctx.copy(probs_, dropped_, *ctx.forward, node.name + " probabilities");
    const std::size_t per_image = static_cast<std::size_t>(heads_ * tokens_ * tokens_);
    factors_ = std::make_shared<std::vector<float>>(per_image * batch_);
    const float p = static_cast<float>(node.attrs.p);
    const std::uint64_t layer = dropout_math::layer_key(node.name.c_str());
    ctx.forward->add(node.name + " dropout", [dropped = dropped_, factors = factors_, p, layer,
                                              masks = ctx.masks, per_image] {
      const std::uint64_t key = dropout_math::step_key(masks.seed, *masks.step, layer);
      drop_probabilities(dropped, *factors, key,
                         static_cast<std::uint64_t>(*masks.first_image) * per_image, p);
    });
  }

  std::optional<DenseRows> qkv_, proj_;
  dnnl::memory::dim batch_ = 0, tokens_ = 0, features_ = 0, heads_ = 1, head_ = 1;
  float scale_ = 1;
  dt type_ = dt::f32;
  dnnl::memory qkv_rows_;  // (N*T, 3C)
  dnnl::memory probs_;     // P (N, H, T, T)
  dnnl::memory dropped_;   // P', probs_ itself without dropout
  dnnl::memory context_;   // O as (N*T, C) rows
  dnnl::memory output_;    // (N*T, C), the bytes of the returned tokens
  dnnl::softmax_forward::primitive_desc softmax_pd_;
  std::shared_ptr<std::vector<float>> factors_;  // attention dropout's, this step
};

}  // namespace

RUNNER_ONEDNN_LAYER(self_attention) {
  return std::make_unique<SelfAttention>();
}

}  // namespace runner::onednn
