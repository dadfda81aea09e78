// The augmentations' pixel operations against torchvision 0.14 on PIL images
// (tests/data/augment_golden.json, made by scripts/augment_golden.py): every pixel must match,
// for grey and RGB images of several sizes; the blur, whose float sums torchvision leaves to
// oneDNN's order, may differ by one on a few pixels. And the magnitude spaces of
// TrivialAugmentWide and RandAugment, value for value within a float32 rounding step.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "image_writers.h"
#include "runner/data/autoaugment_ops.h"
#include "runner/data/image_blur.h"
#include "runner/data/image_color.h"
#include "runner/data/image_geometry.h"
#include "runner/data/image_resize.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::from_hex;

const nlohmann::json& augment_golden() {
  static const nlohmann::json g =
      nlohmann::json::parse(read_file(testing::source_dir() / "tests/data/augment_golden.json"));
  return g;
}

AutoAugmentOp op_named(const std::string& name) {
  for (int k = 0; k < kAutoAugmentOps; ++k) {
    if (autoaugment_op_name(static_cast<AutoAugmentOp>(k)) == name) {
      return static_cast<AutoAugmentOp>(k);
    }
  }
  throw std::invalid_argument("no op " + name);
}

// The golden case's operation on its input, through the runner's functions.
Image run_case(const nlohmann::json& c) {
  Image image{c["channels"], c["height"], c["width"], from_hex(c["input"])};
  const nlohmann::json& p = c["params"];
  const std::string op = c["op"];
  std::vector<std::uint8_t> fill(image.channels, 0);
  if (op == "resized_crop") {
    return resize_image(crop_image(image, p["top"], p["left"], p["height"], p["width"]),
                        image.height, image.width);
  }
  if (op == "brightness") adjust_brightness(image, p["factor"].get<float>());
  if (op == "contrast") adjust_contrast(image, p["factor"].get<float>());
  if (op == "saturation") adjust_saturation(image, p["factor"].get<float>());
  if (op == "sharpness") adjust_sharpness(image, p["factor"].get<float>());
  if (op == "hue") adjust_hue(image, p["factor"].get<double>());
  if (op == "grayscale") to_grayscale(image);
  if (op == "rotate") {
    fill.assign(image.channels, p["fill"].get<std::uint8_t>());
    rotate_nearest(image, p["angle"], fill);
  }
  if (op == "affine") {
    transform_nearest(
        image,
        torchvision_affine(image.width * 0.5, image.height * 0.5, p["angle"], p["translate"][0],
                           p["translate"][1], p["scale"], p["shear"][0], p["shear"][1]),
        fill);
  }
  if (op == "gaussian_blur") gaussian_blur(image, p["kernel_size"], p["sigma"]);
  if (op == "posterize") posterize(image, p["bits"]);
  if (op == "solarize") solarize(image, p["threshold"]);
  if (op == "autocontrast") autocontrast(image);
  if (op == "equalize") equalize(image);
  if (op == "autoaugment") apply_autoaugment_op(image, op_named(p["name"]), p["magnitude"], fill);
  return image;
}

TEST(AugmentGolden, OperationsMatchTorchvisionPixelForPixel) {
  std::map<std::string, int> cases_per_op;
  for (const nlohmann::json& c : augment_golden()["cases"]) {
    const std::string op = c["op"];
    ++cases_per_op[op];
    const Image out = run_case(c);
    const std::vector<std::uint8_t> want = from_hex(c["output"]);
    ASSERT_EQ(out.pixels.size(), want.size()) << op;
    int differing = 0, worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      differing += out.pixels[i] != want[i];
      worst = std::max(worst, std::abs(out.pixels[i] - want[i]));
    }
    const std::string what = op + " " + c["params"].dump() + " on " + std::to_string(out.channels) +
                             "x" + std::to_string(out.height) + "x" + std::to_string(out.width);
    if (op == "gaussian_blur") {
      EXPECT_LE(worst, 1) << what;
      EXPECT_LE(differing, static_cast<int>(want.size() / 50)) << what;
    } else {
      EXPECT_EQ(differing, 0) << what << ": " << differing << " bytes differ, by up to " << worst;
    }
  }
  // Every operation is covered, grey and RGB: a golden file that lost cases fails here.
  for (const char* op : {"resized_crop", "brightness", "contrast", "saturation", "sharpness", "hue",
                         "grayscale", "rotate", "affine", "gaussian_blur", "posterize", "solarize",
                         "autocontrast", "equalize", "autoaugment"}) {
    EXPECT_GE(cases_per_op[op], 4) << op;
  }
}

TEST(AugmentGolden, MagnitudeSpacesMatchTorchvision) {
  for (const auto& [name, space] :
       {std::pair{"trivial_augment_wide", AugmentSpace::trivial_augment_wide},
        std::pair{"rand_augment", AugmentSpace::rand_augment}}) {
    const nlohmann::json& want = augment_golden()["spaces"][name];
    ASSERT_EQ(want.size(), static_cast<std::size_t>(kAutoAugmentOps)) << name;
    for (int k = 0; k < kAutoAugmentOps; ++k) {
      const auto op = static_cast<AutoAugmentOp>(k);
      const nlohmann::json& op_want = want[autoaugment_op_name(op)];
      const OpMagnitudes got = op_magnitudes(space, op, 31, 32, 24);
      EXPECT_EQ(got.signed_op, op_want["signed"].get<bool>()) << name << " " << k;
      // Within a float32 rounding step: PyTorch's vectorised linspace rounds some lanes once
      // and others twice, by lane rather than by formula.
      const std::vector<double> values = op_want["values"].get<std::vector<double>>();
      ASSERT_EQ(got.values.size(), values.size()) << name << " " << k;
      for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_NEAR(got.values[i], values[i], 2e-7 * std::max(1.0, std::abs(values[i])))
            << name << " " << autoaugment_op_name(op) << " bin " << i;
      }
    }
  }
}

}  // namespace
}  // namespace runner
