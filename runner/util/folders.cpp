// Creating output folders with messages that name the path, and the containment check.
#include "runner/util/folders.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "runner/util/errors.h"

namespace runner {
namespace {

// Why `dir` cannot be created: the first existing part of it that is not a folder, else the
// system's reason.
[[noreturn]] void refuse(const std::filesystem::path& dir, const std::string& what,
                         const std::error_code& error) {
  std::filesystem::path prefix;
  for (const auto& part : dir) {
    prefix /= part;
    std::error_code ignored;
    auto status = std::filesystem::status(prefix, ignored);
    if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
      throw UserError(fmt::format("{}: cannot create {}: {} is a file, expected a folder",
                                  dir.string(), what, prefix.string()));
    }
  }
  throw UserError(fmt::format("{}: cannot create {}: {}", dir.string(), what, error.message()));
}

}  // namespace

void create_folders(const std::filesystem::path& dir, const std::string& what) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) refuse(dir, what, error);
}

bool create_new_folder(const std::filesystem::path& dir, const std::string& what) {
  std::error_code error;
  bool created = std::filesystem::create_directory(dir, error);  // mkdir(2): atomic
  if (error) refuse(dir, what, error);
  return created;
}

std::filesystem::path first_link_inside(const FolderInside& folder) {
  std::filesystem::path part = folder.base;
  for (const auto& name : folder.inside) {
    part /= name;
    std::error_code ignored;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(part, ignored))) return part;
  }
  return {};
}

void create_folders_inside(const FolderInside& folder, const std::string& what) {
  if (folder.inside.is_absolute() ||
      std::find(folder.inside.begin(), folder.inside.end(), "..") != folder.inside.end()) {
    throw UserError(fmt::format("{}: cannot create {}: expected a folder inside {}",
                                folder.path().string(), what, folder.base.string()));
  }
  if (const auto link = first_link_inside(folder); !link.empty()) {
    throw UserError(fmt::format(
        "{}: cannot create {}: {} is a symbolic link, and nothing is written through a link "
        "inside {} (remove the link)",
        folder.path().string(), what, link.string(), folder.base.string()));
  }
  create_folders(folder.path(), what);  // the parts that are missing: new folders, no links
}

bool is_inside_folder(const std::filesystem::path& folder, const std::filesystem::path& path) {
  std::error_code error;
  const auto base = std::filesystem::weakly_canonical(std::filesystem::absolute(folder), error);
  if (error) return false;
  const auto full = std::filesystem::weakly_canonical(std::filesystem::absolute(path), error);
  if (error) return false;
  auto [base_end, full_at] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  return base_end == base.end() && full_at != full.end();
}

std::filesystem::path runner_cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "runner";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "runner";
  }
  return {};
}

}  // namespace runner
