// The report's `tags`: the config's `tags:` mapping with `--tag key=value` options on top.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner {

// `--tag key=value` options as a JSON object of strings; a malformed one (no '=', an empty or
// odd key) is a UserError naming it and the expected form. A key given twice keeps the last.
nlohmann::json parse_tag_options(const std::vector<std::string>& options);

// The config's tags (an object, possibly empty) with the command line's replacing equal keys.
nlohmann::json merge_tags(const nlohmann::json& config_tags, const nlohmann::json& cli_tags);

}  // namespace runner
