// A backend's implementations of the layer kinds, by type name: the one list a backend keeps,
// which tests hold against the graph's registry (runner/graph/layer_kind.h) and which
// `runner validate` asks before any data is loaded (layer_support.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runner/util/errors.h"

namespace runner {

template <typename Layer>
class LayerFactories {
 public:
  using Factory = std::unique_ptr<Layer> (*)();
  LayerFactories(std::string backend, std::map<std::string, Factory> factories)
      : backend_(std::move(backend)), factories_(std::move(factories)) {}

  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const auto& [type, factory] : factories_) out.push_back(type);
    return out;
  }
  // A kind this backend lacks is a broken invariant here: validation refuses it first.
  std::unique_ptr<Layer> make(const std::string& type) const {
    auto it = factories_.find(type);
    if (it == factories_.end()) {
      throw LibraryError("the " + backend_ + " backend has no layer '" + type + "'");
    }
    return it->second();
  }

 private:
  std::string backend_;
  std::map<std::string, Factory> factories_;
};

}  // namespace runner
