// The naive reference: loops written for clarity, not speed.
#include "reference_model.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "backends/common/dropout_math.h"
#include "reference_attention.h"
#include "reference_tokens.h"

namespace runner::testing {
namespace {

struct Dims {
  int c, h, w;
};
Dims dims_of(const Shape& s) {
  return {s.c, s.h, s.w};
}

// Visits every (input position, output position) pair of a sliding window; `visit` gets the
// flat input and output indices of one sample-channel plane, or -1 for a padded position.
template <typename Visit>
void for_each_window(const Node& node, Dims in, Dims out, Visit visit) {
  const LayerAttrs& a = node.attrs;
  for (int y = 0; y < out.h; ++y) {
    for (int x = 0; x < out.w; ++x) {
      for (int ky = 0; ky < a.kernel_h; ++ky) {
        for (int kx = 0; kx < a.kernel_w; ++kx) {
          int iy = y * a.stride_h - a.pad_h + ky * a.dilation_h;
          int ix = x * a.stride_w - a.pad_w + kx * a.dilation_w;
          bool inside = iy >= 0 && iy < in.h && ix >= 0 && ix < in.w;
          visit(inside ? iy * in.w + ix : -1, y * out.w + x, ky * a.kernel_w + kx);
        }
      }
    }
  }
}

// A grouped convolution's wiring: output o reads the `inputs` channels of its group, and its
// weight's j-th input channel is input channel input(o, j).
struct ConvGroups {
  ConvGroups(const Node& node, Dims in, Dims out)
      : inputs(in.c / node.attrs.groups), outputs(out.c / node.attrs.groups) {}
  int input(int o, int j) const { return o / outputs * inputs + j; }
  int inputs, outputs;
};

// Visits (input k, index v in it, index in the output) of a concat along dimension 1: per
// image, the inputs' values one after another (NCHW keeps each input's channels together).
template <typename Visit>
void for_each_concat_value(const std::vector<const Values*>& inputs, int batch, Visit visit) {
  std::size_t out = 0;
  for (int n = 0; n < batch; ++n)
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::size_t per_image = inputs[k]->size() / batch;
      for (std::size_t i = 0; i < per_image; ++i) visit(k, n * per_image + i, out++);
    }
}

// Dropout's factor for value v of the batch at the first step (step 0) of a run with seed 0,
// which is what the tests' programs run; 1 in evaluation.
// The mask is drawn in PyTorch's order of the values, which for tokens is (N, T, C): value v of
// the reference's (N, C, T) is value (n, t, c) there.
double dropout_factor(const Node& node, std::size_t v, bool training) {
  if (!training) return 1.0;
  const float p = static_cast<float>(node.attrs.p);
  const std::uint64_t key =
      dropout_math::step_key(0, 0, dropout_math::layer_key(node.name.c_str()));
  if (node.output.tokens) {
    const std::size_t features = node.output.c, tokens = node.output.h;
    const std::size_t n = v / (features * tokens), c = v / tokens % features, t = v % tokens;
    v = (n * tokens + t) * features + c;
  }
  return dropout_math::keeps(key, v, p) ? 1.0 / (1.0 - p) : 0.0;
}

bool is_activation(const std::string& type) {
  for (const char* kind :
       {"leaky_relu", "gelu", "sigmoid", "tanh", "silu", "relu6", "hardswish", "hardsigmoid"}) {
    if (type == kind) return true;
  }
  return false;
}

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}
double relu6(double x) {
  return std::min(std::max(x, 0.0), 6.0);
}

// GELU's tanh form: 0.5 x (1 + tanh(u(x))), u = sqrt(2 / pi) (x + 0.044715 x^3).
constexpr double kGeluCubic = 0.044715;
double gelu_tanh_argument(double x) {
  return std::sqrt(2 / std::acos(-1.0)) * (x + kGeluCubic * x * x * x);
}

double activation(const Node& node, double x) {
  if (node.type == "leaky_relu") return x > 0 ? x : x * node.attrs.negative_slope;
  if (node.type == "gelu" && node.attrs.approximate == GeluApproximation::tanh) {
    return 0.5 * x * (1 + std::tanh(gelu_tanh_argument(x)));
  }
  if (node.type == "gelu") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (node.type == "sigmoid") return sigmoid(x);
  if (node.type == "silu") return x * sigmoid(x);
  if (node.type == "relu6") return relu6(x);
  if (node.type == "hardswish") return x * relu6(x + 3) / 6;
  if (node.type == "hardsigmoid") return relu6(x + 3) / 6;
  return std::tanh(x);
}

