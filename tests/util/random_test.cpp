// Tests of the portable random source: fixed sequences, permutations, bounds.
#include "runner/util/random.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runner/util/errors.h"

namespace runner {

TEST(Random, SameSeedSameSequenceDifferentSeedDifferent) {
  Random a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    EXPECT_NE(x, c.next_u64());
  }
}

TEST(Random, BelowStaysInRangeAndCoversIt) {
  Random random(7);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 5000; ++i) {
    auto v = random.below(5);
    ASSERT_LT(v, 5u);
    ++seen[v];
  }
  for (int count : seen) EXPECT_GT(count, 800);
}

TEST(Random, ShuffledIndicesIsAPermutationThatDependsOnTheSeed) {
  auto a = shuffled_indices(1000, 1);
  auto b = shuffled_indices(1000, 2);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  for (std::uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(a[i], i);
}

TEST(NearestMatch, SuggestsCloseWordsOnly) {
  EXPECT_EQ(nearest_match("kernal", {"kernel", "stride", "padding"}), "kernel");
  EXPECT_EQ(nearest_match("conv2", {"conv2d", "linear"}), "conv2d");
  EXPECT_EQ(nearest_match("zzzzzz", {"kernel", "stride"}), "");
}

}  // namespace runner
