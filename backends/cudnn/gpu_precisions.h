// The precisions the cuDNN backend runs on a GPU of a compute capability, for the backend's
// DeviceInfo and `runner devices` alike. Free of CUDA types.
#pragma once

#include <map>

#include "runner/config/precision.h"

namespace runner::cudnn {

// fp32 everywhere; fp16 from 7.0 (Volta's tensor cores; cuDNN's half convolutions); tf32 and
// bf16 from 8.0 (Ampere), where the tensor cores take them. All native: nothing is emulated.
inline std::map<Precision, PrecisionSupport> gpu_precisions(int major, int minor) {
  const int capability = major * 10 + minor;
  std::map<Precision, PrecisionSupport> precisions = {{Precision::fp32, PrecisionSupport::native}};
  if (capability >= 70) precisions[Precision::fp16] = PrecisionSupport::native;
  if (capability >= 80) {
    precisions[Precision::tf32] = PrecisionSupport::native;
    precisions[Precision::bf16] = PrecisionSupport::native;
  }
  return precisions;
}

}  // namespace runner::cudnn
