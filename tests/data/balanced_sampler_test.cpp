// The balanced sampler's draws: as many as the images, every class about equally often whatever
// its size, the same for a seed and epoch and new for the next epoch; and in the loader, an image
// drawn twice in an epoch is augmented twice, not copied.
#include "runner/data/balanced_sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runner/data/augment.h"
#include "runner/data/augmentation.h"
#include "runner/data/batch_loader.h"

namespace runner {
namespace {

// 1,000 images of class 0, 100 of class 1, 10 of class 3 (none of class 2).
std::vector<std::int32_t> skewed_labels() {
  std::vector<std::int32_t> labels;
  for (int i = 0; i < 1000; ++i) labels.push_back(0);
  for (int i = 0; i < 100; ++i) labels.push_back(1);
  for (int i = 0; i < 10; ++i) labels.push_back(3);
  return labels;
}

TEST(BalancedSampler, DrawsEveryClassWithImagesAboutEquallyOften) {
  const std::vector<std::int32_t> labels = skewed_labels();
  std::map<int, int> drawn;
  int epochs = 0;
  for (int epoch = 0; epoch < 9; ++epoch, ++epochs) {
    const std::vector<std::uint32_t> order = balanced_order(labels, 5, epoch);
    ASSERT_EQ(order.size(), labels.size());
    for (std::uint32_t i : order) ++drawn[labels.at(i)];
  }
  const double each = 9.0 * labels.size() / 3;  // three classes have images
  EXPECT_EQ(drawn.count(2), 0u);
  for (int k : {0, 1, 3}) EXPECT_NEAR(drawn[k], each, 0.05 * each) << "class " << k;
}

TEST(BalancedSampler, IsSeededPerEpochAndDrawsWithReplacement) {
  const std::vector<std::int32_t> labels = skewed_labels();
  EXPECT_EQ(balanced_order(labels, 5, 1), balanced_order(labels, 5, 1));
  EXPECT_NE(balanced_order(labels, 5, 1), balanced_order(labels, 5, 2));
  EXPECT_NE(balanced_order(labels, 5, 1), balanced_order(labels, 6, 1));
  const std::vector<std::uint32_t> order = balanced_order(labels, 5, 1);
  // The ten images of class 3 fill about a third of 1,110 draws: each comes up many times.
  EXPECT_LT(std::set<std::uint32_t>(order.begin(), order.end()).size(), order.size());
  EXPECT_TRUE(balanced_order({}, 5, 1).empty());
}

TEST(BalancedSampler, TheLoaderAugmentsEachDrawOfAnImageAfresh) {
  Dataset data;
  data.channels = 1;
  data.height = data.width = 8;
  data.class_names = {"a", "b"};
  for (int i = 0; i < 64; ++i) {
    for (int p = 0; p < 64; ++p) data.images.push_back(static_cast<std::uint8_t>(p * 3 + i));
    data.labels.push_back(i == 0 ? 1 : 0);  // image 0 alone in class 1: drawn half the time
  }
  const std::vector<AugmentStep> steps = {
      make_augment_step("random_crop", {{"padding", 3}}, {{3, 32, 32}, {}, {}})};
  const augment_math::Plan plan = augment_plan(steps, 11);
  BatchLoader loader(data, 64, true, 5, 0, plan, true);
  loader.start_epoch(0);
  BatchView batch{};
  ASSERT_TRUE(loader.next(batch));
  std::set<std::vector<std::uint8_t>> crops_of_image0;
  int draws_of_image0 = 0;
  for (int i = 0; i < batch.size; ++i) {
    if (batch.labels[i] != 1) continue;
    ++draws_of_image0;
    crops_of_image0.emplace(batch.images + i * 64, batch.images + (i + 1) * 64);
  }
  EXPECT_GT(draws_of_image0, 16);
  EXPECT_GT(crops_of_image0.size(), 8u);  // 49 crops to draw from: not one copy
}

}  // namespace
}  // namespace runner
