// self_attention on the GPU: the qkv and proj projections are cuBLAS GEMMs over the (N*T, C)
// token rows (dense_rows.h); the attention is, per head, a cuBLAS strided batched GEMM over the
// images reading q, k and v in place in the qkv rows (timm's qkv.reshape(N, T, 3, H, d): head
// h's q of image n at n*T*3C + h*d, rows 3C apart; k and v C and 2C further), and our softmax
// kernels (attention_kernels.h). Per image and head, with P the probabilities and O the context:
//   S = scale Q K^T, P = softmax(S), P' = dropout(P), O = P' V
//   dV = P'^T dO, dP' = dO V^T, dP = dropout's factors * dP', dS = P * (dP - rowsum(dP * P)),
//   dQ = scale dS K, dK = scale dS^T Q
// O lands in (N, T, H, d) = the rows proj reads, dQ, dK, dV in the rows of qkv's gradient.
// Attention dropout draws dropout's masks (backends/common/dropout_math.h) in (N, H, T, T)
// order, as the CPU backend does.
#include <cmath>
#include <optional>

#include "backends/common/dropout_math.h"
#include "backends/cudnn/attention_kernels.h"
#include "backends/cudnn/build_context.h"
#include "backends/cudnn/dense_rows.h"
#include "backends/cudnn/gemm.h"
#include "backends/cudnn/layer_kernels.h"

