// Named tensor lookup with a clear error for a missing one.
#include "backends/common/tensor_lookup.h"

#include <fmt/format.h>

#include "runner/util/errors.h"

namespace runner {

const HostTensor& TensorLookup::require(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw UserError(fmt::format("tensor '{}' is missing", name));
  return *it->second;
}

}  // namespace runner
