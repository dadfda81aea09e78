// Split sizes for reports and the console.
#include "runner/data/split_sizes.h"

#include <fmt/format.h>

namespace runner {

nlohmann::json split_sizes_json(const DatasetSplits& data) {
  return {{"train_images", data.train.size()},
          {"validation_images", data.validation.size()},
          {"test_images", data.test.size()}};
}

std::string split_sizes_text(const DatasetSplits& data) {
  const std::size_t train = data.train.size(), val = data.validation.size(),
                    test = data.test.size();
  if (test == 0)
    return fmt::format("{} training and {} validation images (no test set)", train, val);
  if (val == 0) return fmt::format("{} training and {} test images", train, test);
  return fmt::format("{} training, {} validation and {} test images", train, val, test);
}

}  // namespace runner