// At the kinks, PyTorch's autograd: relu6 passes nothing at 0 and 6, hardsigmoid 1/6 strictly
// inside (-3, 3), hardswish x/3 + 1/2 on the closed [-3, 3] (activation_golden.json).
double activation_derivative(const Node& node, double x) {
  if (node.type == "leaky_relu") return x > 0 ? 1 : node.attrs.negative_slope;
  if (node.type == "gelu" && node.attrs.approximate == GeluApproximation::tanh) {
    const double t = std::tanh(gelu_tanh_argument(x));
    return 0.5 * (1 + t) +
           0.5 * x * (1 - t * t) * std::sqrt(2 / std::acos(-1.0)) * (1 + 3 * kGeluCubic * x * x);
  }
  if (node.type == "gelu") {
    return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
           x * std::exp(-0.5 * x * x) / std::sqrt(2 * std::acos(-1.0));
  }
  if (node.type == "silu") return sigmoid(x) * (1 + x * (1 - sigmoid(x)));
  if (node.type == "relu6") return x > 0 && x < 6 ? 1 : 0;
  if (node.type == "hardswish") return x < -3 ? 0 : (x <= 3 ? x / 3 + 0.5 : 1);
  if (node.type == "hardsigmoid") return x > -3 && x < 3 ? 1.0 / 6 : 0;
  const double y = activation(node, x);
  return node.type == "sigmoid" ? y * (1 - y) : 1 - y * y;
}

// mul's second input: of the first's shape, or one value per channel shared by `spread`
// positions; value v of the first meets gate value v / spread.
std::size_t gate_spread(const std::vector<const Values*>& inputs) {
  return inputs[0]->size() / inputs[1]->size();
}

// Batch norm's per-channel statistics over (N, H, W): the batch's (biased variance) in training,
// the running ones in evaluation.
struct ChannelStats {
  Values mean, var;
};

ChannelStats batch_stats(const Values& x, Dims in, int batch) {
  const int plane = in.h * in.w;
  const double count = static_cast<double>(batch) * plane;
  ChannelStats s{Values(in.c, 0.0), Values(in.c, 0.0)};
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < in.c; ++c)
      for (int p = 0; p < plane; ++p) s.mean[c] += x[(n * in.c + c) * plane + p] / count;
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < in.c; ++c)
      for (int p = 0; p < plane; ++p) {
        double d = x[(n * in.c + c) * plane + p] - s.mean[c];
        s.var[c] += d * d / count;
      }
  return s;
}

ChannelStats norm_stats(const Node& node, const Values& x, Dims in, int batch, bool training,
                        const std::map<std::string, Values>& params) {
  if (training) return batch_stats(x, in, batch);
  return {params.at(node.name + ".running_mean"), params.at(node.name + ".running_var")};
}

double norm_weight(const Node& node, const std::map<std::string, Values>& params, int c) {
  return node.attrs.affine ? params.at(node.name + ".weight")[c] : 1.0;
}

// layer_norm's and group_norm's statistics sets: per image, one per position over the channels
// (layer_norm) or one per group of channels over those channels at every position (group_norm).
// Visits (set over the batch, value, channel) for every value.
template <typename Visit>
void for_each_norm_value(const Node& node, Dims in, int batch, Visit visit) {
  const int plane = in.h * in.w, groups = node.attrs.groups;
  const bool by_group = node.type == "group_norm";
  for (int n = 0; n < batch; ++n)
    for (int c = 0; c < in.c; ++c)
      for (int p = 0; p < plane; ++p) {
        const int set = by_group ? n * groups + c / (in.c / groups) : n * plane + p;
        visit(set, (n * in.c + c) * plane + p, c);
      }
}

bool is_per_image_norm(const std::string& type) {
  return type == "layer_norm" || type == "group_norm";
}

// Each set's mean and 1 / sqrt(biased variance + eps), and its count of values.
struct SetStats {
  Values mean, inverse_std;
  double size = 0;
};

SetStats per_image_norm_stats(const Node& node, const Values& x, Dims in, int batch) {
  const bool by_group = node.type == "group_norm";
  const int sets = batch * (by_group ? node.attrs.groups : in.h * in.w);
  const double size = static_cast<double>(batch) * in.c * in.h * in.w / sets;
  Values mean(sets, 0.0), var(sets, 0.0);
  for_each_norm_value(node, in, batch, [&](int set, int v, int) { mean[set] += x[v] / size; });
  for_each_norm_value(node, in, batch, [&](int set, int v, int) {
    var[set] += (x[v] - mean[set]) * (x[v] - mean[set]) / size;
  });
  for (double& v : var) v = 1 / std::sqrt(v + node.attrs.eps);
  return {mean, var, size};
}

