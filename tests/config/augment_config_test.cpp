// dataset.augment: steps resolved in order with their defaults and recorded in the resolved
// config; a crop to another size than the image, bad padding and p outside [0, 1] are
// UserErrors naming the field.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/data/augmentation.h"
#include "test_support.h"

namespace runner {
namespace {

std::string config_with(const std::string& dataset) {
  return "name: augmented\n"
         "dataset: " +
         dataset +
         "\n"
         "model:\n"
         "  layers:\n"
         "    - {name: flat, type: flatten}\n"
         "    - {name: fc, type: linear, out_features: 10}\n"
         "training: {batch_size: 4}\n";
}

Experiment load(const std::string& dataset) {
  testing::TempDir dir;
  return load_experiment(dir.write("augmented.yaml", config_with(dataset)), {});
}

std::string error_of(const std::string& dataset) {
  try {
    Experiment e = load(dataset);
    return "no error; resolved: " + e.resolved.dump();
  } catch (const UserError& error) {
    return error.what();
  }
}

TEST(AugmentConfig, StepsResolveInOrderWithDefaults) {
  Experiment e = load(
      "{name: cifar10, augment: [{random_crop: {size: 32, padding: 4}}, {horizontal_flip: {}}, "
      "{random_crop: {size: [32, 32]}}, {horizontal_flip: {p: 0.25}}]}");
  ASSERT_EQ(e.dataset.augment.size(), 4u);
  EXPECT_EQ(e.dataset.augment[0].kind, "random_crop");
  EXPECT_EQ(e.dataset.augment[0].op->pixel_move()->padding, 4);
  EXPECT_EQ(e.dataset.augment[1].kind, "horizontal_flip");
  EXPECT_EQ(e.dataset.augment[1].op->pixel_move()->p, 0.5);
  EXPECT_EQ(e.dataset.augment[2].op->pixel_move()->padding, 0);
  EXPECT_EQ(e.dataset.augment[3].op->pixel_move()->p, 0.25);
  const nlohmann::json expected = nlohmann::json::parse(R"([
      {"random_crop": {"size": [32, 32], "padding": 4}}, {"horizontal_flip": {"p": 0.5}},
      {"random_crop": {"size": [32, 32], "padding": 0}}, {"horizontal_flip": {"p": 0.25}}])");
  EXPECT_EQ(e.resolved["dataset"]["augment"], expected);
}

TEST(AugmentConfig, CropSizeDefaultsToTheImageOfEachDataset) {
  Experiment mnist = load("{name: fashion_mnist, augment: [{random_crop: {padding: 2}}]}");
  EXPECT_EQ(mnist.resolved["dataset"]["augment"][0]["random_crop"]["size"],
            nlohmann::json::parse("[28, 28]"));
  Experiment synthetic = load(
      "{name: synthetic, synthetic: {height: 12, width: 9}, augment: [{random_crop: {size: [12, "
      "9], "
      "padding: 3}}]}");
  EXPECT_EQ(synthetic.dataset.augment[0].op->pixel_move()->padding, 3);
}

TEST(AugmentConfig, TheRecipesKindsResolveWithEveryDefaultWritten) {
  Experiment e = load(
      "{name: cifar10, augment: [{random_resized_crop: {}}, {color_jitter: {brightness: 0.4}}, "
      "{trivial_augment_wide: {}}, {random_erasing: {value: random}}]}");
  ASSERT_EQ(e.dataset.augment.size(), 4u);
  EXPECT_FALSE(e.dataset.augment[0].op->pixel_move().has_value());
  const nlohmann::json expected = nlohmann::json::parse(R"([
      {"random_resized_crop": {"size": [32, 32], "scale": [0.08, 1.0],
                               "ratio": [0.75, 1.3333333333333333]}},
      {"color_jitter": {"brightness": [0.6, 1.4], "contrast": 0, "saturation": 0, "hue": 0,
                        "p": 1.0}},
      {"trivial_augment_wide": {"num_magnitude_bins": 31, "fill": 0}},
      {"random_erasing": {"p": 0.5, "scale": [0.02, 0.33], "ratio": [0.3, 3.3],
                          "value": "random"}}])");
  EXPECT_EQ(e.resolved["dataset"]["augment"], expected);
}

