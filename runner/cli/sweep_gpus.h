// Which GPUs `runner sweep --jobs N` hands out (see gpu_slots.h).
#pragma once

#include <string>
#include <vector>

#include "runner/sweep/gpu_slots.h"

namespace runner {

// `--gpus 0,1` as indices (a UserError naming the option otherwise); "" gives every usable GPU,
// none where the GPU backend is absent or finds no GPU.
std::vector<int> sweep_gpus(const std::string& option);

}  // namespace runner
