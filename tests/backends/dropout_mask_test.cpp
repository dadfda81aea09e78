// Dropout masks (backends/common/dropout_math.h): the kept fraction is 1 - p, and a mask
// changes with the step, the layer and the seed, but not between calls.
#include <gtest/gtest.h>

#include <cstdint>

#include "backends/common/dropout_math.h"

namespace runner {
namespace {

using namespace dropout_math;

double kept_fraction(std::uint64_t key, float p, int count) {
  int kept = 0;
  for (int i = 0; i < count; ++i) kept += keeps(key, i, p);
  return static_cast<double>(kept) / count;
}

int differences(std::uint64_t a, std::uint64_t b, float p, int count) {
  int differ = 0;
  for (int i = 0; i < count; ++i) differ += keeps(a, i, p) != keeps(b, i, p);
  return differ;
}

TEST(DropoutMask, KeepsOneMinusPOfTheValues) {
  const std::uint64_t key = step_key(42, 7, layer_key("drop1"));
  for (float p : {0.1f, 0.5f, 0.9f}) {
    EXPECT_NEAR(kept_fraction(key, p, 200000), 1.0 - p, 0.005) << "p = " << p;
  }
  EXPECT_EQ(kept_fraction(key, 0.f, 1000), 1.0);
}

TEST(DropoutMask, DependsOnStepLayerAndSeedOnly) {
  const std::uint64_t layer = layer_key("drop1");
  const std::uint64_t base = step_key(42, 7, layer);
  EXPECT_EQ(differences(base, step_key(42, 7, layer), 0.5f, 10000), 0);
  // Independent masks differ in about half the values at p = 0.5.
  for (std::uint64_t other :
       {step_key(42, 8, layer), step_key(43, 7, layer), step_key(42, 7, layer_key("drop2"))}) {
    EXPECT_NEAR(differences(base, other, 0.5f, 10000), 5000, 300);
  }
}

TEST(DropoutMask, NeighbouringValuesAreIndependent) {
  const std::uint64_t key = step_key(1, 0, layer_key("d"));
  int both = 0;
  for (int i = 0; i < 100000; i += 2) both += keeps(key, i, 0.5f) && keeps(key, i + 1, 0.5f);
  EXPECT_NEAR(both / 50000.0, 0.25, 0.01);
}

}  // namespace
}  // namespace runner
