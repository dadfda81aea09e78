// Which GPU a point may take: any free one, or the one its device names (cuda:N).
#include "runner/sweep/gpu_slots.h"

#include <algorithm>

namespace runner {

bool is_gpu_point(const PlannedPoint& point, bool have_gpus) {
  return point.device.is_cuda() || (point.device.is_auto() && have_gpus);
}

std::optional<int> GpuSlots::take(const PlannedPoint& point) {
  const bool have_gpus = !free_.empty() || !busy_.empty();
  if (!have_gpus || !is_gpu_point(point, have_gpus)) return -1;
  const std::optional<int> wanted = point.device.index;  // cuda:N → N
  auto it = wanted ? std::find(free_.begin(), free_.end(), *wanted) : free_.begin();
  if (wanted && it == free_.end() &&
      std::find(busy_.begin(), busy_.end(), *wanted) == busy_.end()) {
    return -1;  // cuda:N not among those handed out: it runs as configured
  }
  if (it == free_.end()) return std::nullopt;
  int gpu = *it;
  free_.erase(it);
  busy_.push_back(gpu);
  return gpu;
}

void GpuSlots::give_back(int gpu) {
  auto it = std::find(busy_.begin(), busy_.end(), gpu);
  if (it == busy_.end()) return;
  busy_.erase(it);
  free_.push_back(gpu);
}

}  // namespace runner
