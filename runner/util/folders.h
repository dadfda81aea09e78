// Folders the runner writes into: created with a clear error, claimed atomically, and a check
// that a path stays inside one (symlinks and '..' resolved).
#pragma once

#include <filesystem>
#include <string>

namespace runner {

// Creates `dir` and its parents. A file in the way, a name too long or no permission is a
// UserError naming the path and the reason; `what` says what the folder is ("the run's folder").
void create_folders(const std::filesystem::path& dir, const std::string& what);

// Creates `dir` itself (its parent must exist); false when it existed already. Of several
// processes racing for one name, exactly one gets true.
bool create_new_folder(const std::filesystem::path& dir, const std::string& what);

// True when `path` (which need not exist yet) is inside `folder` once both are made absolute
// and every symlink and '..' that exists on disk is resolved.
bool is_inside_folder(const std::filesystem::path& folder, const std::filesystem::path& path);

// The runner's folder for caches: $XDG_CACHE_HOME/runner, else ~/.cache/runner; empty when
// neither variable is set.
std::filesystem::path runner_cache_folder();

}  // namespace runner
