// flock(2) on a lock file: advisory, released by the kernel on exit or crash.
#include "runner/util/folder_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "runner/util/errors.h"
#include "runner/util/folders.h"

namespace runner {

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& what, LockMode mode,
                       const std::string& advice) {
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
        fmt::format("{}: {} writing into this folder; {}", folder.string(), holders, advice));
  }
  const std::string pid = shared ? "" : std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

bool folder_lock_held(const std::filesystem::path& folder) {
  struct stat lock {};
  if (::lstat((folder / ".lock").c_str(), &lock) != 0 || !S_ISREG(lock.st_mode)) return false;
  // Lines like "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF": the file is major:minor:inode.
  std::ifstream locks("/proc/locks");
  std::string line;
  const std::string file = fmt::format(":{}", static_cast<unsigned long long>(lock.st_ino));
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, kind, advisory, mode, pid, where;
    if (!(fields >> id >> kind)) continue;
    if (kind == "->") fields >> kind;  // a process blocked waiting for a lock
    if (kind != "FLOCK" || !(fields >> advisory >> mode >> pid >> where)) continue;
    const std::size_t colon = where.find(':');
    if (colon == std::string::npos || where.size() < file.size() ||
        where.compare(where.size() - file.size(), file.size(), file) != 0) {
      continue;
    }
    // The device: major:minor in hexadecimal, as /proc/locks writes it.
    const std::string device = where.substr(0, where.size() - file.size());
    if (device == fmt::format("{:02x}:{:02x}", major(lock.st_dev), minor(lock.st_dev))) return true;
  }
  return false;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace runner