double norm_bias(const Node& node, const std::map<std::string, Values>& params, int c) {
  return node.attrs.affine ? params.at(node.name + ".bias")[c] : 0.0;
}

Values layer_forward(const Node& node, const std::vector<const Values*>& inputs, const Dims in,
                     const Dims out, int batch, bool training,
                     const std::map<std::string, Values>& params) {
  const int in_plane = in.h * in.w, out_plane = out.h * out.w;
  Values y(static_cast<std::size_t>(batch) * out.c * out_plane, 0.0);
  const Values& x = *inputs[0];
  if (node.type == "conv2d") {
    const Values& w = params.at(node.name + ".weight");
    const int k = node.attrs.kernel_h * node.attrs.kernel_w;
    const ConvGroups g(node, in, out);
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int j = 0; j < g.inputs; ++j)
          for_each_window(node, in, out, [&](int ip, int op, int kp) {
            if (ip >= 0)
              y[(n * out.c + o) * out_plane + op] +=
                  w[(o * g.inputs + j) * k + kp] * x[(n * in.c + g.input(o, j)) * in_plane + ip];
          });
    if (node.attrs.bias) {
      const Values& b = params.at(node.name + ".bias");
      for (int n = 0; n < batch; ++n)
        for (int o = 0; o < out.c; ++o)
          for (int p = 0; p < out_plane; ++p) y[(n * out.c + o) * out_plane + p] += b[o];
    }
  } else if (node.type == "max_pool2d") {
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = -std::numeric_limits<double>::infinity();
    for (int nc = 0; nc < batch * in.c; ++nc)
      for_each_window(node, in, out, [&](int ip, int op, int) {
        if (ip >= 0)
          y[nc * out_plane + op] = std::max(y[nc * out_plane + op], x[nc * in_plane + ip]);
      });
  } else if (node.type == "avg_pool2d") {
    const double k = node.attrs.kernel_h * node.attrs.kernel_w;
    for (int nc = 0; nc < batch * in.c; ++nc)
      for_each_window(node, in, out, [&](int ip, int op, int) {
        if (ip >= 0) y[nc * out_plane + op] += x[nc * in_plane + ip] / k;
      });
  } else if (node.type == "global_avg_pool2d") {
    for (int nc = 0; nc < batch * in.c; ++nc)
      for (int p = 0; p < in_plane; ++p) y[nc] += x[nc * in_plane + p] / in_plane;
  } else if (node.type == "batch_norm2d") {
    ChannelStats s = norm_stats(node, x, in, batch, training, params);
    for (int n = 0; n < batch; ++n)
      for (int c = 0; c < in.c; ++c) {
        double inv = 1 / std::sqrt(s.var[c] + node.attrs.eps);
        double shift = node.attrs.affine ? params.at(node.name + ".bias")[c] : 0.0;
        for (int p = 0; p < in_plane; ++p) {
          std::size_t v = (n * in.c + c) * in_plane + p;
          y[v] = (x[v] - s.mean[c]) * inv * norm_weight(node, params, c) + shift;
        }
      }
  } else if (is_per_image_norm(node.type)) {
    const SetStats s = per_image_norm_stats(node, x, in, batch);
    for_each_norm_value(node, in, batch, [&](int set, int v, int c) {
      y[v] = (x[v] - s.mean[set]) * s.inverse_std[set] * norm_weight(node, params, c) +
             norm_bias(node, params, c);
    });
  } else if (node.type == "dropout") {
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = x[v] * dropout_factor(node, v, training);
  } else if (node.type == "relu") {
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = std::max(0.0, x[v]);
  } else if (is_activation(node.type)) {
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = activation(node, x[v]);
  } else if (node.type == "flatten") {
    y = x;
  } else if (node.type == "linear") {  // at each position: each token of a sequence
    const Values& w = params.at(node.name + ".weight");
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int p = 0; p < in_plane; ++p) {
          double sum = node.attrs.bias ? params.at(node.name + ".bias")[o] : 0.0;
          for (int i = 0; i < in.c; ++i) sum += w[o * in.c + i] * x[(n * in.c + i) * in_plane + p];
          y[(n * out.c + o) * out_plane + p] = sum;
        }
  } else if (node.type == "add") {
    for (const Values* input : inputs)
      for (std::size_t v = 0; v < y.size(); ++v) y[v] += (*input)[v];
  } else if (node.type == "mul") {
    const std::size_t spread = gate_spread(inputs);
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = x[v] * (*inputs[1])[v / spread];
  } else if (node.type == "scale") {
    const Values& w = params.at(node.name + ".weight");
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = x[v] * w[v / in_plane % in.c];
  } else if (node.type == "concat") {
    for_each_concat_value(inputs, batch, [&](std::size_t k, std::size_t v, std::size_t out) {
      y[out] = (*inputs[k])[v];
    });
  } else {
    throw std::logic_error("reference has no layer " + node.type);
  }
  return y;
}