TEST(AugmentConfig, NoAugmentIsNotRecorded) {
  Experiment e = load("{name: cifar10}");
  EXPECT_TRUE(e.dataset.augment.empty());
  EXPECT_FALSE(e.resolved["dataset"].contains("augment"));
}

struct BadCase {
  std::string dataset;
  std::vector<std::string> expected;  // substrings of the message
};

TEST(AugmentConfig, BadStepsNameTheField) {
  const std::vector<BadCase> cases = {
      {"{name: cifar10, augment: [{random_crop: {size: 24, padding: 4}}]}",
       {"augmented.yaml:", "dataset.augment[0].random_crop.size", "found 24",
        "the image size 32x32"}},
      {"{name: fashion_mnist, augment: [{horizontal_flip: {}}, {random_crop: {size: [28, 24]}}]}",
       {"dataset.augment[1].random_crop.size", "found [28,24]", "28x28"}},
      {"{name: cifar10, augment: [{random_crop: {padding: -1}}]}",
       {"dataset.augment[0].random_crop.padding", "-1"}},
      {"{name: cifar10, augment: [{random_crop: {padding: 33}}]}",
       {"dataset.augment[0].random_crop.padding", "found 33", "from 0 to 32"}},
      {"{name: cifar10, augment: [{horizontal_flip: {p: 1.5}}]}",
       {"dataset.augment[0].horizontal_flip.p", "1.5"}},
      {"{name: cifar10, augment: [{horizontal_flip: {p: -0.1}}]}",
       {"dataset.augment[0].horizontal_flip.p", "-0.1"}},
      {"{name: cifar10, augment: [{rotate: {}}]}", {"dataset.augment[0]", "rotate"}},
      {"{name: cifar10, augment: [{random_crop: {padding: 4}, horizontal_flip: {}}]}",
       {"dataset.augment[0]"}},
      {"{name: cifar10, augment: {random_crop: {padding: 4}}}", {"dataset.augment"}},
      // The recipes' kinds read their own settings, naming the field.
      {"{name: cifar10, augment: [{color_jitter: {hue: 0.7}}]}",
       {"dataset.augment[0].color_jitter.hue", "found 0.7"}},
      {"{name: cifar10, augment: [{color_jitter: {brightness: [1.5, 0.5]}}]}",
       {"dataset.augment[0].color_jitter.brightness", "low <= high"}},
      {"{name: cifar10, augment: [{gaussian_blur: {kernel_size: 4}}]}",
       {"dataset.augment[0].gaussian_blur.kernel_size", "found 4", "odd"}},
      {"{name: cifar10, augment: [{gaussian_blur: {kernel_size: 65}}]}",
       {"dataset.augment[0].gaussian_blur.kernel_size", "from 1 to 63"}},
      {"{name: cifar10, augment: [{gaussian_blur: {}}]}",
       {"dataset.augment[0].gaussian_blur.kernel_size"}},
      {"{name: cifar10, augment: [{random_rotation: {}}]}",
       {"dataset.augment[0].random_rotation.degrees"}},
      {"{name: cifar10, augment: [{random_rotation: {degrees: 10, fill: [1, 2]}}]}",
       {"dataset.augment[0].random_rotation.fill", "a list of 3"}},
      {"{name: cifar10, augment: [{random_resized_crop: {size: 24}}]}",
       {"dataset.augment[0].random_resized_crop.size", "[32, 32]"}},
      {"{name: cifar10, augment: [{random_resized_crop: {scale: [0.5, 0.2]}}]}",
       {"dataset.augment[0].random_resized_crop.scale", "low <= high"}},
      {"{name: cifar10, augment: [{random_erasing: {value: [0, 1]}}]}",
       {"dataset.augment[0].random_erasing.value", "a list of 3"}},
      {"{name: cifar10, augment: [{random_affine: {shear: [1, 2, 3]}}]}",
       {"dataset.augment[0].random_affine.shear"}},
      {"{name: cifar10, augment: [{rand_augment: {magnitude: 31}}]}",
       {"dataset.augment[0].rand_augment.magnitude", "from 0 to 30"}},
      {"{name: synthetic, synthetic: {channels: 4}, augment: [{color_jitter: {}}]}",
       {"dataset.augment[0].color_jitter", "1 or 3 channels", "these have 4"}},
  };
  for (const BadCase& c : cases) {
    const std::string message = error_of(c.dataset);
    for (const std::string& expected : c.expected) {
      EXPECT_NE(message.find(expected), std::string::npos)
          << "config: " << c.dataset << "\nexpected: " << expected << "\nmessage:  " << message;
    }
  }
}

