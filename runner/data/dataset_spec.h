// The dataset part of a resolved experiment: which format reads which files, and how the images
// are prepared. Plain structs, shared by the config (which fills them) and the data loaders.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct DatasetFormat;

struct Normalization {
  std::vector<float> mean;  // one per channel
  std::vector<float> std;   // one per channel
};

// The image every record of a dataset has, and the model's input: known from the config alone.
struct ImageShape {
  int channels = 0, height = 0, width = 0;
};

struct SyntheticSpec {
  int channels = 3, height = 32, width = 32;
  int classes = 10;
  int train_count = 1024;
  int test_count = 256;
};

// One step of dataset.augment, applied to each training image in the order given (the kinds:
// augmentation.h). Every step keeps the image's size (the graph's input does not change).
class Augmentation;
inline constexpr int kMaxAugmentSteps = 8;
struct AugmentStep {
  std::string kind;                        // the registry's name: random_crop, color_jitter, ...
  std::shared_ptr<const Augmentation> op;  // its settings, read and checked
};

// dataset.max_image_bytes' default: the most memory decoding one image may hold (see
// decode_image), per decoding worker. It reads an 8-bit RGB image of 59 million pixels (a 50
// megapixel photo) and refuses the 2.5 GB a 16-bit RGBA PNG of 16384x10922 pixels would take.
inline constexpr std::int64_t kDefaultMaxImageBytes = std::int64_t{512} << 20;

// What to do with an image file that cannot be decoded: stop before training, or leave it out
// with a warning (dataset.on_bad_file).
enum class OnBadFile { error, skip };

// The formats that read image files (image_folder, csv): where the splits are and what the
// decoded images become.
// How a decoded image of any size becomes the model's input size (dataset.eval_transform; the
// pixels: image_fit.h): by default resized to it.
struct ImageFit {
  int shorter_side = 0;                     // > 0: Resize(shorter_side), the aspect ratio kept
  int resize_height = 0, resize_width = 0;  // > 0: Resize((h, w))
  bool center_crop = false;                 // then CenterCrop to the input size
  // dataset.jpeg_draft: a JPEG decoded at the DCT scale its first resize needs (DraftSize).
  bool jpeg_draft = false;
  // No eval_transform step (the draft is not one).
  bool is_default() const { return shorter_side == 0 && resize_height == 0 && !center_crop; }
};

struct ImageFilesSpec {
  ImageShape image{3, 0, 0};  // channels and image_size: every image is converted and resized
  std::string train;          // the training split under the root: a folder or a CSV file
  std::string test;           // "" with test_absent
  bool test_absent = false;   // test: null, only the validation split measures the model
  std::string validation;     // a folder (image_folder) or file (csv) instead of a split
  OnBadFile on_bad_file = OnBadFile::error;
  std::string cache;  // folder of the decoded-image cache ("": the user's cache folder)
  // The most bytes decoding one image may hold (dataset.max_image_bytes): a larger image is a
  // bad file, refused before its pixels are allocated.
  std::int64_t max_image_bytes = kDefaultMaxImageBytes;
  // dataset.eval_transform: how the test and validation images are fitted (the training images
  // are resized to the input size); its jpeg_draft is dataset.jpeg_draft, for every split.
  ImageFit eval_fit;
  // dataset.decode: per_epoch: the training images are decoded as their batches are made
  // (encoded_images.h), not all before the first epoch.
  bool decode_per_epoch = false;
  // csv: rows may name files outside the dataset root and the CSV's folder (absolute paths,
  // "..", symlinks leading out); by default such a row is an error, as a CSV from elsewhere
  // could name any file the user may read.
  bool allow_outside_root = false;
};

// CIFAR-100's two label sets: 100 fine classes or 20 superclasses.
enum class CifarLabel { fine, coarse };

struct DatasetSpec {
  std::string name;                       // the format's name, as the config gives it
  const DatasetFormat* format = nullptr;  // the registry's entry for `name`, set once resolved
  std::string root;                       // folder of the dataset files
  bool download = false;
  std::string url;  // download source ("": the official one)
  Normalization normalize;
  bool shuffle = true;
  // dataset.sampler: balanced draws every class equally often, with replacement
  // (balanced_sampler.h); false: every image once per epoch, in shuffle's order.
  bool balanced_sampler = false;
  // dataset.workers: the batch loader's background threads (and the decoding threads of image
  // files); empty: auto, planned against the cores (runner/data/loader_threads.h).
  std::optional<int> workers;
  std::int64_t train_limit = 0;  // 0: all; else the first N records (subsets for benchmarks)
  std::int64_t test_limit = 0;
  double validation_split = 0;       // the share of each class's training rows held out (0: none)
  std::vector<AugmentStep> augment;  // training set only; empty: none
  // The format's own settings; each format reads and uses only its own.
  SyntheticSpec synthetic;
  ImageFilesSpec files;
  CifarLabel label = CifarLabel::fine;
};

}  // namespace runner
