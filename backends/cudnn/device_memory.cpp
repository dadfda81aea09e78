// Checked device and pinned allocations, released in the destructor.
#include "backends/cudnn/device_memory.h"

#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {

DeviceMemory::~DeviceMemory() {
  for (void* block : blocks_) cudaFree(block);  // errors ignored: destructors do not throw
}

void* DeviceMemory::allocate(std::size_t bytes, const std::string& what) {
  if (bytes == 0) bytes = 1;  // keep every buffer a distinct, valid pointer
  void* block = nullptr;
  cudaError_t status = cudaMalloc(&block, bytes);
  if (status == cudaErrorMemoryAllocation) throw_out_of_memory(bytes, what.c_str());
  CUDA_CHECK(status);
  blocks_.push_back(block);
  total_ += bytes;
  // Zeroed, so padding rows and never-written gradients read as 0; the program synchronises the
  // device once at the end of compilation, before any stream uses the memory.
  CUDA_CHECK(cudaMemset(block, 0, bytes));
  return block;
}

PinnedMemory::~PinnedMemory() {
  for (void* block : blocks_) cudaFreeHost(block);
}

void* PinnedMemory::allocate(std::size_t bytes, const std::string& what) {
  if (bytes == 0) bytes = 1;
  void* block = nullptr;
  cudaError_t status = cudaMallocHost(&block, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfMemoryError("host out of pinned memory for " + what, bytes, 0);
  }
  CUDA_CHECK(status);
  blocks_.push_back(block);
  return block;
}

}  // namespace runner::cudnn