// Accumulates the gradients of one layer: into input_grads[k] (may be null) and params.
void layer_backward(const Node& node, const std::vector<const Values*>& inputs, const Values& y,
                    const Values& dy, std::vector<Values*>& input_grads, const Dims in,
                    const Dims out, int batch, const std::map<std::string, Values>& params,
                    std::map<std::string, Values>& param_grads) {
  const int in_plane = in.h * in.w, out_plane = out.h * out.w;
  const Values& x = *inputs[0];
  Values* dx = input_grads[0];
  if (node.type == "conv2d") {
    const Values& w = params.at(node.name + ".weight");
    Values& dw = param_grads[node.name + ".weight"];
    dw.assign(w.size(), 0.0);
    const int k = node.attrs.kernel_h * node.attrs.kernel_w;
    const ConvGroups groups(node, in, out);
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int j = 0; j < groups.inputs; ++j)
          for_each_window(node, in, out, [&](int ip, int op, int kp) {
            if (ip < 0) return;
            const int i = groups.input(o, j);
            const std::size_t wi = (o * groups.inputs + j) * k + kp;
            double g = dy[(n * out.c + o) * out_plane + op];
            dw[wi] += g * x[(n * in.c + i) * in_plane + ip];
            if (dx) (*dx)[(n * in.c + i) * in_plane + ip] += g * w[wi];
          });
    if (node.attrs.bias) {
      Values& db = param_grads[node.name + ".bias"];
      db.assign(out.c, 0.0);
      for (int n = 0; n < batch; ++n)
        for (int o = 0; o < out.c; ++o)
          for (int p = 0; p < out_plane; ++p) db[o] += dy[(n * out.c + o) * out_plane + p];
    }
  } else if (node.type == "max_pool2d") {
    if (!dx) return;
    for (int nc = 0; nc < batch * in.c; ++nc) {
      std::vector<bool> routed(out_plane, false);  // the first maximum gets the gradient
      for_each_window(node, in, out, [&](int ip, int op, int) {
        if (ip >= 0 && !routed[op] && x[nc * in_plane + ip] == y[nc * out_plane + op]) {
          (*dx)[nc * in_plane + ip] += dy[nc * out_plane + op];
          routed[op] = true;
        }
      });
    }
  } else if (node.type == "avg_pool2d") {
    if (!dx) return;
    const double k = node.attrs.kernel_h * node.attrs.kernel_w;
    for (int nc = 0; nc < batch * in.c; ++nc)
      for_each_window(node, in, out, [&](int ip, int op, int) {
        if (ip >= 0) (*dx)[nc * in_plane + ip] += dy[nc * out_plane + op] / k;
      });
  } else if (node.type == "global_avg_pool2d") {
    if (dx)
      for (int nc = 0; nc < batch * in.c; ++nc)
        for (int p = 0; p < in_plane; ++p) (*dx)[nc * in_plane + p] += dy[nc] / in_plane;
  } else if (node.type == "batch_norm2d") {  // training mode: through the batch statistics
    ChannelStats s = batch_stats(x, in, batch);
    const double count = static_cast<double>(batch) * in_plane;
    if (node.attrs.affine) {
      param_grads[node.name + ".weight"].assign(in.c, 0.0);
      param_grads[node.name + ".bias"].assign(in.c, 0.0);
    }
    for (int c = 0; c < in.c; ++c) {
      double inv = 1 / std::sqrt(s.var[c] + node.attrs.eps), sum_dy = 0, sum_dy_xhat = 0;
      for (int n = 0; n < batch; ++n)
        for (int p = 0; p < in_plane; ++p) {
          std::size_t v = (n * in.c + c) * in_plane + p;
          sum_dy += dy[v];
          sum_dy_xhat += dy[v] * (x[v] - s.mean[c]) * inv;
        }
      if (node.attrs.affine) {
        param_grads[node.name + ".weight"][c] = sum_dy_xhat;
        param_grads[node.name + ".bias"][c] = sum_dy;
      }
      if (!dx) continue;
      const double w = norm_weight(node, params, c);
      for (int n = 0; n < batch; ++n)
        for (int p = 0; p < in_plane; ++p) {
          std::size_t v = (n * in.c + c) * in_plane + p;
          double xhat = (x[v] - s.mean[c]) * inv;
          (*dx)[v] += w * inv * (dy[v] - sum_dy / count - xhat * sum_dy_xhat / count);
        }
    }
  } else if (is_per_image_norm(node.type)) {  // through each set's statistics
    const SetStats s = per_image_norm_stats(node, x, in, batch);
    Values sum_g(s.mean.size(), 0.0), sum_g_xhat(s.mean.size(), 0.0);
    Values dw(in.c, 0.0), db(in.c, 0.0);
    for_each_norm_value(node, in, batch, [&](int set, int v, int c) {
      const double xhat = (x[v] - s.mean[set]) * s.inverse_std[set];
      const double g = dy[v] * norm_weight(node, params, c);
      sum_g[set] += g;
      sum_g_xhat[set] += g * xhat;
      dw[c] += dy[v] * xhat;
      db[c] += dy[v];
    });
    if (node.attrs.affine) {
      param_grads[node.name + ".weight"] = dw;
      param_grads[node.name + ".bias"] = db;
    }
    if (dx)
      for_each_norm_value(node, in, batch, [&](int set, int v, int c) {
        const double xhat = (x[v] - s.mean[set]) * s.inverse_std[set];
        const double g = dy[v] * norm_weight(node, params, c);
        (*dx)[v] +=
            s.inverse_std[set] * (g - sum_g[set] / s.size - xhat * sum_g_xhat[set] / s.size);
      });
  } else if (node.type == "dropout") {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v) (*dx)[v] += dy[v] * dropout_factor(node, v, true);
  } else if (node.type == "relu") {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v) (*dx)[v] += x[v] > 0 ? dy[v] : 0.0;
  } else if (is_activation(node.type)) {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v)
        (*dx)[v] += dy[v] * activation_derivative(node, x[v]);
  } else if (node.type == "flatten") {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v) (*dx)[v] += dy[v];
  } else if (node.type == "linear") {
    const Values& w = params.at(node.name + ".weight");
    Values& dw = param_grads[node.name + ".weight"];
    dw.assign(w.size(), 0.0);
    if (node.attrs.bias) param_grads[node.name + ".bias"].assign(out.c, 0.0);
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int p = 0; p < in_plane; ++p) {
          double g = dy[(n * out.c + o) * out_plane + p];
          if (node.attrs.bias) param_grads[node.name + ".bias"][o] += g;
          for (int i = 0; i < in.c; ++i) {
            const std::size_t v = (n * in.c + i) * in_plane + p;
            dw[o * in.c + i] += g * x[v];
            if (dx) (*dx)[v] += g * w[o * in.c + i];
          }
        }
  } else if (node.type == "add") {
    for (Values* grad : input_grads)
      if (grad)
        for (std::size_t v = 0; v < dy.size(); ++v) (*grad)[v] += dy[v];
  } else if (node.type == "mul") {
    const std::size_t spread = gate_spread(inputs);
    for (std::size_t v = 0; v < dy.size(); ++v) {
      if (dx) (*dx)[v] += dy[v] * (*inputs[1])[v / spread];
      if (input_grads[1]) (*input_grads[1])[v / spread] += dy[v] * x[v];
    }
  } else if (node.type == "scale") {
    const Values& w = params.at(node.name + ".weight");
    Values& dw = param_grads[node.name + ".weight"];
    dw.assign(w.size(), 0.0);
    for (std::size_t v = 0; v < dy.size(); ++v) {
      const std::size_t c = v / in_plane % in.c;
      dw[c] += dy[v] * x[v];
      if (dx) (*dx)[v] += dy[v] * w[c];
    }
  } else if (node.type == "concat") {
    for_each_concat_value(inputs, batch, [&](std::size_t k, std::size_t v, std::size_t out) {
      if (input_grads[k]) (*input_grads[k])[v] += dy[out];
    });
  }
}

