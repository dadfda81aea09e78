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

// Sweep file `w`: one epoch of train mode, model.width 0.5 and 1, the tiny config embedded.
std::string embedded_config_sweep();

// The parsed file, or null when it is missing or not JSON.
nlohmann::json read_json(const std::filesystem::path& path);

// Each violation of schemas/<schema> by `value`, as text (empty when it conforms).
std::vector<std::string> schema_problems(const std::string& schema, const nlohmann::json& value);

// Whether /usr/bin/python3 has matplotlib (the plots are drawn).
bool has_matplotlib();

// `path` in single quotes, for a command line (the tests' paths hold no quote).
std::string quoted(const std::filesystem::path& path);

// The path on the runner's last `report: PATH` line, or "".
std::string reported_path(const std::string& output);

}  // namespace runner::testing
