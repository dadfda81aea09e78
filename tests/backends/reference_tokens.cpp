// The reference's token kinds and drop_path (reference_tokens.h): loops written for clarity.
#include "reference_tokens.h"

#include "backends/common/dropout_math.h"

namespace runner::testing {
namespace {

// Value (n, c, t) of a batch of T-token sequences of C features, reference order (N, C, T).
struct TokenIndex {
  int features, tokens;
  std::size_t operator()(int n, int c, int t) const {
    return (static_cast<std::size_t>(n) * features + c) * tokens + t;
  }
};

}  // namespace

bool is_token_kind(const std::string& type) {
  for (const char* kind :
       {"to_tokens", "class_token", "position_embedding", "token_select", "drop_path"}) {
    if (type == kind) return true;
  }
  return false;
}

double drop_path_factor(const Node& node, int n, bool training) {
  if (!training) return 1.0;
  const float p = static_cast<float>(node.attrs.p);
  const std::uint64_t key =
      dropout_math::step_key(0, 0, dropout_math::layer_key(node.name.c_str()));
  return dropout_math::keeps(key, n, p) ? 1.0 / (1.0 - p) : 0.0;
}

Values token_forward(const Node& node, const Shape& in, const Values& x, int batch, bool training,
                     const std::map<std::string, Values>& params) {
  const int C = in.c, T = in.h;
  const TokenIndex at{C, T}, out_at{C, node.output.h};
  Values y(static_cast<std::size_t>(batch) * node.output.elements(), 0.0);
  if (node.type == "to_tokens") return x;  // (N, C, H, W) is (N, C, T) in NCHW order
  if (node.type == "drop_path") {
    const std::size_t per_image = x.size() / batch;
    for (std::size_t v = 0; v < x.size(); ++v)
      y[v] = x[v] * drop_path_factor(node, static_cast<int>(v / per_image), training);
    return y;
  }
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < C; ++c) {
      if (node.type == "class_token") {
        y[out_at(n, c, 0)] = params.at(node.name)[c];
        for (int t = 0; t < T; ++t) y[out_at(n, c, t + 1)] = x[at(n, c, t)];
      } else if (node.type == "position_embedding") {
        for (int t = 0; t < T; ++t)
          y[at(n, c, t)] = x[at(n, c, t)] + params.at(node.name)[t * C + c];
      } else if (node.attrs.select == TokenSelect::class_token) {  // token_select
        y[n * C + c] = x[at(n, c, 0)];
      } else {
        for (int t = 0; t < T; ++t) y[n * C + c] += x[at(n, c, t)] / T;
      }
    }
  return y;
}

void token_backward(const Node& node, const Shape& in, const Values& dy, Values* dx, int batch,
                    std::map<std::string, Values>& param_grads) {
  const int C = in.c, T = in.h;
  const TokenIndex at{C, T}, out_at{C, node.output.h};
  if (node.type == "class_token" || node.type == "position_embedding") {
    param_grads[node.name].assign(node.params[0].elements(), 0.0);
  }
  if (node.type == "to_tokens" || node.type == "drop_path") {
    const std::size_t per_image = dy.size() / batch;
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v)
        (*dx)[v] += dy[v] * (node.type == "to_tokens"
                                 ? 1.0
                                 : drop_path_factor(node, static_cast<int>(v / per_image), true));
    return;
  }
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < C; ++c) {
      if (node.type == "class_token") {
        param_grads[node.name][c] += dy[out_at(n, c, 0)];
        if (dx)
          for (int t = 0; t < T; ++t) (*dx)[at(n, c, t)] += dy[out_at(n, c, t + 1)];
      } else if (node.type == "position_embedding") {
        for (int t = 0; t < T; ++t) {
          param_grads[node.name][t * C + c] += dy[at(n, c, t)];
          if (dx) (*dx)[at(n, c, t)] += dy[at(n, c, t)];
        }
      } else if (dx && node.attrs.select == TokenSelect::class_token) {  // token_select
        (*dx)[at(n, c, 0)] += dy[n * C + c];
      } else if (dx) {
        for (int t = 0; t < T; ++t) (*dx)[at(n, c, t)] += dy[n * C + c] / T;
      }
    }
}

}  // namespace runner::testing
