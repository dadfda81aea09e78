// Augmentation: crop with zero padding and flip against a plain reference that pads, crops and
// mirrors whole images step by step; the draws' spread, their dependence on the epoch, and the
// loader's augmented batches, identical for any number of workers.
#include "runner/data/augment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runner/data/augmentation.h"
#include "runner/data/batch_loader.h"
#include "runner/util/random.h"

namespace runner {
namespace {

// An image (C, H, W) as plain nested data, for the reference.
using Image = std::vector<std::vector<std::vector<int>>>;

Image to_image(const std::uint8_t* bytes, int c, int h, int w) {
  Image out(c, std::vector<std::vector<int>>(h, std::vector<int>(w)));
  for (int k = 0; k < c; ++k)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) out[k][y][x] = bytes[(k * h + y) * w + x];
  return out;
}

// torchvision's RandomCrop(size = (H, W), padding) for a chosen offset: pad with zeros, then
// take the (H, W) window at (top, left) of the padded image.
Image reference_crop(const Image& in, int padding, int top, int left) {
  const int h = static_cast<int>(in[0].size()), w = static_cast<int>(in[0][0].size());
  Image out = in;
  for (std::size_t c = 0; c < in.size(); ++c) {
    std::vector<std::vector<int>> padded(h + 2 * padding, std::vector<int>(w + 2 * padding, 0));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) padded[y + padding][x + padding] = in[c][y][x];
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) out[c][y][x] = padded[y + top][x + left];
  }
  return out;
}

Image reference_flip(Image in) {
  for (auto& plane : in)
    for (auto& row : plane) std::reverse(row.begin(), row.end());
  return in;
}

// torchvision's vertical flip: the rows in reverse order.
Image reference_vertical_flip(Image in) {
  for (auto& plane : in) std::reverse(plane.begin(), plane.end());
  return in;
}

// The steps applied one after another to whole images, with the decisions augment_math drew.
Image reference_augment(const augment_math::Plan& plan, std::int64_t epoch, std::uint64_t index,
                        Image image) {
  const augment_math::Choices choices = augment_math::choose(plan, epoch, index);
  for (int k = 0; k < plan.count; ++k) {
    const augment_math::Choice& choice = choices.steps[k];
    if (plan.steps[k].kind == augment_math::StepKind::random_crop) {
      image = reference_crop(image, plan.steps[k].padding, choice.top, choice.left);
    } else if (choice.flip) {
      image = plan.steps[k].kind == augment_math::StepKind::vertical_flip
                  ? reference_vertical_flip(image)
                  : reference_flip(image);
    }
  }
  return image;
}

// Steps as the config makes them, for images of any size up to 4096 (only padding is checked
// against the image's side).
const AugmentContext kAnyImage{{3, 4096, 4096}, {}, {}};

AugmentStep crop(int padding) {
  return make_augment_step("random_crop", {{"padding", padding}}, kAnyImage);
}

AugmentStep flip(double p) {
  return make_augment_step("horizontal_flip", {{"p", p}}, kAnyImage);
}

AugmentStep vflip(double p) {
  return make_augment_step("vertical_flip", {{"p", p}}, kAnyImage);
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  Random random(seed);
  std::vector<std::uint8_t> out(n);
  for (auto& byte : out) byte = static_cast<std::uint8_t>(1 + random.below(255));  // never 0
  return out;
}

TEST(Augment, MatchesTheReferenceOnSmallImages) {
  struct Case {
    std::vector<AugmentStep> steps;
    int c, h, w;
  };
  const std::vector<Case> cases = {
      {{crop(1)}, 1, 3, 3},
      {{crop(2)}, 2, 4, 5},
      {{flip(0.5)}, 3, 2, 7},
      {{crop(3), flip(0.5)}, 3, 5, 4},
      {{flip(0.5), crop(2)}, 1, 6, 3},
      {{crop(1), crop(2), flip(0.7), flip(0.4)}, 2, 5, 5},
      {{vflip(0.5)}, 3, 4, 3},
      {{crop(2), vflip(0.5), flip(0.5)}, 2, 5, 6},
      {{vflip(0.6), crop(1), vflip(0.3)}, 1, 3, 7},
  };
  for (std::size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    const augment_math::Plan plan = augment_plan(c.steps, 1000 + n);
    const auto bytes = random_bytes(static_cast<std::size_t>(c.c) * c.h * c.w, n);
    std::vector<std::uint8_t> out(bytes.size());
    for (std::int64_t epoch = 0; epoch < 4; ++epoch) {
      for (std::uint64_t index = 0; index < 50; ++index) {
        augment_image(plan, epoch, index, bytes.data(), out.data(), c.c, c.h, c.w);
        ASSERT_EQ(to_image(out.data(), c.c, c.h, c.w),
                  reference_augment(plan, epoch, index, to_image(bytes.data(), c.c, c.h, c.w)))
            << "case " << n << ", epoch " << epoch << ", image " << index;
      }
    }
  }
}

