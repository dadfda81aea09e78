// The naive reference: loops written for clarity, not speed.
#include "reference_model.h"

#include <cmath>
#include <limits>
#include <stdexcept>

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
          int iy = y * a.stride_h - a.pad_h + ky, ix = x * a.stride_w - a.pad_w + kx;
          bool inside = iy >= 0 && iy < in.h && ix >= 0 && ix < in.w;
          visit(inside ? iy * in.w + ix : -1, y * out.w + x, ky * a.kernel_w + kx);
        }
      }
    }
  }
}

Values layer_forward(const Node& node, const std::vector<const Values*>& inputs, const Dims in,
                     const Dims out, int batch, const std::map<std::string, Values>& params) {
  const int in_plane = in.h * in.w, out_plane = out.h * out.w;
  Values y(static_cast<std::size_t>(batch) * out.c * out_plane, 0.0);
  const Values& x = *inputs[0];
  if (node.type == "conv2d") {
    const Values& w = params.at(node.name + ".weight");
    const int k = node.attrs.kernel_h * node.attrs.kernel_w;
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int i = 0; i < in.c; ++i)
          for_each_window(node, in, out, [&](int ip, int op, int kp) {
            if (ip >= 0)
              y[(n * out.c + o) * out_plane + op] +=
                  w[(o * in.c + i) * k + kp] * x[(n * in.c + i) * in_plane + ip];
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
  } else if (node.type == "relu") {
    for (std::size_t v = 0; v < y.size(); ++v) y[v] = std::max(0.0, x[v]);
  } else if (node.type == "flatten") {
    y = x;
  } else if (node.type == "linear") {
    const Values& w = params.at(node.name + ".weight");
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o) {
        double sum = node.attrs.bias ? params.at(node.name + ".bias")[o] : 0.0;
        for (int i = 0; i < in.c; ++i) sum += w[o * in.c + i] * x[n * in.c + i];
        y[n * out.c + o] = sum;
      }
  } else if (node.type == "add") {
    for (const Values* input : inputs)
      for (std::size_t v = 0; v < y.size(); ++v) y[v] += (*input)[v];
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
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o)
        for (int i = 0; i < in.c; ++i)
          for_each_window(node, in, out, [&](int ip, int op, int kp) {
            if (ip < 0) return;
            double g = dy[(n * out.c + o) * out_plane + op];
            dw[(o * in.c + i) * k + kp] += g * x[(n * in.c + i) * in_plane + ip];
            if (dx) (*dx)[(n * in.c + i) * in_plane + ip] += g * w[(o * in.c + i) * k + kp];
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
  } else if (node.type == "relu") {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v) (*dx)[v] += x[v] > 0 ? dy[v] : 0.0;
  } else if (node.type == "flatten") {
    if (dx)
      for (std::size_t v = 0; v < dy.size(); ++v) (*dx)[v] += dy[v];
  } else if (node.type == "linear") {
    const Values& w = params.at(node.name + ".weight");
    Values& dw = param_grads[node.name + ".weight"];
    dw.assign(w.size(), 0.0);
    if (node.attrs.bias) param_grads[node.name + ".bias"].assign(out.c, 0.0);
    for (int n = 0; n < batch; ++n)
      for (int o = 0; o < out.c; ++o) {
        double g = dy[n * out.c + o];
        if (node.attrs.bias) param_grads[node.name + ".bias"][o] += g;
        for (int i = 0; i < in.c; ++i) {
          dw[o * in.c + i] += g * x[n * in.c + i];
          if (dx) (*dx)[n * in.c + i] += g * w[o * in.c + i];
        }
      }
  } else if (node.type == "add") {
    for (Values* grad : input_grads)
      if (grad)
        for (std::size_t v = 0; v < dy.size(); ++v) (*grad)[v] += dy[v];
  }
}

std::vector<const Values*> inputs_of(const Node& node, const Values& input,
                                     const std::vector<Values>& outputs) {
  std::vector<const Values*> inputs;
  for (int i : node.inputs) inputs.push_back(i == kDataInput ? &input : &outputs[i]);
  return inputs;
}

}  // namespace

std::vector<Values> ReferenceModel::forward(const Values& input, int batch) const {
  std::vector<Values> outputs;
  for (const Node& node : graph_.nodes) {
    auto shapes = graph_.input_shapes(node);
    outputs.push_back(layer_forward(node, inputs_of(node, input, outputs), dims_of(shapes[0]),
                                    dims_of(node.output), batch, params_));
  }
  return outputs;
}

Values ReferenceModel::logits(const Values& input, int batch) const {
  return forward(input, batch).back();
}

double ReferenceModel::loss(const Values& input, const std::vector<int>& labels) const {
  const int batch = static_cast<int>(labels.size()), classes = graph_.classes;
  Values z = logits(input, batch);
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
  std::vector<Values> outputs = forward(input, batch);
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
    layer_backward(node, inputs_of(node, input, outputs), outputs[i], grads[i], input_grads,
                   dims_of(shapes[0]), dims_of(node.output), batch, params_, param_grads);
  }
  return param_grads;
}

}  // namespace runner::testing
