// A short exclusive lock around a read-modify-write of a shared file (flock(2) on a lock file
// beside it): processes of one sweep, on one machine or on a cluster's shared folder, take turns.
// Unlike FolderLock it waits for the holder instead of refusing; the kernel releases it when the
// holder ends, however it ends.
#pragma once

#include <filesystem>

namespace runner {

class FileLock {
 public:
  // Waits for `lock_file` (created if needed; never through a symlink); a UserError naming it
  // when it cannot be opened or locked.
  explicit FileLock(const std::filesystem::path& lock_file);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace runner
