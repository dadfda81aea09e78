// Schema lookup: environment variable first, then the path compiled in by CMake.
#include "runner/config/schema_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>

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

std::shared_ptr<const LoadedSchema> cached_schema(const std::string& name) {
  struct Entry {
    off_t size = 0;
    timespec modified{};
    std::shared_ptr<const LoadedSchema> schema;
  };
  static std::mutex mutex;
  static std::map<std::filesystem::path, Entry> cache;

  const std::filesystem::path file = schema_directory() / name;
  struct stat now {};
  const bool known = ::stat(file.c_str(), &now) == 0;  // one call: this runs per sweep point
  std::lock_guard lock(mutex);
  auto found = cache.find(file);
  if (known && found != cache.end() && found->second.size == now.st_size &&
      found->second.modified.tv_sec == now.st_mtim.tv_sec &&
      found->second.modified.tv_nsec == now.st_mtim.tv_nsec) {
    return found->second.schema;
  }
  // load_schema says what is wrong with the file.
  auto schema = std::make_shared<const LoadedSchema>(load_schema(name));
  if (known) cache[file] = {now.st_size, now.st_mtim, schema};
  return schema;
}

}  // namespace runner
