// Synthetic data: determinism per seed, shapes, label range, and that it is learnable.
#include "runner/data/synthetic.h"

#include <gtest/gtest.h>

#include <fstream>

#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

SyntheticSpec small_spec() {
  SyntheticSpec spec;
  spec.channels = 3;
  spec.height = 8;
  spec.width = 8;
  spec.classes = 4;
  spec.train_count = 200;
  spec.test_count = 100;
  return spec;
}

TEST(Synthetic, ShapesCountsAndNames) {
  DatasetSplits splits = make_synthetic(small_spec(), 1);
  EXPECT_EQ(splits.train.size(), 200u);
  EXPECT_EQ(splits.test.size(), 100u);
  EXPECT_EQ(splits.train.images.size(), 200u * 3 * 8 * 8);
  EXPECT_EQ(splits.test.images.size(), 100u * 3 * 8 * 8);
  EXPECT_EQ(splits.train.channels, 3);
  EXPECT_EQ(splits.train.height, 8);
  EXPECT_EQ(splits.train.width, 8);
  EXPECT_EQ(splits.train.class_names,
            (std::vector<std::string>{"class0", "class1", "class2", "class3"}));
  std::vector<int> counts(4);
  for (auto label : splits.train.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LT(label, 4);
    ++counts[label];
  }
  for (int count : counts) EXPECT_GT(count, 25) << "labels should be roughly uniform";
}

TEST(Synthetic, SameSeedSameBytesDifferentSeedDifferent) {
  DatasetSplits a = make_synthetic(small_spec(), 7);
  DatasetSplits b = make_synthetic(small_spec(), 7);
  DatasetSplits c = make_synthetic(small_spec(), 8);
  EXPECT_EQ(a.train.images, b.train.images);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_EQ(a.test.images, b.test.images);
  EXPECT_EQ(a.test.labels, b.test.labels);
  EXPECT_NE(a.train.images, c.train.images);
  EXPECT_NE(a.train.labels, c.train.labels);
  EXPECT_NE(a.test.images, c.test.images);
  EXPECT_NE(a.train.images, a.test.images);  // the splits are not copies of each other
}

TEST(Synthetic, NearestClassMeanLearnsIt) {
  // If a class-mean classifier fit on train labels test images well, a network can learn it.
  DatasetSplits splits = make_synthetic(small_spec(), 3);
  const std::size_t bytes = splits.train.image_bytes();
  std::vector<double> means(4 * bytes, 0.0);
  std::vector<int> counts(4, 0);
  for (std::size_t i = 0; i < splits.train.size(); ++i) {
    const int label = splits.train.labels[i];
    ++counts[label];
    for (std::size_t p = 0; p < bytes; ++p)
      means[label * bytes + p] += splits.train.images[i * bytes + p];
  }
  for (int c = 0; c < 4; ++c) {
    for (std::size_t p = 0; p < bytes; ++p) means[c * bytes + p] /= counts[c];
  }
  int correct = 0;
  for (std::size_t i = 0; i < splits.test.size(); ++i) {
    int best = -1;
    double best_distance = 1e300;
    for (int c = 0; c < 4; ++c) {
      double distance = 0;
      for (std::size_t p = 0; p < bytes; ++p) {
        double d = splits.test.images[i * bytes + p] - means[c * bytes + p];
        distance += d * d;
      }
      if (distance < best_distance) best_distance = distance, best = c;
    }
    correct += best == splits.test.labels[i];
  }
  EXPECT_GE(correct, 95) << "of 100";
}

TEST(Synthetic, NoisyButNotConstant) {
  // Two samples of the same class differ (noise), but by at most twice the noise bound.
  DatasetSplits splits = make_synthetic(small_spec(), 5);
  const std::size_t bytes = splits.train.image_bytes();
  std::size_t first = 0, second = 1;
  while (splits.train.labels[second] != splits.train.labels[first]) ++second;
  int max_difference = 0;
  for (std::size_t p = 0; p < bytes; ++p) {
    int d =
        std::abs(splits.train.images[first * bytes + p] - splits.train.images[second * bytes + p]);
    max_difference = std::max(max_difference, d);
  }
  EXPECT_GT(max_difference, 0);
  EXPECT_LE(max_difference, 2 * kSyntheticNoise);
}

TEST(Synthetic, BadSpecIsAUserError) {
  SyntheticSpec spec = small_spec();
  spec.classes = 0;
  try {
    make_synthetic(spec);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(
        std::string(error.what()).find("dataset.synthetic.classes: found 0, expected at least 1"),
        std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace runner

namespace runner {
namespace {

// scripts/synthetic_data.py gives the PyTorch benchmark peer the runner's exact images.
TEST(Synthetic, ThePythonRebuildMatchesByteForByte) {
  if (testing::run_command("/usr/bin/python3 -c 'import numpy'").exit_code != 0) {
    GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  }
  SyntheticSpec spec{3, 8, 6, 7, 40, 9};
  DatasetSplits data = make_synthetic(spec, 0);
  testing::TempDir tmp;
  auto out = tmp / "synthetic.bin";
  auto result = testing::run_command(
      "/usr/bin/python3 " + (testing::source_dir() / "scripts" / "synthetic_data.py").string() +
      " 3 8 6 7 40 9 " + out.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::string expected;
  for (const Dataset* split : {&data.train, &data.test}) {
    expected.append(reinterpret_cast<const char*>(split->images.data()), split->images.size());
    expected.append(reinterpret_cast<const char*>(split->labels.data()), split->labels.size() * 4);
  }
  std::ifstream in(out, std::ios::binary);
  std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(actual.size(), expected.size());
  EXPECT_TRUE(actual == expected) << "the Python rebuild differs from runner/data/synthetic.cpp";
}

}  // namespace
}  // namespace runner
