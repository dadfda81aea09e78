// A JSON document's leaf values by field path ("training.optimizer.lr", "model.layers[3].kernel"),
// for listing where two configs or environments differ.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// Each leaf as compact JSON text, keyed by its path under `prefix`; arrays of scalars are one
// leaf, arrays of objects are followed item by item.
std::map<std::string, std::string> flatten_json(const nlohmann::json& value,
                                                const std::string& prefix = "");

}  // namespace runner
