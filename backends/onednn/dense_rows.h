// y = x W^T + b over the rows of a matrix on oneDNN, nn.Linear: an inner product forward, its
// weight (and bias) gradient and its data gradient. linear's layer and self_attention's two
// projections are made of it; token_rows reads a token sequence as the matrix of its tokens.
#pragma once

#include <optional>
#include <string>

#include "backends/onednn/build_context.h"

namespace runner::onednn {

// The token sequence `m` (N, C, T, 1) as the (N*T, C) matrix of its tokens: a view of its bytes
// in the token layout (reordered there first by a step appended to `steps` where it is not).
dnnl::memory token_rows(const BuildContext& ctx, const dnnl::memory& m, StepList& steps,
                        const std::string& label);

class DenseRows {
 public:
  // `bias` null: none. `label` names the steps ("fc", "fc backward weights", ...).
  DenseRows(const ParamSpec& weight, const ParamSpec* bias, std::string label)
      : weight_(weight), label_(std::move(label)) {
    if (bias) bias_ = *bias;
  }

  // Appends y = x W^T + b (x (rows, in), y plain (rows, out) in the activations' type, allocated
  // here) with the post-ops of `attr`; returns y.
  dnnl::memory forward(BuildContext& ctx, const dnnl::memory& x, const dnnl::primitive_attr& attr);
  // Appends the weight and bias gradients from dy (rows, out) and, when `dx` is given, dx
  // (rows, in) in dx's layout.
  void backward(BuildContext& ctx, const dnnl::memory& dy, const dnnl::memory& dx);

 private:
  ParamSpec weight_;
  std::optional<ParamSpec> bias_;
  std::string label_;
  dnnl::inner_product_forward::primitive_desc forward_pd_;
  dnnl::memory x_;
};

}  // namespace runner::onednn
