// dataset.eval_transform's resize and centre crop against torchvision on PIL images
// (tests/data/fit_golden.json, written by scripts/fit_golden.py): every byte.
#include "runner/data/image_fit.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data_files.h"
#include "image_writers.h"
#include "runner/data/dataset_format.h"
#include "runner/data/image_decode.h"
#include "test_support.h"

namespace runner {
namespace {

TEST(ImageFit, ResizeAndCenterCropMatchTorchvisionByteForByte) {
  std::ifstream in(testing::source_dir() / "tests" / "data" / "fit_golden.json");
  const nlohmann::json golden = nlohmann::json::parse(in);
  ASSERT_GE(golden["cases"].size(), 8u);
  for (const nlohmann::json& c : golden["cases"]) {
    const nlohmann::json& spec = c["fit"];
    SCOPED_TRACE(c["height"].dump() + "x" + c["width"].dump() + " " + spec.dump());
    ImageFit fit;
    fit.shorter_side = spec.value("shorter_side", 0);
    if (spec.contains("resize")) {
      fit.resize_height = spec["resize"][0];
      fit.resize_width = spec["resize"][1];
    }
    fit.center_crop = spec.value("center_crop", false);
    const Image image{c["channels"], c["height"], c["width"],
                      testing::from_hex(c["pixels"].get<std::string>())};
    const int height = c["out_height"], width = c["out_width"];
    std::vector<std::uint8_t> out(static_cast<std::size_t>(image.channels) * height * width);
    fit_image_into(image, fit, height, width, out);
    EXPECT_EQ(out, testing::from_hex(c["expected"].get<std::string>()));
  }
}

TEST(ImageFit, ShorterSideAndCropRoundAsTorchvision) {
  EXPECT_EQ(shorter_side_size(480, 640, 256), std::make_pair(256, 341));
  EXPECT_EQ(shorter_side_size(640, 480, 256), std::make_pair(341, 256));
  EXPECT_EQ(shorter_side_size(7, 7, 3), std::make_pair(3, 3));
  // The window's offsets: (5 - 2) / 2 = 1.5 rounds to 2 and (6 - 1) / 2 = 2.5 to 2 (half to
  // even, as Python's round).
  Image ramp{1, 5, 6, {}};
  for (int i = 0; i < 30; ++i) ramp.pixels.push_back(static_cast<std::uint8_t>(i));
  const Image cut = center_crop(ramp, 2, 1);
  EXPECT_EQ(cut.pixels, (std::vector<std::uint8_t>{2 * 6 + 2, 3 * 6 + 2}));
  EXPECT_EQ(fit_key(ImageFit{}), "");
  EXPECT_EQ(fit_key(ImageFit{256, 0, 0, true}), "r256c");
  EXPECT_EQ(fit_key(ImageFit{0, 20, 30, false}), "r20x30");
}

// A folder of 30x20 and 17x26 photos: the test split is fitted as eval_transform says (and as
// fit_image_into makes it from the decoded file), the training split resized; a second load with
// another fit does not read the first one's cache.
TEST(ImageFit, AFoldersTestImagesAreFittedAndItsTrainingImagesResized) {
  testing::TempDir tmp;
  const std::vector<std::uint8_t> wide = testing::test_pixels(30 * 20 * 3, 1);
  const std::vector<std::uint8_t> tall = testing::test_pixels(17 * 26 * 3, 2);
  for (const char* split : {"train", "test"}) {
    testing::write_bytes(tmp.path() / split / "a" / "wide.png", testing::rgb_png(30, 20, wide));
    testing::write_bytes(tmp.path() / split / "b" / "tall.png", testing::rgb_png(17, 26, tall));
  }
  DatasetSpec spec = testing::image_folder_spec(tmp.path(), {3, 12, 12});
  const std::size_t plane = 3 * 12 * 12;
  auto expected = [&](const char* file, const ImageFit& fit) {
    const Image image = read_image(tmp.path() / "test" / file, 3, kDefaultMaxImageBytes);
    std::vector<std::uint8_t> out(plane);
    fit_image_into(image, fit, 12, 12, out);
    return out;
  };
  auto image_of = [&](const Dataset& set, std::size_t i) {
    return std::vector<std::uint8_t>(set.images.begin() + i * plane,
                                     set.images.begin() + (i + 1) * plane);
  };
  for (const ImageFit& fit : {ImageFit{14, 0, 0, true}, ImageFit{}, ImageFit{0, 16, 13, true}}) {
    SCOPED_TRACE(fit_key(fit));
    spec.files.eval_fit = fit;
    const DatasetSplits splits = format_of(spec).load(spec);
    ASSERT_EQ(splits.test.size(), 2u);
    EXPECT_EQ(image_of(splits.test, 0), expected("a/wide.png", fit));
    EXPECT_EQ(image_of(splits.test, 1), expected("b/tall.png", fit));
    EXPECT_EQ(image_of(splits.train, 0), expected("a/wide.png", ImageFit{}));
  }
  // The fitted images differ from the resized ones (else the test above proves nothing).
  EXPECT_NE(expected("a/wide.png", ImageFit{14, 0, 0, true}), expected("a/wide.png", ImageFit{}));
}

}  // namespace
}  // namespace runner
