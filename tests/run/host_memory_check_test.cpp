// The memory plan before a run: a training split decoded per epoch counts its labels, not its
// pixels (each loader worker decodes one image at a time instead).
#include "runner/run/host_memory_check.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.h"

namespace runner {
namespace {

TEST(HostMemoryPlan, ASplitDecodedPerEpochIsNotHeld) {
  testing::TempDir tmp;
  // The plan counts the listed files (none is decoded): 40 training and 10 test images.
  for (const auto& [split, count] : {std::pair{"train", 40}, std::pair{"test", 10}}) {
    for (int i = 0; i < count; ++i) {
      const auto folder = tmp.path() / split / (i % 2 ? "a" : "b");
      std::filesystem::create_directories(folder);
      std::ofstream(folder / (std::to_string(i) + ".png")) << "listed, not read";
    }
  }
  DatasetSpec spec;
  spec.name = "image_folder";
  spec.root = tmp.path().string();
  spec.files.image = {3, 64, 64};
  spec.files.train = "train";
  spec.files.test = "test";
  const Shape image{3, 64, 64};
  const std::int64_t per_image = 3 * 64 * 64 + 1;  // pixels and a label's byte
  EXPECT_EQ(planned_dataset_bytes(spec, image), 50 * per_image);
  spec.files.decode_per_epoch = true;
  EXPECT_EQ(planned_dataset_bytes(spec, image), 10 * per_image + 40 * 4);
}

}  // namespace
}  // namespace runner
