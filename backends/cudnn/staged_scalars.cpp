#include "backends/cudnn/staged_scalars.h"

#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {

StagedScalars::StagedScalars(PinnedMemory& pinned)
    : cells_(pinned.array<double>(kCells, "step factors")) {}

void StagedScalars::copy(double* device_field, double value, cudaStream_t stream) {
  const int cell = next_;
  next_ = (next_ + 1) % kCells;
  // The cell's previous copy must have read it (an event never recorded has passed).
  CUDA_CHECK(cudaEventSynchronize(copied_[cell].get()));
  cells_[cell] = value;
  CUDA_CHECK(
      cudaMemcpyAsync(device_field, &cells_[cell], sizeof(double), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(copied_[cell].get(), stream));
}

}  // namespace runner::cudnn
