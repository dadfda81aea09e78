// Resizing against torchvision's Resize on PIL images (tests/data/image_golden.json, made by
// scripts/image_golden.py): every pixel must match, up and down, 1 and 3 channels.
#include "runner/data/image_resize.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "image_writers.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::from_hex;

TEST(ImageResize, MatchesTorchvisionResizeBitForBit) {
  const nlohmann::json golden =
      nlohmann::json::parse(read_file(testing::source_dir() / "tests/data/image_golden.json"));
  ASSERT_GE(golden["resize"].size(), 10u);
  for (const auto& c : golden["resize"]) {
    const Image in{c["channels"], c["height"], c["width"], from_hex(c["input"])};
    const Image out = resize_image(in, c["out_height"], c["out_width"]);
    const std::vector<std::uint8_t> want = from_hex(c["output"]);
    ASSERT_EQ(out.pixels.size(), want.size());
    int differing = 0, worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      differing += out.pixels[i] != want[i];
      worst = std::max(worst, std::abs(out.pixels[i] - want[i]));
    }
    EXPECT_EQ(differing, 0) << in.channels << "x" << in.height << "x" << in.width << " -> "
                            << c["out_height"] << "x" << c["out_width"] << ": " << differing
                            << " pixels differ, by up to " << worst;
  }
}

TEST(ImageResize, SameSizeIsACopyAndOutputSizeIsChecked) {
  const Image in{3, 4, 5, testing::test_pixels(60, 1)};
  EXPECT_EQ(resize_image(in, 4, 5).pixels, in.pixels);
  std::vector<std::uint8_t> small(10);
  EXPECT_THROW(resize_image_into(in, 4, 5, small), std::invalid_argument);
}

TEST(ImageResize, ConstantStaysConstant) {
  // Weights that do not sum to exactly one would show here first.
  for (std::uint8_t value : {0, 1, 128, 254, 255}) {
    const Image in{1, 13, 29, std::vector<std::uint8_t>(13 * 29, value)};
    for (auto [h, w] : {std::pair{5, 7}, {32, 3}, {64, 64}}) {
      const Image out = resize_image(in, h, w);
      EXPECT_EQ(out.pixels, std::vector<std::uint8_t>(static_cast<std::size_t>(h) * w, value))
          << int{value} << " to " << h << "x" << w;
    }
  }
}

}  // namespace
}  // namespace runner
