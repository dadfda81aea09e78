// Checking an inherited lock: the descriptor must be the folder's own lock file, and flock on it
// must succeed at once (it does only for the description that holds the lock).
#include "runner/sweep/sweep_folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace runner {
namespace {

bool holds_inherited_lock(const std::filesystem::path& dir) {
  const char* text = std::getenv(kInheritedLockVariable);
  if (!text) return false;
  int fd = -1;
  auto [end, error] = std::from_chars(text, text + std::strlen(text), fd);
  if (error != std::errc() || *end != '\0' || fd < 0) return false;
  struct stat held {
  }, file{};
  const std::filesystem::path lock_file = dir / ".lock";
  if (::fstat(fd, &held) != 0 || ::stat(lock_file.c_str(), &file) != 0) return false;
  if (held.st_dev != file.st_dev || held.st_ino != file.st_ino) return false;
  return ::flock(fd, LOCK_EX | LOCK_NB) == 0;
}

}  // namespace

SweepFolderLock::SweepFolderLock(const std::filesystem::path& dir) {
  if (!holds_inherited_lock(dir)) lock_.emplace(dir, "sweep", LockMode::shared);
}

InheritableLock::InheritableLock(const FolderLock& lock) : fd_(::fcntl(lock.fd(), F_DUPFD, 3)) {}

InheritableLock::~InheritableLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace runner
