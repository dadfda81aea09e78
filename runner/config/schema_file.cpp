// Schema lookup: environment variable first, then the path compiled in by CMake.
#include "runner/config/schema_file.h"

#include <fmt/format.h>

#include <cstdlib>

#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

std::filesystem::path schema_directory() {
  const char* from_environment = std::getenv("RUNNER_SCHEMA_DIR");
  if (from_environment != nullptr && *from_environment != '\0') return from_environment;
#ifdef RUNNER_SCHEMA_DIR
  return RUNNER_SCHEMA_DIR;
#else
  return "schemas";
#endif
}

nlohmann::ordered_json load_schema(const std::string& name) {
  std::filesystem::path file = schema_directory() / name;
  if (!std::filesystem::exists(file)) {
    throw UserError(
        fmt::format("{}: schema not found (set RUNNER_SCHEMA_DIR to the folder that "
                    "holds {})",
                    file.string(), name));
  }
  try {
    return nlohmann::ordered_json::parse(read_file(file));
  } catch (const nlohmann::json::parse_error& error) {
    throw UserError(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
}

}  // namespace runner
