// Owners of a program's memory: every device allocation (zeroed, freed together when the
// program goes away) and the pinned host buffers that batches cross to the device through.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace runner::cudnn {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  // `bytes` of zeroed device memory; OutOfMemoryError naming `what` when it does not fit.
  void* allocate(std::size_t bytes, const std::string& what);
  template <typename T>
  T* array(std::size_t count, const std::string& what) {
    return static_cast<T*>(allocate(count * sizeof(T), what));
  }
  std::size_t total_bytes() const { return total_; }

 private:
  std::vector<void*> blocks_;
  std::size_t total_ = 0;
};

class PinnedMemory {
 public:
  PinnedMemory() = default;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  ~PinnedMemory();

  // `bytes` of page-locked host memory, so copies to the device are truly asynchronous.
  void* allocate(std::size_t bytes, const std::string& what);
  template <typename T>
  T* array(std::size_t count, const std::string& what) {
    return static_cast<T*>(allocate(count * sizeof(T), what));
  }

 private:
  std::vector<void*> blocks_;
};

}  // namespace runner::cudnn
