#include "runner/util/file_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/util/errors.h"

namespace runner {

FileLock::FileLock(const std::filesystem::path& lock_file) {
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw UserError(
        fmt::format("{}: cannot open the lock file: {}", lock_file.string(),
                    errno == ELOOP ? "it is a symbolic link; remove it" : std::strerror(errno)));
  }
  int result = 0;
  do {
    result = ::flock(fd_, LOCK_EX);  // a signal (Ctrl-C) only interrupts the wait
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error = errno;
    ::close(fd_);
    throw UserError(
        fmt::format("{}: cannot lock it: {}", lock_file.string(), std::strerror(error)));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases the lock
}

}  // namespace runner
