// Tags from the config and the command line.
#include "runner/report/run_tags.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "runner/util/errors.h"

namespace runner {
namespace {

// The same rule as schemas/experiment.schema.json's tags.propertyNames.
bool valid_key(const std::string& key) {
  return !key.empty() && key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

}  // namespace

nlohmann::json parse_tag_options(const std::vector<std::string>& options) {
  nlohmann::json tags = nlohmann::json::object();
  for (const std::string& option : options) {
    auto equals = option.find('=');
    std::string key = option.substr(0, equals);
    if (equals == std::string::npos || !valid_key(key)) {
      throw UserError(fmt::format(
          "--tag: found '{}', expected key=value with a key of letters, digits, '_', '.' or '-' "
          "(at most 64), e.g. --tag purpose=baseline",
          option));
    }
    tags[key] = option.substr(equals + 1);
  }
  return tags;
}

nlohmann::json merge_tags(const nlohmann::json& config_tags, const nlohmann::json& cli_tags) {
  nlohmann::json tags = config_tags.is_object() ? config_tags : nlohmann::json::object();
  tags.update(cli_tags);
  return tags;
}

}  // namespace runner
