// PyTorch's default initialisation for conv and linear layers, from the experiment's seed.
#include <cmath>

#include "backends/backend.h"
#include "runner/util/random.h"

namespace runner {

std::vector<HostTensor> initial_parameters(const Graph& graph, std::uint64_t seed) {
  // kaiming_uniform_(a=sqrt(5)) for weights and the bias rule both give U(-b, b), b = 1/sqrt(fan_in).
  std::vector<HostTensor> tensors;
  std::uint64_t stream = 0;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& spec : node.params) {
      Random random(derive_seed(seed, stream++));
      double bound = 1.0 / std::sqrt(static_cast<double>(spec.fan_in));
      HostTensor tensor{spec.name, spec.dims, std::vector<float>(spec.elements())};
      for (float& v : tensor.values) v = static_cast<float>(random.uniform(-bound, bound));
      tensors.push_back(std::move(tensor));
    }
  }
  return tensors;
}

}  // namespace runner
