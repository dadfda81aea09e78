// dataset.jpeg_draft: JPEGs decoded at libjpeg's reduced DCT scale as Pillow's Image.draft
// decodes them (tests/data/jpeg_draft_golden.json, from scripts/jpeg_draft_golden.py: the size
// and every byte, then torchvision's Resize of the result), and the draft size each split asks
// for: image_size, eval_transform's resize, a first augment step's resize, none before a crop.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data_files.h"
#include "image_writers.h"
#include "runner/data/augmentation.h"
#include "runner/data/dataset_format.h"
#include "runner/data/encoded_images.h"
#include "runner/data/image_decode.h"
#include "runner/data/image_fit.h"
#include "runner/data/image_resize.h"
#include "test_support.h"

namespace runner {
namespace {

TEST(JpegDraft, DecodesAtPillowsScaleByteForByte) {
  std::ifstream in(testing::source_dir() / "tests" / "data" / "jpeg_draft_golden.json");
  const nlohmann::json golden = nlohmann::json::parse(in);
  ASSERT_GE(golden["cases"].size(), 9u);
  int reduced = 0;
  for (const nlohmann::json& c : golden["cases"]) {
    const DraftSize draft{c["draft_height"], c["draft_width"]};
    SCOPED_TRACE(c["options"].dump() + " draft " + std::to_string(draft.width) + "x" +
                 std::to_string(draft.height));
    const std::vector<std::uint8_t> file = testing::from_hex(c["file"].get<std::string>());
    const Image full = decode_image(file, c["channels"], "case.jpg");
    const Image decoded =
        decode_image(file, c["channels"], "case.jpg", kDefaultMaxImageBytes, draft);
    ASSERT_EQ(decoded.width, c["decoded_width"].get<int>());
    ASSERT_EQ(decoded.height, c["decoded_height"].get<int>());
    EXPECT_EQ(decoded.pixels, testing::from_hex(c["decoded"].get<std::string>()));
    EXPECT_EQ(resize_image(decoded, draft.height, draft.width).pixels,
              testing::from_hex(c["resized"].get<std::string>()));
    if (decoded.width < full.width) ++reduced;
  }
  EXPECT_GE(reduced, 6) << "the cases must reach the reduced scales";
}

TEST(JpegDraft, EachSplitAsksForTheSizeItIsResizedToFirst) {
  ImageFit fit;
  EXPECT_EQ(draft_size(fit, 24, 32).width, 0) << "off by default";
  fit.jpeg_draft = true;
  EXPECT_EQ(draft_size(fit, 24, 32).height, 24);
  EXPECT_EQ(draft_size(fit, 24, 32).width, 32);
  fit.shorter_side = 40;
  EXPECT_EQ(draft_size(fit, 24, 32).width, 40);
  EXPECT_EQ(draft_size(fit, 24, 32).height, 40);
  fit = {0, 0, 0, true, true};  // center_crop only: the crop takes the photo's pixels
  EXPECT_EQ(draft_size(fit, 24, 32).width, 0);
  EXPECT_EQ(fit_key(fit), "cd");
  EXPECT_EQ(fit_key(ImageFit{0, 0, 0, false, true}), "d") << "its own decoded cache";
}

// A folder of 64x48 JPEG photos trained at 8x6: decoded at 1/8 (the same pixels as a draft
// decode resized), the held-out split too; per epoch, the first resize step's size is asked for.
TEST(JpegDraft, AFolderDecodesItsPhotosAtTheDraftScale) {
  testing::TempDir tmp;
  std::vector<std::filesystem::path> files;
  for (const char* split : {"train", "test"}) {
    for (int i = 0; i < 4; ++i) {
      const std::vector<std::uint8_t> rgb = testing::test_pixels(64 * 48 * 3, 3 * i + 1);
      const std::filesystem::path file =
          tmp.path() / split / (i % 2 ? "b" : "a") / (std::to_string(i) + ".jpg");
      testing::write_bytes(file, testing::jpeg_file(64, 48, 3, rgb, 90));
      if (std::string(split) == "train") files.push_back(file);
    }
  }
  DatasetSpec spec = testing::image_folder_spec(tmp.path(), {3, 6, 8});
  spec.files.cache = (tmp.path() / "cache").string();
  spec.files.eval_fit.jpeg_draft = true;
  const DatasetSplits drafted = format_of(spec).load(spec);
  spec.files.eval_fit.jpeg_draft = false;
  const DatasetSplits full = format_of(spec).load(spec);
  EXPECT_NE(drafted.train.images, full.train.images);
  // The folder lists its classes' files in name order: a/0, a/2, b/1, b/3.
  const std::size_t bytes = drafted.train.image_bytes();
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const std::filesystem::path& file = files[std::vector<int>{0, 2, 1, 3}[i]];
    const Image decoded = read_image(file, 3, kDefaultMaxImageBytes, DraftSize{6, 8});
    ASSERT_EQ(decoded.width, 8);
    std::vector<std::uint8_t> expected(bytes);
    resize_image_into(decoded, 6, 8, expected);
    EXPECT_EQ(std::vector<std::uint8_t>(drafted.train.images.begin() + i * bytes,
                                        drafted.train.images.begin() + (i + 1) * bytes),
              expected);
  }
  EXPECT_NE(drafted.test.images, full.test.images) << "the test split is drafted too";

  spec.files.eval_fit.jpeg_draft = true;
  spec.files.decode_per_epoch = true;
  const AugmentContext context{{3, 6, 8}, {}, {}};
  spec.augment = {make_augment_step("resize", {{"size", 16}}, context),
                  make_augment_step("random_crop", nlohmann::json::object(), context)};
  const DatasetSplits resized_first = format_of(spec).load(spec);
  ASSERT_TRUE(resized_first.train.encoded);
  EXPECT_EQ(resized_first.train.encoded->draft.width, 16);
  // min(64 / 16, 48 / 16) = 3: the largest power of two within it is 2, so 32x24 (shorter side
  // still at least 16).
  EXPECT_EQ(resized_first.train.encoded->decode(0).width, 32);
  spec.augment = {make_augment_step("random_resized_crop", nlohmann::json::object(), context)};
  EXPECT_EQ(format_of(spec).load(spec).train.encoded->draft.width, 0) << "a crop takes the photo";
  spec.augment.clear();
  EXPECT_EQ(format_of(spec).load(spec).train.encoded->decode(0).width, 8);
}

}  // namespace
}  // namespace runner
