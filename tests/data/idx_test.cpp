// IDX reader (MNIST, Fashion-MNIST): plain and gzipped round trips, each error, the real data.
#include "runner/data/idx.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "data_files.h"
#include "runner/data/dataset_format.h"
#include "runner/util/errors.h"
#include "runner/util/random.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

std::string random_bytes(std::size_t n, std::uint64_t seed, int bound = 256) {
  Random random(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(random.below(bound));
  return out;
}

struct Split {
  std::string pixels, labels;
};

// Writes the four IDX files (28x28), plain or gzipped, and returns what they hold.
std::pair<Split, Split> write_idx_folder(const std::filesystem::path& root, int train, int test,
                                         bool gzip) {
  std::filesystem::create_directories(root);
  Split a{random_bytes(train * 784, 1), random_bytes(train, 2, 10)};
  Split b{random_bytes(test * 784, 3), random_bytes(test, 4, 10)};
  auto write = [&](const std::string& name, const std::string& bytes) {
    if (gzip) {
      testing::write_gzip(root / (name + ".gz"), bytes);
    } else {
      std::ofstream(root / name, std::ios::binary) << bytes;
    }
  };
  write("train-images-idx3-ubyte", testing::idx_images(train, 28, 28, a.pixels));
  write("train-labels-idx1-ubyte", testing::idx_labels(a.labels));
  write("t10k-images-idx3-ubyte", testing::idx_images(test, 28, 28, b.pixels));
  write("t10k-labels-idx1-ubyte", testing::idx_labels(b.labels));
  return {a, b};
}

void expect_split(const Dataset& split, const Split& expected) {
  ASSERT_EQ(split.size(), expected.labels.size());
  EXPECT_EQ(split.channels, 1);
  EXPECT_EQ(split.height, 28);
  EXPECT_EQ(split.width, 28);
  EXPECT_EQ(std::string(split.images.begin(), split.images.end()), expected.pixels);
  for (std::size_t i = 0; i < split.size(); ++i) {
    ASSERT_EQ(split.labels[i], static_cast<std::uint8_t>(expected.labels[i])) << "label " << i;
  }
}

// Loads `root` as the registry's IDX format `name` (mnist or fashion_mnist) does.
DatasetSplits load_format(const std::filesystem::path& root, const std::string& name) {
  DatasetSpec spec;
  spec.name = name;
  spec.root = root.string();
  return format_of(spec).load(spec);
}

std::string error_of(const std::filesystem::path& root, const std::string& name = "mnist") {
  try {
    load_format(root, name);
  } catch (const UserError& error) {
    return error.what();
  }
  return "no error";
}

TEST(Idx, PlainRoundTrip) {
  TempDir dir;
  auto [train, test] = write_idx_folder(dir.path(), 7, 3, false);
  DatasetSplits splits = load_format(dir.path(), "mnist");
  expect_split(splits.train, train);
  expect_split(splits.test, test);
  EXPECT_EQ(splits.train.class_names,
            (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
  EXPECT_EQ(splits.train.name, "mnist");
}

TEST(Idx, GzipRoundTrip) {
  TempDir dir;
  auto [train, test] = write_idx_folder(dir.path(), 5, 4, true);
  DatasetSplits splits = load_format(dir.path(), "fashion_mnist");
  expect_split(splits.train, train);
  expect_split(splits.test, test);
  EXPECT_EQ(splits.test.class_names.front(), "T-shirt/top");
  EXPECT_EQ(splits.test.class_names.back(), "Ankle boot");
}

TEST(Idx, PrefersThePlainFileWhenBothExist) {
  TempDir dir;
  write_idx_folder(dir.path(), 5, 4, true);
  auto [train, test] = write_idx_folder(dir.path(), 6, 2, false);
  DatasetSplits splits = load_format(dir.path(), "mnist");
  expect_split(splits.train, train);
  expect_split(splits.test, test);
}

TEST(Idx, TruncatedImagesFileNamesExpectedAndFoundBytes) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary)
      << testing::idx_images(3, 28, 28, random_bytes(3 * 784 - 10, 5));
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find((dir / "train-images-idx3-ubyte").string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated: found 2358 bytes, expected 2368 bytes"), std::string::npos)
      << message;
}

TEST(Idx, TruncatedGzipFileIsAnError) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, true);
  std::string labels = testing::idx_labels(random_bytes(3, 6, 10));
  testing::write_gzip(dir / "train-labels-idx1-ubyte.gz", labels.substr(0, 9));
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find("train-labels-idx1-ubyte.gz"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated: found 9 bytes (after gunzip), expected 11 bytes"),
            std::string::npos)
      << message;
}

TEST(Idx, CutGzipStreamIsAnError) {
  TempDir dir;
  write_idx_folder(dir.path(), 30, 2, true);
  const auto file = dir / "train-images-idx3-ubyte.gz";
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt gzip stream"), std::string::npos) << message;
}

// Issue 11: a gzip bomb was gunzipped whole before its header was read. Now the header comes
// first and reading stops one byte past what it declares.
TEST(Idx, GzipBombIsRefusedAfterTheDeclaredBytes) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, true);
  // 2 labels declared, 200 MB of zeros after them (a few hundred KB compressed).
  testing::write_gzip(dir / "t10k-labels-idx1-ubyte.gz",
                      testing::idx_labels(std::string(2, '\1')) + std::string(200 << 20, '\0'));
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find("t10k-labels-idx1-ubyte.gz: too long: more than the 10 bytes (after "
                         "gunzip) its header declares"),
            std::string::npos)
      << message;
}