std::vector<const Values*> inputs_of(const Node& node, const Values& input,
                                     const std::vector<Values>& outputs) {
  std::vector<const Values*> inputs;
  for (int i : node.inputs) inputs.push_back(i == kDataInput ? &input : &outputs[i]);
  return inputs;
}

}  // namespace

std::vector<Values> ReferenceModel::forward(const Values& input, int batch, bool training) const {
  std::vector<Values> outputs;
  for (const Node& node : graph_.nodes) {
    auto shapes = graph_.input_shapes(node);
    const auto inputs = inputs_of(node, input, outputs);
    if (node.type == "self_attention") {
      outputs.push_back(attention_forward(node, *inputs[0], batch, training, params_));
    } else if (is_token_kind(node.type)) {
      outputs.push_back(token_forward(node, shapes[0], *inputs[0], batch, training, params_));
    } else {
      outputs.push_back(layer_forward(node, inputs, dims_of(shapes[0]), dims_of(node.output), batch,
                                      training, params_));
    }
  }
  return outputs;
}

Values ReferenceModel::logits(const Values& input, int batch) const {
  return forward(input, batch, false).back();
}

std::map<std::string, Values> ReferenceModel::buffers_after_step(const Values& input,
                                                                 int batch) const {
  std::vector<Values> outputs = forward(input, batch, true);
  std::map<std::string, Values> buffers;
  for (const Node& node : graph_.nodes) {
    if (node.type != "batch_norm2d") continue;
    const Values& x = *inputs_of(node, input, outputs)[0];
    const Dims in = dims_of(graph_.input_shapes(node)[0]);
    ChannelStats s = batch_stats(x, in, batch);
    const double count = static_cast<double>(batch) * in.h * in.w, m = node.attrs.momentum;
    Values mean = params_.at(node.name + ".running_mean");
    Values var = params_.at(node.name + ".running_var");
    for (int c = 0; c < in.c; ++c) {
      mean[c] = (1 - m) * mean[c] + m * s.mean[c];
      var[c] = (1 - m) * var[c] + m * s.var[c] * count / (count - 1);
    }
    buffers[node.name + ".running_mean"] = mean;
    buffers[node.name + ".running_var"] = var;
  }
  return buffers;
}

