// Finding host tensors by name when parameters or optimizer state are loaded into a program.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace runner {

class TensorLookup {
 public:
  explicit TensorLookup(const std::vector<HostTensor>& tensors) {
    for (const auto& t : tensors) index_[t.name] = &t;
  }
  // The tensor called `name`; a UserError when the checkpoint or caller lacks it.
  const HostTensor& require(const std::string& name) const;

 private:
  std::map<std::string, const HostTensor*> index_;
};

}  // namespace runner