TEST(Idx, AHeaderDeclaringMoreThanTheMachinesMemoryIsRefusedFirst) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary)
      << testing::idx_images(0x7fffffff, 4096, 4096, "");  // 2^31 - 1 images of 4096x4096
  std::string message;  // the reader, asked for no particular size
  try {
    load_idx(dir.path(), IdxDataset{"mnist", {"0", "1"}, "nowhere"});
  } catch (const UserError& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("its header declares 2147483647 images of 4096x4096"), std::string::npos)
      << message;
  EXPECT_NE(message.find("more than this machine's"), std::string::npos) << message;
}

TEST(Idx, ACountBeyondWhatASplitHoldsIsRefused) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "train-images-idx3-ubyte", std::ios::binary)
      << testing::idx_images(-1, 1, 1, "");  // 2^32 - 1 images of 1x1: 4 GB, an int overflows
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find("its header declares 4294967295 images, expected at most 2147483647"),
            std::string::npos)
      << message;
}

TEST(Idx, ImagesOfAnotherSizeThanTheModelsAreRefusedAtTheHeader) {
  TempDir dir;
  std::ofstream(dir / "images", std::ios::binary)
      << testing::idx_images(1'000'000, 2, 2, "");  // no payload: refused before reading it
  try {
    read_idx_images(dir / "images", {28, 28});
    FAIL() << "no error";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find((dir / "images").string() + ": the images are 1x2x2"), std::string::npos)
        << message;
    EXPECT_NE(message.find("the model's input is 1x28x28"), std::string::npos) << message;
  }
}

TEST(Idx, TooLongFileIsAnError) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "t10k-labels-idx1-ubyte", std::ios::binary)
      << testing::idx_labels(random_bytes(2, 6, 10)) << "x";
  EXPECT_NE(
      error_of(dir.path()).find("too long: more than the 10 bytes its header declares (2 labels)"),
      std::string::npos)
      << error_of(dir.path());
}

TEST(Idx, BadMagicNumber) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  // A labels file where images are expected.
  std::filesystem::copy_file(dir / "train-labels-idx1-ubyte", dir / "train-images-idx3-ubyte",
                             std::filesystem::copy_options::overwrite_existing);
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find("found the magic number of IDX labels (0x00000801), expected the magic "
                         "number 0x00000803 (IDX images)"),
            std::string::npos)
      << message;
}

TEST(Idx, ImageAndLabelCountsMustAgree) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "t10k-labels-idx1-ubyte", std::ios::binary)
      << testing::idx_labels(random_bytes(5, 6, 10));
  std::string message = error_of(dir.path());
  EXPECT_NE(message.find("t10k-labels-idx1-ubyte"), std::string::npos) << message;
  EXPECT_NE(message.find("found 5 labels, expected 2"), std::string::npos) << message;
}

TEST(Idx, LabelOutOfRange) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, false);
  std::ofstream(dir / "train-labels-idx1-ubyte", std::ios::binary)
      << testing::idx_labels(std::string("\x01\x0a\x02", 3));
  EXPECT_NE(error_of(dir.path()).find("label 1: found 10, expected 0..9"), std::string::npos);
}

TEST(Idx, MissingFileNamesBothNamesAndWhereToGetThem) {
  TempDir dir;
  write_idx_folder(dir.path(), 3, 2, true);
  std::filesystem::remove(dir / "t10k-images-idx3-ubyte.gz");
  std::string message = error_of(dir.path(), "fashion_mnist");
  EXPECT_NE(message.find((dir / "t10k-images-idx3-ubyte").string()), std::string::npos) << message;
  EXPECT_NE(message.find("t10k-images-idx3-ubyte.gz"), std::string::npos) << message;
  EXPECT_NE(message.find("by hand"), std::string::npos) << message;
}

TEST(Idx, RealFashionMnist) {
  const std::filesystem::path root = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(root / "train-images-idx3-ubyte.gz") &&
      !std::filesystem::exists(root / "train-images-idx3-ubyte")) {
    GTEST_SKIP() << "no Fashion-MNIST at " << root;
  }
  DatasetSplits splits = load_format(root, "fashion_mnist");
  ASSERT_EQ(splits.train.size(), 60000u);
  ASSERT_EQ(splits.test.size(), 10000u);
  EXPECT_EQ(splits.train.images.size(), 60000u * 784);
  EXPECT_EQ(splits.test.images.size(), 10000u * 784);
  EXPECT_EQ(splits.train.channels, 1);
  EXPECT_EQ(splits.train.height, 28);
  EXPECT_EQ(splits.train.width, 28);
  EXPECT_EQ(splits.train.class_names,
            (std::vector<std::string>{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                      "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}));
  // Fashion-MNIST is balanced: 6000 train and 1000 test images per class.
  std::vector<int> train_counts(10), test_counts(10);
  for (auto label : splits.train.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LT(label, 10);
    ++train_counts[label];
  }
  for (auto label : splits.test.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LT(label, 10);
    ++test_counts[label];
  }
  EXPECT_EQ(train_counts, std::vector<int>(10, 6000));
  EXPECT_EQ(test_counts, std::vector<int>(10, 1000));
  // Real images: dark background, bright object.
  std::set<int> values(splits.train.images.begin(), splits.train.images.begin() + 784 * 10);
  EXPECT_TRUE(values.count(0));
  EXPECT_GT(*values.rbegin(), 200);
}

}  // namespace
}  // namespace runner