double ReferenceModel::loss(const Values& input, const std::vector<int>& labels) const {
  const int batch = static_cast<int>(labels.size()), classes = graph_.classes;
  Values z = forward(input, batch, true).back();
  double total = 0;
  for (int n = 0; n < batch; ++n) {
    double max = z[n * classes];
    for (int k = 1; k < classes; ++k) max = std::max(max, z[n * classes + k]);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(z[n * classes + k] - max);
    total += std::log(sum) + max - z[n * classes + labels[n]];
  }
  return total / batch;
}

std::map<std::string, Values> ReferenceModel::gradients(const Values& input,
                                                        const std::vector<int>& labels) const {
  const int batch = static_cast<int>(labels.size()), classes = graph_.classes;
  std::vector<Values> outputs = forward(input, batch, true);
  std::vector<Values> grads(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) grads[i].assign(outputs[i].size(), 0.0);

  const Values& z = outputs.back();
  for (int n = 0; n < batch; ++n) {  // softmax minus one-hot, over the batch mean
    double max = z[n * classes];
    for (int k = 1; k < classes; ++k) max = std::max(max, z[n * classes + k]);
    double sum = 0;
    for (int k = 0; k < classes; ++k) sum += std::exp(z[n * classes + k] - max);
    for (int k = 0; k < classes; ++k) {
      grads.back()[n * classes + k] =
          (std::exp(z[n * classes + k] - max) / sum - (k == labels[n] ? 1.0 : 0.0)) / batch;
    }
  }
  std::map<std::string, Values> param_grads;
  for (std::size_t i = graph_.nodes.size(); i-- > 0;) {
    const Node& node = graph_.nodes[i];
    std::vector<Values*> input_grads;
    for (int k : node.inputs) input_grads.push_back(k == kDataInput ? nullptr : &grads[k]);
    auto shapes = graph_.input_shapes(node);
    if (node.type == "self_attention") {
      attention_backward(node, *inputs_of(node, input, outputs)[0], grads[i], input_grads[0], batch,
                         params_, param_grads);
      continue;
    }
    if (is_token_kind(node.type)) {
      token_backward(node, shapes[0], grads[i], input_grads[0], batch, param_grads);
      continue;
    }
    layer_backward(node, inputs_of(node, input, outputs), outputs[i], grads[i], input_grads,
                   dims_of(shapes[0]), dims_of(node.output), batch, params_, param_grads);
  }
  return param_grads;
}

}  // namespace runner::testing
