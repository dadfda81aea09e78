// An exclusive lock on a folder (flock on <folder>/.lock, which records the holder's PID), so
// that two sweeps writing into one folder do not run the same points and overwrite each other.
// The kernel releases it when the process ends, however it ends.
#pragma once

#include <filesystem>
#include <string>

namespace runner {

// exclusive: one holder (a whole sweep); shared: many holders at once (`sweep --point` runs, each
// of which also locks its point's folder exclusively), none while an exclusive holder has it.
enum class LockMode { exclusive, shared };

// Whether some process holds `folder`'s lock now (a sweep running into it), read from
// /proc/locks without taking the lock: probing with flock could make a sweep starting at that
// moment fail. False when there is no lock file or /proc/locks cannot be read.
bool folder_lock_held(const std::filesystem::path& folder);

class FolderLock {
 public:
  // Creates the folder if needed and takes the lock; a UserError naming the folder and the PID
  // holding it when another process has it. `what` names the user of the folder ("sweep"),
  // `advice` what to do then.
  FolderLock(
      const std::filesystem::path& folder, const std::string& what,
      LockMode mode = LockMode::exclusive,
      const std::string& advice = "wait for them to finish, or give this one another --name");
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  int fd() const { return fd_; }  // the lock file's descriptor (to hand the lock to a child)

 private:
  int fd_ = -1;
};

}  // namespace runner
