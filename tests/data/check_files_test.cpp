// What `runner validate` reads of a dataset's files (issue 24): the headers that loading would
// refuse, without the images, and the files that are not there yet.
#include <gtest/gtest.h>

#include <fstream>

#include "data_files.h"
#include "runner/data/cifar10.h"
#include "runner/data/cifar_records.h"
#include "runner/data/idx.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

void write_idx_set(const TempDir& dir, int rows, int cols, int labels) {
  const std::string pixels(static_cast<std::size_t>(2 * rows * cols), '\0');
  for (const char* prefix : {"train", "t10k"}) {
    dir.write(std::string(prefix) + "-images-idx3-ubyte",
              testing::idx_images(2, rows, cols, pixels));
    dir.write(std::string(prefix) + "-labels-idx1-ubyte",
              testing::idx_labels(std::string(static_cast<std::size_t>(labels), '\1')));
  }
}

std::string error_of(const std::function<void()>& check) {
  try {
    check();
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(CheckFiles, IdxHeadersAreCheckedAsLoadingChecksThem) {
  TempDir dir;
  write_idx_set(dir, 28, 28, 2);
  EXPECT_TRUE(check_idx_headers(dir.path(), {28, 28}).empty());
  write_idx_set(dir, 32, 32, 2);
  EXPECT_NE(error_of([&] {
              check_idx_headers(dir.path(), {28, 28});
            })
                .find("train-images-idx3-ubyte: the images are 1x32x32 (channels x height x "
                      "width), but the model's input is 1x28x28"),
            std::string::npos);
  write_idx_set(dir, 28, 28, 3);
  EXPECT_NE(error_of([&] {
              check_idx_headers(dir.path(), {28, 28});
            }).find("train-labels-idx1-ubyte: found 3 labels, expected 2 (one per image"),
            std::string::npos);
  // A wrong magic number or a short header: the words loading uses.
  write_idx_set(dir, 28, 28, 2);
  dir.write("t10k-labels-idx1-ubyte", std::string("<html>", 6));
  EXPECT_NE(error_of([&] {
              check_idx_headers(dir.path(), {28, 28});
            }).find("t10k-labels-idx1-ubyte: found text, expected the magic number 0x00000801"),
            std::string::npos);
  dir.write("t10k-labels-idx1-ubyte", testing::idx_labels("\1\1").substr(0, 6));
  EXPECT_NE(error_of([&] {
              check_idx_headers(dir.path(), {28, 28});
            })
                .find("t10k-labels-idx1-ubyte: truncated: found 6 bytes, expected at least the "
                      "8-byte header of an IDX labels file"),
            std::string::npos);
}

TEST(CheckFiles, AbsentFilesAreListedNotThrown) {
  TempDir dir;
  EXPECT_EQ(check_idx_headers(dir.path(), {28, 28}),
            (std::vector<std::string>{"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                      "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}));
  EXPECT_EQ(check_cifar_files(cifar10_files(), dir.path()).size(), 6u);
}

TEST(CheckFiles, CifarFilesThatAreNotWholeRecordsAreRefused) {
  TempDir dir;
  testing::write_cifar10_folder(dir.path(), {1, 1, 1, 1, 1, 1}, 5);
  EXPECT_TRUE(check_cifar_files(cifar10_files(), dir.path()).empty());
  dir.write("data_batch_2.bin", std::string(3073 + 5, '\0'));
  EXPECT_NE(error_of([&] { check_cifar_files(cifar10_files(), dir.path()); })
                .find("data_batch_2.bin: found 3078 bytes, expected a whole number of 3073-byte "
                      "records"),
            std::string::npos);
}

}  // namespace
}  // namespace runner
