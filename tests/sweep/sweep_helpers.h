// Helpers of the sweep tests: the tiny config, reading JSON files, schema checks, the runner's
// output split into lines.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner::testing {

// configs/tiny_synthetic.yaml: 3x16x16 synthetic data, a two-conv net; runs in milliseconds.
std::string tiny_config();

// Every line of `text` indented by two spaces (a config embedded in a sweep file's `config:`).
std::string indented(const std::string& text);

// The parsed file, or null when it is missing or not JSON.
nlohmann::json read_json(const std::filesystem::path& path);

// Each violation of schemas/<schema> by `value`, as text (empty when it conforms).
std::vector<std::string> schema_problems(const std::string& schema, const nlohmann::json& value);

// The path on the runner's last `report: PATH` line, or "".
std::string reported_path(const std::string& output);

}  // namespace runner::testing