TEST(Augment, CropOffsetsCoverEveryPositionAndFlipsFollowP) {
  const augment_math::Plan plan = augment_plan({crop(4), flip(0.3)}, 7);
  std::set<int> tops, lefts;
  int flips = 0;
  const int n = 20000;
  for (int index = 0; index < n; ++index) {
    const augment_math::Choices choices = augment_math::choose(plan, 0, index);
    tops.insert(choices.steps[0].top);
    lefts.insert(choices.steps[0].left);
    flips += choices.steps[1].flip ? 1 : 0;
  }
  EXPECT_EQ(tops, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(lefts, tops);
  EXPECT_NEAR(flips / double(n), 0.3, 0.015);
  for (double p : {0.0, 1.0}) {
    const augment_math::Plan fixed = augment_plan({flip(p)}, 7);
    for (int index = 0; index < 1000; ++index) {
      ASSERT_EQ(augment_math::choose(fixed, 3, index).steps[0].flip, p == 1.0) << "p " << p;
    }
  }
}

TEST(Augment, DrawsAreAPureFunctionOfSeedEpochAndImage) {
  const augment_math::Plan plan = augment_plan({crop(4), flip(0.5)}, 11);
  const augment_math::Plan other_seed = augment_plan({crop(4), flip(0.5)}, 12);
  int epoch_differs = 0, seed_differs = 0;
  for (std::uint64_t index = 0; index < 200; ++index) {
    const auto a = augment_math::choose(plan, 5, index);
    const auto again = augment_math::choose(plan, 5, index);
    ASSERT_EQ(a.steps[0].top, again.steps[0].top);
    ASSERT_EQ(a.steps[0].left, again.steps[0].left);
    ASSERT_EQ(a.steps[1].flip, again.steps[1].flip);
    const auto next = augment_math::choose(plan, 6, index);
    const auto reseeded = augment_math::choose(other_seed, 5, index);
    epoch_differs += a.steps[0].top != next.steps[0].top || a.steps[0].left != next.steps[0].left;
    seed_differs +=
        a.steps[0].top != reseeded.steps[0].top || a.steps[0].left != reseeded.steps[0].left;
  }
  // Two independent offsets in 0..8 agree by chance 1 time in 81.
  EXPECT_GT(epoch_differs, 180);
  EXPECT_GT(seed_differs, 180);
}

TEST(Augment, AnEmptyPlanIsNone) {
  EXPECT_EQ(augment_plan({}, 3).count, 0);
  EXPECT_THROW(augment_plan(std::vector<AugmentStep>(kMaxAugmentSteps + 1, flip(0.5)), 3),
               std::logic_error);
}

// 37 records of 2x5x6 random bytes; record i has label i.
Dataset random_dataset() {
  Dataset data;
  data.name = "random";
  data.channels = 2;
  data.height = 5;
  data.width = 6;
  data.class_names = {"x"};
  data.images = random_bytes(37 * data.image_bytes(), 5);
  for (int i = 0; i < 37; ++i) data.labels.push_back(i);
  return data;
}

std::vector<std::uint8_t> epoch_images(BatchLoader& loader, int epoch, std::size_t image_bytes) {
  std::vector<std::uint8_t> out;
  loader.start_epoch(epoch);
  BatchView batch{};
  while (loader.next(batch))
    out.insert(out.end(), batch.images, batch.images + batch.size * image_bytes);
  return out;
}

TEST(AugmentedBatchLoader, EachImageIsItsRecordAugmentedForTheEpoch) {
  const Dataset data = random_dataset();
  const std::vector<std::uint8_t> original = data.images;
  const augment_math::Plan plan = augment_plan({crop(2), flip(0.5)}, 99);
  BatchLoader loader(data, 8, true, 4, 2, plan);
  const std::size_t bytes = data.image_bytes();
  std::vector<std::uint8_t> expected(bytes);
  for (int epoch : {0, 1}) {
    loader.start_epoch(epoch);
    BatchView batch{};
    int changed = 0;
    while (loader.next(batch)) {
      for (int i = 0; i < batch.size; ++i) {
        const std::size_t record = batch.labels[i];
        augment_image(plan, epoch, record, data.images.data() + record * bytes, expected.data(),
                      data.channels, data.height, data.width);
        const std::vector<std::uint8_t> got(batch.images + i * bytes,
                                            batch.images + (i + 1) * bytes);
        ASSERT_EQ(got, expected) << "epoch " << epoch << ", record " << record;
        changed += !std::equal(got.begin(), got.end(), data.images.begin() + record * bytes);
      }
    }
    EXPECT_GT(changed, 30) << "most images are moved by a crop of padding 2";
  }
  EXPECT_EQ(data.images, original) << "the dataset itself is never changed";
}

TEST(AugmentedBatchLoader, SameBatchesForAnyNumberOfWorkers) {
  const Dataset data = random_dataset();
  const augment_math::Plan plan = augment_plan({crop(3), flip(0.5)}, 1);
  BatchLoader inline_loader(data, 5, true, 8, 0, plan);
  for (int workers : {1, 2, 3}) {
    BatchLoader loader(data, 5, true, 8, workers, plan);
    for (int epoch : {0, 1, 2}) {
      EXPECT_EQ(epoch_images(loader, epoch, data.image_bytes()),
                epoch_images(inline_loader, epoch, data.image_bytes()))
          << workers << " workers, epoch " << epoch;
    }
  }
}

TEST(AugmentedBatchLoader, EpochsGiveDifferentCropsOfTheSameOrder) {
  // Unshuffled, so both epochs hold the same records in the same places: only the crops differ.
  const Dataset data = random_dataset();
  BatchLoader loader(data, 37, false, 8, 1, augment_plan({crop(2)}, 1));
  EXPECT_NE(epoch_images(loader, 0, data.image_bytes()),
            epoch_images(loader, 1, data.image_bytes()));
  EXPECT_EQ(epoch_images(loader, 1, data.image_bytes()),
            epoch_images(loader, 1, data.image_bytes()))
      << "a resumed epoch draws what the uninterrupted one drew";
}

TEST(AugmentedBatchLoader, WithoutAPlanTheImagesAreCopiedAsTheyAre) {
  const Dataset data = random_dataset();
  BatchLoader loader(data, 37, false, 8, 0);
  EXPECT_EQ(epoch_images(loader, 3, data.image_bytes()), data.images);
}

}  // namespace
}  // namespace runner
