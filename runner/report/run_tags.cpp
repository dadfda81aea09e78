// Tags from the config and the command line.
#include "runner/report/run_tags.h"

#include <fmt/format.h>

#include "runner/config/config_limits.h"
#include "runner/config/tag_key.h"
#include "runner/util/errors.h"
#include "runner/util/utf8.h"

namespace runner {

nlohmann::json parse_tag_options(const std::vector<std::string>& options) {
  nlohmann::json tags = nlohmann::json::object();
  for (const std::string& option : options) {
    auto equals = option.find('=');
    std::string key = option.substr(0, equals);
    if (equals == std::string::npos || !is_tag_key(key)) {
      throw UserError(
          fmt::format("--tag: found '{}', expected key=value with {}, e.g. --tag "
                      "purpose=baseline",
                      option, kTagKeyRule));
    }
    std::string value = option.substr(equals + 1);
    if (value.size() > limits::max_string_length) {
      throw UserError(fmt::format("--tag {}: the value is {} characters long, expected at most {}",
                                  key, value.size(), limits::max_string_length));
    }
    if (first_invalid_utf8(value)) {
      throw UserError(fmt::format("--tag {}: the value is not UTF-8 text", key));
    }
    tags[key] = std::move(value);
  }
  return tags;
}

nlohmann::json merge_tags(const nlohmann::json& config_tags, const nlohmann::json& cli_tags) {
  nlohmann::json tags = config_tags.is_object() ? config_tags : nlohmann::json::object();
  tags.update(cli_tags);
  return tags;
}

}  // namespace runner
