// GPU indices from the option or the inventory.
#include "runner/cli/sweep_gpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "backends/gpu_library.h"
#include "runner/util/errors.h"

namespace runner {

std::vector<int> sweep_gpus(const std::string& option) {
  std::vector<int> gpus;
  if (option.empty()) {
    const auto& inventory = gpu_inventory();
    for (std::size_t i = 0; i < inventory.devices.size(); ++i) {
      if (gpu_problem(static_cast<int>(i)).empty()) gpus.push_back(static_cast<int>(i));
    }
    return gpus;
  }
  std::size_t start = 0;
  while (start <= option.size()) {
    std::size_t comma = std::min(option.find(',', start), option.size());
    std::string text = option.substr(start, comma - start);
    int index = -1;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || index < 0) {
      throw UserError(fmt::format(
          "--gpus: found '{}', expected GPU indices separated by commas, such as 0,1", option));
    }
    if (std::find(gpus.begin(), gpus.end(), index) == gpus.end()) gpus.push_back(index);
    start = comma + 1;
  }
  return gpus;
}

}  // namespace runner
