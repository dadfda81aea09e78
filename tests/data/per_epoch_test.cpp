// dataset.decode: per_epoch: the training split listed, not decoded; its batches decoded as they
// are made, the same bytes as a split decoded once; random_resized_crop cropping the file's
// full-size image; a validation split held out of it decoded for evaluation.
#include <gtest/gtest.h>

#include <filesystem>

#include "data_files.h"
#include "image_writers.h"
#include "runner/data/augment.h"
#include "runner/data/augmentation.h"
#include "runner/data/batch_loader.h"
#include "runner/data/dataset_format.h"
#include "runner/data/encoded_images.h"
#include "runner/data/image_resize.h"
#include "runner/data/validation_split.h"
#include "test_support.h"

namespace runner {
namespace {

// Two classes of photos of different sizes (larger than the 12x12 the model takes).
struct PhotoFolder {
  testing::TempDir tmp;
  DatasetSpec spec;

  PhotoFolder() {
    for (const char* split : {"train", "test"}) {
      for (int i = 0; i < 6; ++i) {
        const int w = 24 + 3 * i, h = 30 - 2 * i;
        const std::vector<std::uint8_t> rgb = testing::test_pixels(w * h * 3, 10 * i + 1);
        const std::string file = (i % 2 ? "b/" : "a/") + std::to_string(i) + ".png";
        testing::write_bytes(tmp.path() / split / file, testing::rgb_png(w, h, rgb));
      }
    }
    spec = testing::image_folder_spec(tmp.path(), {3, 12, 12});
  }
  DatasetSplits load(bool per_epoch) {
    spec.files.decode_per_epoch = per_epoch;
    return format_of(spec).load(spec);
  }
};

std::vector<std::uint8_t> first_batch(const Dataset& data, const ImageAugmenter& augmenter) {
  BatchLoader loader(data, 6, false, 3, 0, augmenter);
  loader.start_epoch(0);
  BatchView view{};
  EXPECT_TRUE(loader.next(view));
  return {view.images, view.images + view.size * data.image_bytes()};
}

TEST(PerEpoch, TheTrainingSplitIsListedAndItsBatchesAreTheBytesOfOneDecodedOnce) {
  PhotoFolder folder;
  const DatasetSplits once = folder.load(false);
  const DatasetSplits per_epoch = folder.load(true);
  ASSERT_TRUE(per_epoch.train.encoded);
  EXPECT_TRUE(per_epoch.train.images.empty());  // no pixels held
  EXPECT_FALSE(per_epoch.test.encoded);         // evaluated every epoch: decoded once
  EXPECT_EQ(per_epoch.test.images, once.test.images);
  EXPECT_EQ(per_epoch.train.labels, once.train.labels);
  EXPECT_EQ(per_epoch.summary["train"]["decode"], "per_epoch");
  EXPECT_EQ(per_epoch.summary["train"]["sha256"], once.summary["train"]["sha256"]);
  EXPECT_EQ(first_batch(per_epoch.train, {}), first_batch(once.train, {}));
  // Crops and flips after the resize, as on the images decoded once.
  const AugmentContext context{{3, 12, 12}, {}, {}};
  const ImageAugmenter flips({make_augment_step("random_crop", {{"padding", 2}}, context),
                              make_augment_step("color_jitter", {{"brightness", 0.4}}, context)},
                             7);
  EXPECT_EQ(first_batch(per_epoch.train, flips), first_batch(once.train, flips));
}

TEST(PerEpoch, RandomResizedCropCropsTheFullSizeImage) {
  PhotoFolder folder;
  const DatasetSplits per_epoch = folder.load(true);
  const DatasetSplits once = folder.load(false);
  const AugmentContext context{{3, 12, 12}, {}, {}};
  const AugmentStep crop =
      make_augment_step("random_resized_crop", {{"scale", {0.3, 0.6}}}, context);
  const ImageAugmenter augmenter({crop}, 11);
  const std::vector<std::uint8_t> batch = first_batch(per_epoch.train, augmenter);
  const std::size_t bytes = per_epoch.train.image_bytes();
  for (std::size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    // The image as decoded, cropped with the draws of (seed, epoch 0, image i, step 0).
    Image full = per_epoch.train.encoded->decode(i);
    ASSERT_GT(full.width, 12);
    DrawStream draws(augment_math::draw(11, 0, i, 0));
    crop.op->apply(full, draws);
    ASSERT_EQ(full.height, 12);
    ASSERT_EQ(full.width, 12);
    EXPECT_EQ(std::vector<std::uint8_t>(batch.begin() + i * bytes, batch.begin() + (i + 1) * bytes),
              full.pixels);
  }
  // Not what cropping the 12x12 image decoded once gives.
  EXPECT_NE(batch, first_batch(once.train, augmenter));
}

// The reference recipes' Resize + RandomCrop: the photo as decoded, its shorter side resized,
// then a window of the model's size; decoded once instead, the steps start from the stored image.
TEST(PerEpoch, AResizeFirstGetsThePhotoAsDecoded) {
  PhotoFolder folder;
  const DatasetSplits per_epoch = folder.load(true);
  const AugmentContext context{{3, 12, 12}, {}, {}};
  const std::vector<AugmentStep> steps = {make_augment_step("resize", {{"size", 16}}, context),
                                          make_augment_step("random_crop", {}, context)};
  const std::vector<std::uint8_t> batch = first_batch(per_epoch.train, ImageAugmenter(steps, 5));
  const std::size_t bytes = per_epoch.train.image_bytes();
  for (std::size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    Image image = per_epoch.train.encoded->decode(i);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      DrawStream draws(augment_math::draw(5, 0, i, static_cast<int>(k)));
      steps[k].op->apply(image, draws);
    }
    EXPECT_EQ(std::vector<std::uint8_t>(batch.begin() + i * bytes, batch.begin() + (i + 1) * bytes),
              image.pixels);
  }
  const DatasetSplits once = folder.load(false);
  EXPECT_NE(batch, first_batch(once.train, ImageAugmenter(steps, 5)));
}

// A file that can no longer be read when its batch is made (deleted mid-run): the loader's
// worker hands the error to the training thread, which gets a UserError naming the file, and the
// process goes on (no std::terminate from a worker thread).
TEST(PerEpoch, AFileGoneMidRunIsAnErrorNamingItNotACrash) {
  PhotoFolder folder;
  const DatasetSplits per_epoch = folder.load(true);
  const std::filesystem::path gone =
      per_epoch.train.encoded->root / per_epoch.train.encoded->files[3];
  std::filesystem::remove(gone);
  for (int workers : {0, 2}) {
    SCOPED_TRACE(workers);
    BatchLoader loader(per_epoch.train, 2, false, 3, workers);
    loader.start_epoch(0);
    BatchView view{};
    std::string message;
    int delivered = 0;
    try {
      while (loader.next(view)) ++delivered;
    } catch (const UserError& error) {
      message = error.what();
    }
    EXPECT_EQ(delivered, 1) << "the second batch holds the file";
    EXPECT_NE(message.find(gone.filename().string()), std::string::npos) << message;
    loader.start_epoch(1);  // and the loader can still start again (and stop cleanly)
  }
}

// on_bad_file: skip: a file broken during the run (here cut short) gives its place in the batch,
// label included, to the next file of the split, the same with any workers; it is named once.
TEST(PerEpoch, WithSkipAFileBrokenMidRunGivesItsPlaceToTheNextAndIsNamed) {
  PhotoFolder folder;
  const DatasetSplits once = folder.load(false);
  folder.spec.files.on_bad_file = OnBadFile::skip;
  const DatasetSplits per_epoch = folder.load(true);
  const EncodedImages& files = *per_epoch.train.encoded;
  const std::filesystem::path broken = files.root / files.files[3];
  std::filesystem::resize_file(broken, 40);
  const std::size_t bytes = once.train.image_bytes();
  for (int workers : {0, 2}) {
    SCOPED_TRACE(workers);
    BatchLoader loader(per_epoch.train, 6, false, 3, workers);
    loader.start_epoch(0);
    BatchView view{};
    ASSERT_TRUE(loader.next(view));
    ASSERT_EQ(view.size, 6);
    for (int i = 0; i < 6; ++i) {
      const std::size_t from = i == 3 ? 4 : static_cast<std::size_t>(i);
      EXPECT_EQ(std::vector<std::uint8_t>(view.images + i * bytes, view.images + (i + 1) * bytes),
                std::vector<std::uint8_t>(once.train.images.begin() + from * bytes,
                                          once.train.images.begin() + (from + 1) * bytes))
          << i;
      EXPECT_EQ(view.labels[i], once.train.labels[from]) << i;
    }
  }
  const std::vector<std::string> reasons = files.skipped->reasons();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find(broken.filename().string()), std::string::npos) << reasons[0];
  // Every file broken: an error, not a loop.
  for (const auto& file : files.files) std::filesystem::resize_file(files.root / file, 40);
  BatchLoader loader(per_epoch.train, 6, false, 3, 0);
  loader.start_epoch(1);
  BatchView view{};
  EXPECT_THROW(loader.next(view), UserError);
}

TEST(PerEpoch, AValidationSplitHeldOutOfItIsDecodedForEvaluation) {
  PhotoFolder folder;
  DatasetSplits per_epoch = folder.load(true);
  DatasetSplits once = folder.load(false);
  hold_out_validation(per_epoch, 0.34, 5, {});
  hold_out_validation(once, 0.34, 5, {});
  ASSERT_GT(per_epoch.validation.size(), 0u);
  EXPECT_FALSE(per_epoch.validation.encoded);
  EXPECT_EQ(per_epoch.validation.images, once.validation.images);
  EXPECT_EQ(per_epoch.validation.labels, once.validation.labels);
  ASSERT_TRUE(per_epoch.train.encoded);
  EXPECT_EQ(per_epoch.train.encoded->files.size(), per_epoch.train.size());
  EXPECT_EQ(first_batch(per_epoch.train, {}).size(), first_batch(once.train, {}).size());
  EXPECT_EQ(first_batch(per_epoch.train, {}), first_batch(once.train, {}));
}

}  // namespace
}  // namespace runner
