// The GPUs this process can use, with the versions of the driver and libraries, or why there
// are none. Free of CUDA types, for the backend factory and `runner devices`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner::cudnn {

struct GpuDevice {
  int index = 0;  // as in cuda:N (after CUDA_VISIBLE_DEVICES)
  std::string name;
  std::uint64_t memory_bytes = 0;
  int major = 0, minor = 0;  // compute capability
  int multiprocessors = 0;
};

struct GpuInventory {
  std::vector<GpuDevice> devices;
  std::string problem;  // why there are no usable GPUs; empty when there are
  std::string driver;   // "13.0 (580.159.04)": the CUDA version the driver supports, its release
  std::string runtime;  // the CUDA runtime linked in, "13.0"
  std::string cudnn;    // the cuDNN loaded, "9.19.0"
  std::string cublas;   // the cuBLAS loaded, "13.1.0"
};

// Probed once per process; never throws for a missing driver or GPU (that is `problem`).
const GpuInventory& gpu_inventory();

// Why this runner cannot run on `device`, or "": its kernels have no code for the architecture,
// or cuDNN or cuBLAS does not start there (a handle, one algorithm query). Creates the device's
// CUDA context.
std::string kernel_problem(const GpuDevice& device);

}  // namespace runner::cudnn
