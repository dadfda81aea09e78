// Leaf values by field path.
#include "runner/util/json_paths.h"

#include <fmt/format.h>

namespace runner {
namespace {

void flatten_into(const nlohmann::json& value, const std::string& path,
                  std::map<std::string, std::string>& out) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, child] : value.items()) {
      flatten_into(child, path.empty() ? key : path + "." + key, out);
    }
  } else if (value.is_array() && !value.empty() && (value[0].is_object() || value[0].is_array())) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      flatten_into(value[i], fmt::format("{}[{}]", path, i), out);
    }
  } else {
    out[path] = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

}  // namespace

std::map<std::string, std::string> flatten_json(const nlohmann::json& value,
                                                const std::string& prefix) {
  std::map<std::string, std::string> out;
  flatten_into(value, prefix, out);
  return out;
}

}  // namespace runner
