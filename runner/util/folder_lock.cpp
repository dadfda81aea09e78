// flock(2) on a lock file: advisory, released by the kernel on exit or crash.
#include "runner/util/folder_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "runner/util/errors.h"
#include "runner/util/folders.h"

namespace runner {

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& what,
                       LockMode mode) {
  create_folders(folder, fmt::format("the {}'s folder", what));
  const std::filesystem::path file = folder / ".lock";
  // Never through a symlink: one planted as .lock would have the runner write its PID into the
  // link's target.
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw UserError(
        fmt::format("{}: is a symbolic link, expected the {}'s own lock file; "
                    "remove it",
                    file.string(), what));
  }
  if (fd_ < 0) {
    throw UserError(fmt::format("{}: cannot create the {} lock: {}", file.string(), what,
                                std::strerror(errno)));
  }
  const bool shared = mode == LockMode::shared;
  if (::flock(fd_, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    char holder[32] = {};
    ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
    std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    ::close(fd_);
    fd_ = -1;
    // Shared holders (`sweep --point` runs) leave the file empty: only an exclusive holder's PID
    // is recorded.
    std::string holders = pid.empty() ? "`runner sweep --point` processes are"
                                      : fmt::format("another {} (process {}) is", what, pid);
    throw UserError(
        fmt::format("{}: {} writing into this folder; wait for them to finish, or give this one "
                    "another --name",
                    folder.string(), holders));
  }
  const std::string pid = shared ? "" : std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace runner
