// Helpers of the sweep tests.
#include "sweep_helpers.h"

#include <fstream>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::testing {

std::string tiny_config() {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string();
}

namespace {

// Every line of `text` indented by two spaces (a config embedded in a sweep file's `config:`).
std::string indented(const std::string& text) {
  std::string out;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    out += "  " + text.substr(start, end == std::string::npos ? end : end - start + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string embedded_config_sweep() {
  return "name: w\nmode: train\nset: [training.epochs=1]\nsweep:\n  grid:\n"
         "    model.width: [0.5, 1]\nconfig:\n" +
         indented(read_file(tiny_config()));
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json value = nlohmann::json::parse(in, nullptr, false);
  return value.is_discarded() ? nlohmann::json() : value;
}

std::vector<std::string> schema_problems(const std::string& schema, const nlohmann::json& value) {
  std::vector<std::string> out;
  for (const auto& v : schema_violations(load_schema(schema), value)) {
    std::string where;
    for (const auto& step : v.context) where += step;
    out.push_back(where + ": " + v.description);
  }
  return out;
}

bool has_matplotlib() {
  return run_command("/usr/bin/python3 -c 'import matplotlib'").exit_code == 0;
}

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::string reported_path(const std::string& output) {
  auto at = output.rfind("report: ");
  if (at == std::string::npos) return "";
  std::string path = output.substr(at + 8);
  return path.substr(0, path.find('\n'));
}

}  // namespace runner::testing
