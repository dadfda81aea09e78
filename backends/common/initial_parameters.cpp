// PyTorch's default initialisation for conv and linear layers, from the experiment's seed, and
// the constant starts of the others (batch norm's ones and zeros, scale's init_value), and timm's
// normal starts of token embeddings.
#include <algorithm>
#include <cmath>

#include "backends/backend.h"
#include "runner/util/random.h"

namespace runner {

namespace {

void fill(const ParamSpec& spec, Random& random, std::vector<float>& values) {
  switch (spec.init) {
    case ParamInit::fan_in_uniform: {
      // kaiming_uniform_(a=sqrt(5)) for weights and the bias rule both give U(-b, b),
      // b = 1/sqrt(fan_in).
      const double bound = 1.0 / std::sqrt(static_cast<double>(spec.fan_in));
      for (float& v : values) v = static_cast<float>(random.uniform(-bound, bound));
      return;
    }
    case ParamInit::zeros:
      std::fill(values.begin(), values.end(), 0.f);
      return;
    case ParamInit::ones:
      std::fill(values.begin(), values.end(), 1.f);
      return;
    case ParamInit::constant:
      std::fill(values.begin(), values.end(), static_cast<float>(spec.constant));
      return;
    case ParamInit::normal:
      for (float& v : values) v = static_cast<float>(spec.stddev * random.normal());
      return;
    case ParamInit::truncated_normal:  // timm's trunc_normal_(std, a=-2, b=2): bounds absolute
      for (float& v : values) {
        double draw = spec.stddev * random.normal();
        while (draw < -2 || draw > 2) draw = spec.stddev * random.normal();
        v = static_cast<float>(draw);
      }
      return;
    case ParamInit::kaiming_normal: {  // kaiming_normal_(mode="fan_out", nonlinearity="relu")
      const double std = std::sqrt(2.0 / static_cast<double>(spec.fan_out()));
      for (float& v : values) v = static_cast<float>(std * random.normal());
      return;
    }
  }
}

}  // namespace

std::vector<HostTensor> initial_parameters(const Graph& graph, std::uint64_t seed) {
  std::vector<HostTensor> tensors;
  std::uint64_t stream = 0;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& spec : node.params) {
      Random random(derive_seed(seed, stream++));  // a stream per tensor, buffers too
      HostTensor tensor{spec.name, spec.dims, std::vector<float>(spec.elements())};
      fill(spec, random, tensor.values);
      tensors.push_back(std::move(tensor));
    }
  }
  return tensors;
}

}  // namespace runner
