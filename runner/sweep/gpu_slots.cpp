// Which GPU a point may take: any free one, or the one its device names (cuda:N).
#include "runner/sweep/gpu_slots.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace runner {
namespace {

std::optional<int> wanted_index(const std::string& device) {  // cuda:N → N
  if (device.rfind("cuda:", 0) != 0) return std::nullopt;
  int index = -1;
  const char* text = device.c_str() + 5;
  auto [end, error] = std::from_chars(text, device.c_str() + device.size(), index);
  if (error != std::errc()) return std::nullopt;
  return index;
}

}  // namespace

bool is_gpu_point(const PlannedPoint& point, bool have_gpus) {
  return point.device.rfind("cuda", 0) == 0 || (point.device == "auto" && have_gpus);
}

std::optional<int> GpuSlots::take(const PlannedPoint& point) {
  const bool have_gpus = !free_.empty() || !busy_.empty();
  if (!have_gpus || !is_gpu_point(point, have_gpus)) return -1;
  std::optional<int> wanted = wanted_index(point.device);
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
