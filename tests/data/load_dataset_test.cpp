// load_dataset: dispatch on the name, limits, download errors and unknown names.
#include <gtest/gtest.h>

#include "data_files.h"
#include "runner/data/dataset.h"
#include "runner/data/synthetic.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

std::string error_of(const DatasetSpec& spec) {
  try {
    load_dataset(spec);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

TEST(LoadDataset, Cifar10LimitsKeepTheFirstRecords) {
  TempDir dir;
  auto files = testing::write_cifar10_folder(dir.path(), {3, 3, 3, 3, 3, 5}, 2);
  DatasetSpec spec;
  spec.name = "cifar10";
  spec.root = dir.path().string();
  DatasetSplits all = load_dataset(spec);
  spec.train_limit = 4;
  spec.test_limit = 2;
  DatasetSplits some = load_dataset(spec);
  ASSERT_EQ(some.train.size(), 4u);
  ASSERT_EQ(some.test.size(), 2u);
  EXPECT_EQ(some.train.images.size(), 4u * 3072);
  EXPECT_EQ(some.test.images.size(), 2u * 3072);
  EXPECT_TRUE(
      std::equal(some.train.images.begin(), some.train.images.end(), all.train.images.begin()));
  EXPECT_TRUE(
      std::equal(some.train.labels.begin(), some.train.labels.end(), all.train.labels.begin()));
  EXPECT_TRUE(
      std::equal(some.test.images.begin(), some.test.images.end(), all.test.images.begin()));
  // The fourth train record is the first of data_batch_2.bin.
  EXPECT_EQ(some.train.labels[3], static_cast<std::uint8_t>(files[1][0]));
  spec.train_limit = 1000;  // more than there is: everything
  EXPECT_EQ(load_dataset(spec).train.size(), 15u);
}

TEST(LoadDataset, SyntheticUsesTheSpecAndSeedZero) {
  DatasetSpec spec;
  spec.name = "synthetic";
  spec.synthetic.channels = 1;
  spec.synthetic.height = 5;
  spec.synthetic.width = 6;
  spec.synthetic.classes = 3;
  spec.synthetic.train_count = 40;
  spec.synthetic.test_count = 10;
  spec.test_limit = 4;
  DatasetSplits splits = load_dataset(spec);
  DatasetSplits expected = make_synthetic(spec.synthetic, 0);
  EXPECT_EQ(splits.train.images, expected.train.images);
  EXPECT_EQ(splits.train.labels, expected.train.labels);
  ASSERT_EQ(splits.test.size(), 4u);
  EXPECT_EQ(splits.test.image_bytes(), 30u);
  EXPECT_EQ(splits.test.classes(), 3);
}

TEST(LoadDataset, IdxByName) {
  TempDir dir;
  std::string pixels(2 * 784, '\x07');
  testing::write_gzip(dir / "train-images-idx3-ubyte.gz", testing::idx_images(2, 28, 28, pixels));
  testing::write_gzip(dir / "train-labels-idx1-ubyte.gz", testing::idx_labels("\x03\x09"));
  testing::write_gzip(dir / "t10k-images-idx3-ubyte.gz", testing::idx_images(2, 28, 28, pixels));
  testing::write_gzip(dir / "t10k-labels-idx1-ubyte.gz", testing::idx_labels("\x01\x02"));
  DatasetSpec spec;
  spec.name = "fashion_mnist";
  spec.root = dir.path().string();
  spec.train_limit = 1;
  DatasetSplits splits = load_dataset(spec);
  ASSERT_EQ(splits.train.size(), 1u);
  EXPECT_EQ(splits.train.labels[0], 3);
  EXPECT_EQ(splits.test.labels, (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(splits.train.class_names[3], "Dress");
  spec.name = "mnist";
  EXPECT_EQ(load_dataset(spec).train.class_names[3], "3");
}

TEST(LoadDataset, RealFashionMnistWithLimits) {
  const char* root = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no Fashion-MNIST at " << root;
  DatasetSpec spec;
  spec.name = "fashion_mnist";
  spec.root = root;
  spec.train_limit = 1000;
  spec.test_limit = 500;
  DatasetSplits splits = load_dataset(spec);
  EXPECT_EQ(splits.train.size(), 1000u);
  EXPECT_EQ(splits.test.size(), 500u);
  EXPECT_EQ(splits.train.images.size(), 1000u * 784);
}

TEST(LoadDataset, MissingCifar10WithDownloadFromAnUnreachableUrl) {
  TempDir dir;
  DatasetSpec spec;
  spec.name = "cifar10";
  spec.root = (dir / "cifar10").string();
  spec.download = true;
  spec.url = "http://127.0.0.1:1/x";
  std::string message = error_of(spec);
  EXPECT_NE(message.find("http://127.0.0.1:1/x"), std::string::npos) << message;
  EXPECT_NE(message.find("put the files by hand"), std::string::npos) << message;
}

TEST(LoadDataset, UnknownNameSuggestsTheClosest) {
  DatasetSpec spec;
  spec.name = "cifar1O";
  std::string message = error_of(spec);
  EXPECT_NE(message.find("dataset.name: unknown dataset 'cifar1O'"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean cifar10?"), std::string::npos) << message;
  EXPECT_NE(message.find("synthetic"), std::string::npos) << message;
}

TEST(LoadDataset, EmptyRootIsAUserError) {
  DatasetSpec spec;
  spec.name = "mnist";
  EXPECT_NE(error_of(spec).find("dataset.root"), std::string::npos);
}

}  // namespace
}  // namespace runner
