// A resolved config written to a temporary file (JSON is valid YAML), for the commands that
// rerun or reuse a report's config (reproduce, eval RUN_DIR): removed when it goes out of scope.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

class TemporaryConfig {
 public:
  // `purpose` names the file (runner-<purpose>-<pid>.yaml in the temporary folder).
  TemporaryConfig(const nlohmann::json& config, const std::string& purpose);
  ~TemporaryConfig();
  TemporaryConfig(const TemporaryConfig&) = delete;
  TemporaryConfig& operator=(const TemporaryConfig&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace runner