// resize and center_crop change the size; the list must end at the model's input, which the
// config follows from the stored image (or, per_epoch, from a photo of unknown size).
TEST(AugmentConfig, ResizeAndCropsMustEndAtTheModelsInputSize) {
  Experiment e = load(
      "{name: cifar10, augment: [{resize: {size: 40}}, {random_crop: {}}, {horizontal_flip: {}}]}");
  EXPECT_EQ(e.resolved["dataset"]["augment"][0],
            nlohmann::json::parse(R"({"resize": {"size": 40}})"));
  EXPECT_EQ(e.resolved["dataset"]["augment"][1]["random_crop"]["size"],
            nlohmann::json::parse("[32, 32]"));
  Experiment crop =
      load("{name: cifar10, augment: [{resize: {size: [48, 40]}}, {center_crop: {}}]}");
  EXPECT_EQ(crop.resolved["dataset"]["augment"][1],
            nlohmann::json::parse(R"({"center_crop": {"size": [32, 32]}})"));
  EXPECT_NO_THROW(load("{name: cifar10, augment: [{center_crop: {size: 36}}, {random_crop: {}}]}"));
  // A photo as decoded, resized and cropped: the reference recipe's Resize(256) + RandomCrop.
  const std::string folder =
      "{name: image_folder, root: /nonexistent, image_size: [12, 10], "
      "decode: per_epoch, augment: ";
  EXPECT_NO_THROW(load(folder + "[{resize: {size: 16}}, {random_crop: {}}]}"));
  EXPECT_NO_THROW(load(folder + "[{horizontal_flip: {}}]}"))
      << "a first step made for one size gets the image resized to the model's input";

  const std::vector<BadCase> cases = {
      {"{name: cifar10, augment: [{resize: {size: 40}}, {horizontal_flip: {}}]}",
       {"augmented.yaml:", "dataset.augment[0].resize", "images of 40x40", "takes 32x32",
        "center_crop, random_crop or random_resized_crop"}},
      {"{name: cifar10, augment: [{center_crop: {size: [24, 28]}}]}",
       {"dataset.augment[0].center_crop", "images of 24x28", "takes 32x32"}},
      {"{name: cifar10, augment: [{random_crop: {}}, {resize: {size: 16}}]}",
       {"dataset.augment[1].resize", "images of 16x16"}},
      {folder + "[{resize: {size: 16}}]}",
       {"dataset.augment[0].resize", "depends on each photo", "12x10"}},
      {folder + "[{resize: {size: 16}}, {color_jitter: {brightness: 0.2}}]}",
       {"dataset.augment[0].resize", "depends on each photo"}},
      {"{name: cifar10, augment: [{resize: {}}]}", {"dataset.augment[0].resize.size"}},
      {"{name: cifar10, augment: [{resize: {size: [0, 4]}}]}", {"dataset.augment[0].resize.size"}},
      {"{name: cifar10, augment: [{center_crop: {size: -3}}]}",
       {"dataset.augment[0].center_crop.size"}},
  };
  for (const BadCase& c : cases) {
    const std::string message = error_of(c.dataset);
    for (const std::string& expected : c.expected) {
      EXPECT_NE(message.find(expected), std::string::npos)
          << "config: " << c.dataset << "\nexpected: " << expected << "\nmessage:  " << message;
    }
  }
}

// A validation split beside a validation file of its own would be ignored and still recorded:
// refused, naming both (not about augment, but the same dataset block).
TEST(DatasetConfig, AValidationFileAndAValidationSplitTogetherAreRefused) {
  const std::string message = error_of(
      "{name: csv, root: /tmp, image_size: 8, train: train.csv, validation: val.csv, "
      "validation_split: 0.1}");
  EXPECT_NE(message.find("dataset.validation_split"), std::string::npos) << message;
  EXPECT_NE(message.find("beside dataset.validation ('val.csv')"), std::string::npos) << message;
  EXPECT_EQ(error_of("{name: csv, root: /tmp, image_size: 8, train: train.csv, validation: "
                     "val.csv}")
                .rfind("no error", 0),
            0u);
}

}  // namespace
}  // namespace runner
