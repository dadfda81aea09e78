// The temporary config file (temporary_config.h).
#include "runner/cli/temporary_config.h"

#include <fmt/format.h>
#include <unistd.h>

#include "runner/util/files.h"

namespace runner {

TemporaryConfig::TemporaryConfig(const nlohmann::json& config, const std::string& purpose)
    : path_(std::filesystem::temp_directory_path() /
            fmt::format("runner-{}-{}.yaml", purpose, ::getpid())) {
  write_json_atomically(path_, config);
}

TemporaryConfig::~TemporaryConfig() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace runner
