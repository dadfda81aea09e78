// The reference's self_attention (reference_attention.h): every intermediate kept, loops written
// for clarity. Per image n and head h, with d = C / heads:
//   q, k, v (T, d) from qkv = x W_qkv^T + b_qkv, q = qkv[:, h d + i], k C and v 2C further;
//   P = softmax(q k^T / sqrt(d)) by rows; P' = P times dropout's factors; O = P' v;
//   y = O W_proj^T + b_proj, O (T, C) the heads side by side.
#include "reference_attention.h"

#include <cmath>

#include "backends/common/dropout_math.h"

namespace runner::testing {
namespace {

struct Sizes {
  int batch, tokens, features, heads, head;
};

Sizes sizes_of(const Node& node, int batch) {
  const int c = node.output.c;
  return {batch, node.output.h, c, node.attrs.heads, c / node.attrs.heads};
}

// Value (n, c, t) of a token sequence in the reference's order.
std::size_t token_at(const Sizes& s, int n, int c, int t) {
  return (static_cast<std::size_t>(n) * s.features + c) * s.tokens + t;
}

// Every intermediate of the forward pass, plain row-major arrays.
struct Intermediates {
  Values qkv;      // (N, T, 3C)
  Values probs;    // P (N, H, T, T)
  Values factors;  // dropout's, (N, H, T, T); ones without dropout
  Values context;  // O (N, T, C)
};

std::size_t qkv_at(const Sizes& s, int n, int t, int part, int h, int i) {
  return (static_cast<std::size_t>(n) * s.tokens + t) * 3 * s.features + part * s.features +
         h * s.head + i;
}
std::size_t prob_at(const Sizes& s, int n, int h, int t, int u) {
  return ((static_cast<std::size_t>(n) * s.heads + h) * s.tokens + t) * s.tokens + u;
}
std::size_t context_at(const Sizes& s, int n, int t, int j) {
  return (static_cast<std::size_t>(n) * s.tokens + t) * s.features + j;
}

double bias(const Node& node, const std::map<std::string, Values>& params, const char* part,
            int j) {
  return node.attrs.bias ? params.at(node.name + part + ".bias")[j] : 0.0;
}

Intermediates forward_intermediates(const Node& node, const Sizes& s, const Values& x,
                                    bool training, const std::map<std::string, Values>& params) {
  const Values& w = params.at(node.name + ".qkv.weight");
  const int C = s.features;
  Intermediates m;
  m.qkv.assign(static_cast<std::size_t>(s.batch) * s.tokens * 3 * C, 0.0);
  for (int n = 0; n < s.batch; ++n)
    for (int t = 0; t < s.tokens; ++t)
      for (int j = 0; j < 3 * C; ++j) {
        double sum = bias(node, params, ".qkv", j);
        for (int c = 0; c < C; ++c) sum += w[j * C + c] * x[token_at(s, n, c, t)];
        m.qkv[(static_cast<std::size_t>(n) * s.tokens + t) * 3 * C + j] = sum;
      }
  const double scale = 1 / std::sqrt(static_cast<double>(s.head));
  const float p = static_cast<float>(node.attrs.p);
  const std::uint64_t key =
      dropout_math::step_key(0, 0, dropout_math::layer_key(node.name.c_str()));
  m.probs.assign(static_cast<std::size_t>(s.batch) * s.heads * s.tokens * s.tokens, 0.0);
  m.factors.assign(m.probs.size(), 1.0);
  m.context.assign(static_cast<std::size_t>(s.batch) * s.tokens * C, 0.0);
  for (int n = 0; n < s.batch; ++n)
    for (int h = 0; h < s.heads; ++h)
      for (int t = 0; t < s.tokens; ++t) {
        double max = -INFINITY, total = 0;
        Values scores(s.tokens);
        for (int u = 0; u < s.tokens; ++u) {
          for (int i = 0; i < s.head; ++i)
            scores[u] += m.qkv[qkv_at(s, n, t, 0, h, i)] * m.qkv[qkv_at(s, n, u, 1, h, i)];
          scores[u] *= scale;
          max = std::max(max, scores[u]);
        }
        for (int u = 0; u < s.tokens; ++u) total += std::exp(scores[u] - max);
        for (int u = 0; u < s.tokens; ++u) {
          const std::size_t at = prob_at(s, n, h, t, u);
          m.probs[at] = std::exp(scores[u] - max) / total;
          if (training && p > 0)
            m.factors[at] = dropout_math::keeps(key, at, p) ? 1.0 / (1.0 - p) : 0.0;
          for (int i = 0; i < s.head; ++i)
            m.context[context_at(s, n, t, h * s.head + i)] +=
                m.probs[at] * m.factors[at] * m.qkv[qkv_at(s, n, u, 2, h, i)];
        }
      }
  return m;
}

}  // namespace

Values attention_forward(const Node& node, const Values& x, int batch, bool training,
                         const std::map<std::string, Values>& params) {
  const Sizes s = sizes_of(node, batch);
  const Intermediates m = forward_intermediates(node, s, x, training, params);
  const Values& w = params.at(node.name + ".proj.weight");
  Values y(x.size(), 0.0);
  for (int n = 0; n < batch; ++n)
    for (int t = 0; t < s.tokens; ++t)
      for (int c = 0; c < s.features; ++c) {
        double sum = bias(node, params, ".proj", c);
        for (int j = 0; j < s.features; ++j)
          sum += w[c * s.features + j] * m.context[context_at(s, n, t, j)];
        y[token_at(s, n, c, t)] = sum;
      }
  return y;
}

void attention_backward(const Node& node, const Values& x, const Values& dy, Values* dx, int batch,
                        const std::map<std::string, Values>& params,
                        std::map<std::string, Values>& param_grads) {
  const Sizes s = sizes_of(node, batch);
  const int C = s.features;
  const Intermediates m = forward_intermediates(node, s, x, true, params);
  const Values& w_proj = params.at(node.name + ".proj.weight");
  const Values& w_qkv = params.at(node.name + ".qkv.weight");
  Values& dw_proj = param_grads[node.name + ".proj.weight"];
  Values& dw_qkv = param_grads[node.name + ".qkv.weight"];
  dw_proj.assign(w_proj.size(), 0.0);
  dw_qkv.assign(w_qkv.size(), 0.0);
  Values db_proj(C, 0.0), db_qkv(3 * C, 0.0);

  // proj: dO and proj's gradients.
  Values dcontext(m.context.size(), 0.0);
  for (int n = 0; n < batch; ++n)
    for (int t = 0; t < s.tokens; ++t)
      for (int c = 0; c < C; ++c) {
        const double g = dy[token_at(s, n, c, t)];
        db_proj[c] += g;
        for (int j = 0; j < C; ++j) {
          dw_proj[c * C + j] += g * m.context[context_at(s, n, t, j)];
          dcontext[context_at(s, n, t, j)] += g * w_proj[c * C + j];
        }
      }
  // The attention, per image and head: dV, dP (through dropout), dS, dQ, dK.
  const double scale = 1 / std::sqrt(static_cast<double>(s.head));
  Values dqkv(m.qkv.size(), 0.0);
  for (int n = 0; n < batch; ++n)
    for (int h = 0; h < s.heads; ++h)
      for (int t = 0; t < s.tokens; ++t) {
        Values dprobs(s.tokens, 0.0);
        double weighted = 0;  // sum over u of P dP
        for (int u = 0; u < s.tokens; ++u) {
          const std::size_t at = prob_at(s, n, h, t, u);
          for (int i = 0; i < s.head; ++i) {
            const double dout = dcontext[context_at(s, n, t, h * s.head + i)];
            dqkv[qkv_at(s, n, u, 2, h, i)] += m.probs[at] * m.factors[at] * dout;
            dprobs[u] += dout * m.qkv[qkv_at(s, n, u, 2, h, i)] * m.factors[at];
          }
          weighted += m.probs[at] * dprobs[u];
        }
        for (int u = 0; u < s.tokens; ++u) {
          const double dscore = m.probs[prob_at(s, n, h, t, u)] * (dprobs[u] - weighted) * scale;
          for (int i = 0; i < s.head; ++i) {
            dqkv[qkv_at(s, n, t, 0, h, i)] += dscore * m.qkv[qkv_at(s, n, u, 1, h, i)];
            dqkv[qkv_at(s, n, u, 1, h, i)] += dscore * m.qkv[qkv_at(s, n, t, 0, h, i)];
          }
        }
      }
  // qkv: its gradients and the input's.
  for (int n = 0; n < batch; ++n)
    for (int t = 0; t < s.tokens; ++t)
      for (int j = 0; j < 3 * C; ++j) {
        const double g = dqkv[(static_cast<std::size_t>(n) * s.tokens + t) * 3 * C + j];
        db_qkv[j] += g;
        for (int c = 0; c < C; ++c) {
          dw_qkv[j * C + c] += g * x[token_at(s, n, c, t)];
          if (dx) (*dx)[token_at(s, n, c, t)] += g * w_qkv[j * C + c];
        }
      }
  if (node.attrs.bias) {
    param_grads[node.name + ".proj.bias"] = db_proj;
    param_grads[node.name + ".qkv.bias"] = db_qkv;
  }
}

}  // namespace runner::testing
