#include "runner/html/json_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string_view>

namespace runner {

const nlohmann::json& field(const nlohmann::json& value, const char* pointer) {
  static const nlohmann::json null;
  // contains() throws on a step into a non-container or a non-number array index: ask each step.
  // The pointers are the pages' own, without ~ escapes.
  const nlohmann::json* at = &value;
  std::string_view rest = pointer;
  while (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
    const std::size_t end = std::min(rest.find('/'), rest.size());
    const std::string step(rest.substr(0, end));
    rest.remove_prefix(end);
    if (at->is_object()) {
      auto it = at->find(step);
      if (it == at->end()) return null;
      at = &*it;
    } else if (at->is_array()) {
      if (step.empty() || step.find_first_not_of("0123456789") != std::string::npos ||
          step.size() > 9 || std::stoul(step) >= at->size())
        return null;
      at = &(*at)[std::stoul(step)];
    } else {
      return null;
    }
  }
  return *at;
}

const nlohmann::json& list_field(const nlohmann::json& value, const char* pointer) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json& v = field(value, pointer);
  return v.is_array() ? v : empty;
}

double number_field(const nlohmann::json& value, const char* pointer) {
  const nlohmann::json& v = field(value, pointer);
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::string text_field(const nlohmann::json& value, const char* pointer) {
  const nlohmann::json& v = field(value, pointer);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return value_text(v);
  return "";
}

std::string value_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return fmt::format("{:.6g}", value.get<double>());
  if (value.is_null()) return "";
  if (value.is_array()) {  // a list as people write one: "cpu, cuda"
    std::string out;
    for (const auto& item : value) out += (out.empty() ? "" : ", ") + value_text(item);
    return out;
  }
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace runner
