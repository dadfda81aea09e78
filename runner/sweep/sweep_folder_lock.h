// The sweep folder's lock as a `runner sweep --point K` run holds it: shared with the other point
// runs (never while a whole sweep holds it exclusively), or, for a child of `runner sweep --jobs
// N`, the parent's exclusive lock, inherited as an open descriptor named in the environment.
#pragma once

#include <filesystem>
#include <optional>

#include "runner/util/folder_lock.h"

namespace runner {

// Set by `--jobs N` for its children: the descriptor of the sweep folder's lock they inherit.
inline constexpr const char* kInheritedLockVariable = "RUNNER_SWEEP_LOCK_FD";

class SweepFolderLock {
 public:
  // A UserError naming the folder when a whole sweep holds it (see FolderLock).
  explicit SweepFolderLock(const std::filesystem::path& dir);

 private:
  std::optional<FolderLock> lock_;  // empty when the lock is the parent's, inherited
};

// A descriptor of `lock`'s lock file that children inherit (closed on destruction), so that
// SweepFolderLock in a child finds the lock already held by its parent.
class InheritableLock {
 public:
  explicit InheritableLock(const FolderLock& lock);
  ~InheritableLock();
  InheritableLock(const InheritableLock&) = delete;
  InheritableLock& operator=(const InheritableLock&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace runner