namespace runner::cudnn {
namespace {

// The sizes of one layer's attention.
struct Sizes {
  int images = 0, tokens = 0, features = 0, heads = 1, head = 1;
  long long scores() const { return static_cast<long long>(tokens) * tokens; }  // per head
  long long qkv_image() const { return 3LL * tokens * features; }  // an image's qkv values
  long long context_image() const { return static_cast<long long>(tokens) * features; }
};

// `data` advanced by `elements` of `type`.
const void* advanced(const void* data, long long elements, DataType type) {
  return static_cast<const char*>(data) + elements * static_cast<long long>(element_size(type));
}
void* advanced(void* data, long long elements, DataType type) {
  return static_cast<char*>(data) + elements * static_cast<long long>(element_size(type));
}

// For each head: C = alpha op(A) op(B) over the images (gemm.h), the operands given per head.
template <typename Operands>
void per_head(const Libraries* libs, const Sizes& s, int m, int n, int k, float alpha,
              DataType type, Operands operands) {
  for (int h = 0; h < s.heads; ++h) {
    const auto [a, b, c, ldc, stride_c] = operands(h);
    row_major_gemm_batched(libs->cublas, m, n, k, alpha, a, b, c, ldc, stride_c, s.images, type);
  }
}

class SelfAttention : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const bool bias = node.attrs.bias;
    qkv_.emplace(node.params[0], bias ? &node.params[1] : nullptr, node.name + ".qkv");
    proj_.emplace(node.params[bias ? 2 : 1], bias ? &node.params[3] : nullptr, node.name + ".proj");
    const Shape& out = node.output;
    s_ = {ctx.batch, out.h, out.c, node.attrs.heads, out.c / node.attrs.heads};
    scale_ = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s_.head)));
    qkv_rows_ = ctx.allocate(Shape{3 * out.c, out.h, 1, false, true}, node.name + " qkv");
    qkv_->forward(ctx, inputs[0], qkv_rows_);
    // (N, H, T, T) values (the descriptor's dims are not read).
    probs_ = ctx.allocate(Shape{out.h, out.h, s_.heads}, node.name + " probabilities");
    dropped_ = probs_;
    if (ctx.training && node.attrs.p > 0) {
      dropped_ = ctx.allocate_like(probs_, node.name + " dropped probabilities");
      factors_ = ctx.memory->array<float>(probs_.elements(), node.name + " dropout mask");
    }
    context_ = ctx.allocate(out, node.name + " context");
    const DeviceTensor y = ctx.allocate(out, node.name + " output");

    const Libraries* libs = ctx.libs;
    const Sizes s = s_;
    const float scale = scale_, p = static_cast<float>(node.attrs.p);
    const DeviceTensor qkv = qkv_rows_, probs = probs_, dropped = dropped_, context = context_;
    float* factors = factors_;
    const std::uint64_t seed = ctx.seed, layer = dropout_math::layer_key(node.name.c_str());
    const long long* step = ctx.step;
    ctx.forward->add(node.name + " attention", [=](cudaStream_t stream) {
      const DataType type = qkv.type;
      per_head(libs, s, s.tokens, s.tokens, s.head, scale, type, [&](int h) {  // S = Q K^T
        return std::tuple{part(qkv, s, 0, h, false), part(qkv, s, 1, h, true),
                          advanced(probs.data, h * s.scores(), type), s.tokens,
                          s.heads * s.scores()};
      });
      kernels::softmax_rows(probs.data, s.images * s.heads * s.tokens, s.tokens, type, stream);
      if (factors) {
        kernels::dropout_forward(seed, step, layer, p, probs.data, dropped.data, factors,
                                 probs.elements(), type, stream);
      }
      per_head(libs, s, s.tokens, s.head, s.tokens, 1.f, type, [&](int h) {  // O = P' V
        return std::tuple{scores(dropped, s, h, false), part(qkv, s, 2, h, false),
                          advanced(context.data, h * s.head, type), s.features, s.context_image()};
      });
    });
    proj_->forward(ctx, context_, y);
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const DeviceTensor context_grad = ctx.allocate_like(context_, node.name + " context gradient");
    proj_->backward(ctx, output_grad, context_grad);
    const DeviceTensor qkv_grad = ctx.allocate_like(qkv_rows_, node.name + " qkv gradient");
    const DeviceTensor probs_grad = ctx.allocate_like(probs_, node.name + " probability gradient");
    const Libraries* libs = ctx.libs;
    const Sizes s = s_;
    const float scale = scale_;
    const DeviceTensor qkv = qkv_rows_, probs = probs_, dropped = dropped_;
    const float* factors = factors_;
    ctx.backward->add(node.name + " attention backward", [=](cudaStream_t stream) {
      const DataType type = qkv.type;
      const RowMatrices dout{context_grad.data, s.features, s.context_image()};
      per_head(libs, s, s.tokens, s.head, s.tokens, 1.f, type, [&](int h) {  // dV = P'^T dO
        return std::tuple{scores(dropped, s, h, true), at_head(dout, s, h, type),
                          advanced(qkv_grad.data, 2LL * s.features + h * s.head, type),
                          3 * s.features, s.qkv_image()};
      });
      per_head(libs, s, s.tokens, s.tokens, s.head, 1.f, type, [&](int h) {  // dP' = dO V^T
        return std::tuple{at_head(dout, s, h, type), part(qkv, s, 2, h, true),
                          advanced(probs_grad.data, h * s.scores(), type), s.tokens,
                          s.heads * s.scores()};
      });
      if (factors) {
        kernels::multiply(probs_grad.data, factors, probs_grad.data, probs_grad.elements(), type,
                          stream);
      }
      kernels::softmax_rows_backward(probs.data, probs_grad.data, s.images * s.heads * s.tokens,
                                     s.tokens, type, stream);                  // dS, in place
      per_head(libs, s, s.tokens, s.head, s.tokens, scale, type, [&](int h) {  // dQ = dS K
        return std::tuple{scores(probs_grad, s, h, false), part(qkv, s, 1, h, false),
                          advanced(qkv_grad.data, h * s.head, type), 3 * s.features, s.qkv_image()};
      });
      per_head(libs, s, s.tokens, s.head, s.tokens, scale, type, [&](int h) {  // dK = dS^T Q
        return std::tuple{scores(probs_grad, s, h, true), part(qkv, s, 0, h, false),
                          advanced(qkv_grad.data, 1LL * s.features + h * s.head, type),
                          3 * s.features, s.qkv_image()};
      });
    });
    qkv_->backward(ctx, qkv_grad, input_grads[0]);
  }

 private:
  // Head h's part (0 q, 1 k, 2 v) of the qkv rows: (T, d) per image, rows 3C apart.
  static RowMatrices part(const DeviceTensor& qkv, const Sizes& s, int which, int h,
                          bool transpose) {
    return {advanced(static_cast<const void*>(qkv.data),
                     static_cast<long long>(which) * s.features + h * s.head, qkv.type),
            3 * s.features, s.qkv_image(), transpose};
  }
  // Head h's (T, T) scores (or probabilities, or their gradient) per image.
  static RowMatrices scores(const DeviceTensor& m, const Sizes& s, int h, bool transpose) {
    return {advanced(static_cast<const void*>(m.data), h * s.scores(), m.type), s.tokens,
            s.heads * s.scores(), transpose};
  }
  // Head h's columns of (T, C) rows per image.
  static RowMatrices at_head(const RowMatrices& rows, const Sizes& s, int h, DataType type) {
    RowMatrices m = rows;
    m.data = advanced(rows.data, static_cast<long long>(h) * s.head, type);
    return m;
  }

  std::optional<DenseRows> qkv_, proj_;
  Sizes s_;
  float scale_ = 1;
  DeviceTensor qkv_rows_;     // (N*T, 3C)
  DeviceTensor probs_;        // P (N, H, T, T)
  DeviceTensor dropped_;      // P', probs_ itself without dropout
  DeviceTensor context_;      // O as (N*T, C) rows
  float* factors_ = nullptr;  // attention dropout's, (N, H, T, T) FP32
};

}  // namespace

RUNNER_CUDNN_LAYER(self_attention) {
  return std::make_unique<SelfAttention>();
}

}  // namespace runner::cudnn
