// Copies of single step factors (learning rate, momentum) to the device from pinned memory. A
// copy from pageable memory may synchronise with the stream, and schedules change the factors
// every step; a pinned cell is reused only after the event of its last copy has passed.
#pragma once

#include <cuda_runtime.h>

#include <array>

#include "backends/cudnn/device_memory.h"
#include "backends/cudnn/handles.h"

namespace runner::cudnn {

class StagedScalars {
 public:
  explicit StagedScalars(PinnedMemory& pinned);
  // Queues `*device_field = value` on `stream`.
  void copy(double* device_field, double value, cudaStream_t stream);

 private:
  static constexpr int kCells = 16;  // a few steps' copies in flight: waiting is rare
  double* cells_ = nullptr;
  std::array<CudaEvent, kCells> copied_;
  int next_ = 0;
};

}  // namespace runner::cudnn
