// Handing out GPUs to the points of `runner sweep --jobs N`: one running GPU point per GPU.
#pragma once

#include <optional>
#include <vector>

#include "runner/sweep/sweep_plan.h"

namespace runner {

// Hands each GPU to one running point at a time.
class GpuSlots {
 public:
  explicit GpuSlots(std::vector<int> gpus) : free_(std::move(gpus)) {}
  // For a point about to start: -1 when it needs no GPU of ours (a CPU point, or no GPUs to
  // hand out), the GPU it gets, or nullopt when the GPU it needs is busy (it waits).
  std::optional<int> take(const PlannedPoint& point);
  void give_back(int gpu);

 private:
  std::vector<int> free_;
  std::vector<int> busy_;
};

// Whether the point runs on a GPU: device cuda or cuda:N, or auto where there are GPUs.
bool is_gpu_point(const PlannedPoint& point, bool have_gpus);

}  // namespace runner
