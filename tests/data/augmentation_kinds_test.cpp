// The augmentation kinds as steps: their resolved settings read back to the same step, their
// draws are a pure function of (seed, epoch, image, step), the degenerate settings are the
// identity or the exact operation, and the random choices follow torchvision's distributions
// (probabilities, factor ranges, erased areas). The pixel arithmetic itself is checked against
// torchvision in augment_golden_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "runner/data/augment.h"
#include "runner/data/augmentation.h"
#include "runner/data/batch_loader.h"
#include "runner/data/image_color.h"
#include "runner/data/image_fit.h"
#include "runner/data/image_resize.h"
#include "runner/util/random.h"

namespace runner {
namespace {

const AugmentContext kRgb32{{3, 32, 32}, {{0.5f, 0.4f, 0.3f}, {0.25f, 0.2f, 0.1f}}, {}};

Image noise_image(int channels, int height, int width, std::uint64_t seed) {
  Random random(seed);
  Image image{channels, height, width,
              std::vector<std::uint8_t>(static_cast<std::size_t>(channels) * height * width)};
  for (auto& byte : image.pixels) byte = static_cast<std::uint8_t>(random.below(256));
  return image;
}

Image augmented(const AugmentStep& step, Image image, std::uint64_t bits) {
  DrawStream draws(bits);
  step.op->apply(image, draws);
  return image;
}

// One step of every kind, with settings away from the defaults.
std::vector<std::pair<std::string, nlohmann::json>> every_kind() {
  return {
      {"random_crop", {{"padding", 4}}},
      {"horizontal_flip", {{"p", 0.3}}},
      {"vertical_flip", {{"p", 0.7}}},
      {"random_resized_crop", {{"scale", {0.2, 0.9}}, {"ratio", {0.5, 2.0}}}},
      {"color_jitter",
       {{"brightness", 0.4},
        {"contrast", {0.7, 1.2}},
        {"saturation", 0.3},
        {"hue", 0.1},
        {"p", 0.8}}},
      {"random_grayscale", {{"p", 0.2}}},
      {"random_rotation", {{"degrees", 15}, {"fill", {10, 20, 30}}}},
      {"random_affine",
       {{"degrees", {-10, 5}},
        {"translate", {0.1, 0.2}},
        {"scale", {0.9, 1.1}},
        {"shear", {-5, 5, -2, 2}},
        {"fill", 7}}},
      {"gaussian_blur", {{"kernel_size", 5}, {"sigma", {0.3, 1.5}}, {"p", 0.5}}},
      {"random_erasing",
       {{"p", 0.9}, {"scale", {0.05, 0.2}}, {"ratio", {0.5, 2.0}}, {"value", "random"}}},
      {"trivial_augment_wide", {{"num_magnitude_bins", 21}, {"fill", 3}}},
      {"rand_augment", {{"num_ops", 3}, {"magnitude", 12}, {"num_magnitude_bins", 21}}},
      // Sizes that keep a 32x32 image's (other sizes: ResizeAndCenterCrop... below).
      {"resize", {{"size", {32, 32}}}},
      {"center_crop", {{"size", {32, 32}}}},
  };
}

TEST(AugmentationKinds, EveryKindIsTestedHere) {
  std::vector<std::string> tested;
  for (const auto& [kind, settings] : every_kind()) tested.push_back(kind);
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(tested, augmentation_kind_names()) << "a new kind needs its case in every_kind()";
}

TEST(AugmentationKinds, ResolvedSettingsReadBackToTheSameStep) {
  const Image image = noise_image(3, 32, 32, 5);
  for (const auto& [kind, settings] : every_kind()) {
    const AugmentStep step = make_augment_step(kind, settings, kRgb32);
    const nlohmann::json resolved = step.op->settings();
    const AugmentStep again = make_augment_step(kind, resolved, kRgb32);
    EXPECT_EQ(again.op->settings(), resolved) << kind;
    for (std::uint64_t bits : {1ull, 99ull, 12345ull}) {
      EXPECT_EQ(augmented(step, image, bits).pixels, augmented(again, image, bits).pixels)
          << kind << " with draws " << bits;
    }
  }
}

TEST(AugmentationKinds, DrawsAreAPureFunctionOfSeedEpochImageAndStep) {
  std::vector<AugmentStep> steps;
  for (const auto& [kind, settings] : every_kind()) {
    steps.push_back(make_augment_step(kind, settings, kRgb32));
  }
  steps.resize(kMaxAugmentSteps);
  const ImageAugmenter augmenter(steps, 42);
  const Image image = noise_image(3, 32, 32, 6);
  std::vector<std::uint8_t> a(image.pixels.size()), b(a.size());
  std::set<std::vector<std::uint8_t>> distinct;
  for (std::uint64_t key = 0; key < 20; ++key) {
    augmenter.apply(3, key, image.pixels.data(), a.data(), 3, 32, 32);
    augmenter.apply(3, key, image.pixels.data(), b.data(), 3, 32, 32);
    EXPECT_EQ(a, b) << "image " << key;
    distinct.insert(a);
  }
  EXPECT_EQ(distinct.size(), 20u) << "each image of the epoch draws its own augmentation";
  augmenter.apply(4, 0, image.pixels.data(), b.data(), 3, 32, 32);
  augmenter.apply(3, 0, image.pixels.data(), a.data(), 3, 32, 32);
  EXPECT_NE(a, b) << "another epoch draws again";
}

TEST(AugmentationKinds, DegenerateSettingsAreTheIdentityOrTheExactOperation) {
  const Image image = noise_image(3, 32, 32, 7);
  const auto same = [&](const std::string& kind, const nlohmann::json& settings) {
    return augmented(make_augment_step(kind, settings, kRgb32), image, 77).pixels == image.pixels;
  };
  EXPECT_TRUE(same("random_resized_crop", {{"scale", {1, 1}}, {"ratio", {1, 1}}}));
  EXPECT_TRUE(same("color_jitter", nlohmann::json::object()));
  EXPECT_TRUE(same("random_grayscale", {{"p", 0}}));
  EXPECT_TRUE(same("random_rotation", {{"degrees", 0}}));
  EXPECT_TRUE(same("random_affine", nlohmann::json::object()));
  EXPECT_TRUE(same("gaussian_blur", {{"kernel_size", 3}, {"p", 0}}));
  EXPECT_TRUE(same("random_erasing", {{"p", 0}}));
  EXPECT_FALSE(same("random_erasing", {{"p", 1}}));
  // Certain grey, and a half turn, whatever the draws.
  Image grey = image;
  to_grayscale(grey);
  EXPECT_EQ(augmented(make_augment_step("random_grayscale", {{"p", 1}}, kRgb32), image, 5).pixels,
            grey.pixels);
  const Image turned =
      augmented(make_augment_step("random_rotation", {{"degrees", {180, 180}}}, kRgb32), image, 5);
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        ASSERT_EQ(turned.pixels[(c * 32 + y) * 32 + x],
                  image.pixels[(c * 32 + 31 - y) * 32 + 31 - x]);
      }
    }
  }
}

TEST(AugmentationKinds, ProbabilitiesAndFactorRangesAreTorchvisions) {
  const Image image = noise_image(3, 8, 8, 8);
  const AugmentContext context{{3, 8, 8}, kRgb32.normalize, {}};
  const int n = 4000;
  // random_grayscale p = 0.3: the share of images made grey.
  const AugmentStep gray = make_augment_step("random_grayscale", {{"p", 0.3}}, context);
  int greyed = 0;
  for (int i = 0; i < n; ++i) {
    const Image out = augmented(gray, image, augment_math::draw(1, 0, i, 0));
    greyed += out.pixels != image.pixels;
  }
  EXPECT_NEAR(greyed / double(n), 0.3, 0.03);
  // Brightness 0.5 on a flat grey 200: factor uniform in [0.5, 1.5], byte = min(255, 200 f).
  const Image flat{3, 8, 8, std::vector<std::uint8_t>(192, 200)};
  const AugmentStep bright = make_augment_step("color_jitter", {{"brightness", 0.5}}, context);
  std::vector<int> bytes;
  for (int i = 0; i < n; ++i) {
    bytes.push_back(augmented(bright, flat, augment_math::draw(2, 0, i, 0)).pixels[0]);
  }
  std::sort(bytes.begin(), bytes.end());
  EXPECT_NEAR(bytes[n / 4], 150, 6);                                                  // f = 0.75
  EXPECT_NEAR(bytes[n / 2], 200, 6);                                                  // f = 1.0
  EXPECT_GE(bytes.front(), 100);                                                      // f >= 0.5
  EXPECT_NEAR(std::count(bytes.begin(), bytes.end(), 255) / double(n), 0.225, 0.03);  // f > 1.275
}

TEST(AugmentationKinds, ErasingCoversTorchvisionsAreasWithTheNormalisedValue) {
  // value 0 in normalised units is each channel's mean: bytes 128, 102, 77 for means .5 .4 .3.
  const AugmentStep erase = make_augment_step(
      "random_erasing", {{"p", 0.5}, {"scale", {0.1, 0.3}}, {"value", 0}}, kRgb32);
  const Image image{3, 32, 32, std::vector<std::uint8_t>(3 * 1024, 255)};
  const int n = 3000;
  int erased = 0;
  double share_sum = 0;
  for (int i = 0; i < n; ++i) {
    const Image out = augmented(erase, image, augment_math::draw(3, 0, i, 0));
    const auto count = std::count(out.pixels.begin(), out.pixels.begin() + 1024, 128);
    if (count == 0) continue;
    ++erased;
    const double share = count / 1024.0;
    share_sum += share;
    EXPECT_GE(share, 0.06);  // 0.1 of the area, rounded sides
    EXPECT_LE(share, 0.36);
    EXPECT_EQ(std::count(out.pixels.begin() + 1024, out.pixels.begin() + 2048, 102), count);
    EXPECT_EQ(std::count(out.pixels.begin() + 2048, out.pixels.end(), 77), count);
  }
  EXPECT_NEAR(erased / double(n), 0.5, 0.03);
  EXPECT_NEAR(share_sum / erased, 0.2, 0.02);
}

TEST(AugmentationKinds, ColourKindsRefuseImagesThatAreNeitherGreyNorRgb) {
  const AugmentContext four{{4, 16, 16}, {}, {}};
  for (const char* kind :
       {"color_jitter", "random_grayscale", "trivial_augment_wide", "rand_augment"}) {
    EXPECT_THROW(make_augment_step(kind, nlohmann::json::object(), four), UserError) << kind;
  }
  EXPECT_NO_THROW(make_augment_step("random_rotation", {{"degrees", 5}}, four));
}

TEST(AugmentationKinds, TheLoaderGivesTheSameBatchesForAnyNumberOfWorkers) {
  Dataset data;
  data.channels = 3, data.height = 32, data.width = 32;
  data.class_names = {"a", "b"};
  for (int i = 0; i < 40; ++i) {
    const Image image = noise_image(3, 32, 32, 100 + i);
    data.images.insert(data.images.end(), image.pixels.begin(), image.pixels.end());
    data.labels.push_back(i % 2);
  }
  std::vector<AugmentStep> steps;
  for (const char* kind : {"random_resized_crop", "trivial_augment_wide", "random_erasing"}) {
    steps.push_back(make_augment_step(kind, nlohmann::json::object(), kRgb32));
  }
  const ImageAugmenter augmenter(steps, 9);
  const auto epoch_bytes = [&](int workers) {
    BatchLoader loader(data, 6, true, 3, workers, augmenter);
    loader.start_epoch(1);
    std::vector<std::uint8_t> out;
    BatchView batch{};
    while (loader.next(batch)) {
      out.insert(out.end(), batch.images, batch.images + batch.size * data.image_bytes());
    }
    return out;
  };
  const std::vector<std::uint8_t> inline_bytes = epoch_bytes(0);
  EXPECT_NE(inline_bytes, std::vector<std::uint8_t>());
  EXPECT_EQ(epoch_bytes(2), inline_bytes);
}

}  // namespace
}  // namespace runner

namespace runner {
namespace {

// The training steps resize and center_crop make the pixels of the evaluation fit (image_fit.h,
// checked byte for byte against torchvision), on photos taller and wider than the model's input.
TEST(AugmentationKinds, ResizeAndCenterCropMakeTheEvaluationFitsPixels) {
  const AugmentContext model{{3, 12, 10}, {}, {}};
  for (const auto& [height, width] : {std::pair{37, 23}, {19, 40}, {12, 10}, {9, 7}}) {
    const Image photo = noise_image(3, height, width, height);
    ImageFit fit;
    fit.shorter_side = 16;
    fit.center_crop = true;
    std::vector<std::uint8_t> expected(3 * 12 * 10);
    fit_image_into(photo, fit, 12, 10, expected);
    Image steps = augmented(make_augment_step("resize", {{"size", 16}}, model), photo, 1);
    EXPECT_EQ(std::min(steps.height, steps.width), 16);
    steps = augmented(make_augment_step("center_crop", nlohmann::json::object(), model), steps, 1);
    EXPECT_EQ(steps.pixels, expected) << height << "x" << width;
    EXPECT_EQ(augmented(make_augment_step("resize", {{"size", {20, 30}}}, model), photo, 1).pixels,
              resize_image(photo, 20, 30).pixels);
  }
}

// The window's place in a random_crop of a larger image (found by search), or -1.
std::pair<int, int> window_of(const Image& crop, const Image& image, int pad_y, int pad_x) {
  for (int top = -pad_y; top + crop.height <= image.height + pad_y; ++top) {
    for (int left = -pad_x; left + crop.width <= image.width + pad_x; ++left) {
      bool same = true;
      for (int c = 0; c < crop.channels && same; ++c) {
        for (int y = 0; y < crop.height && same; ++y) {
          for (int x = 0; x < crop.width && same; ++x) {
            const int sy = top + y, sx = left + x;
            const bool inside = sy >= 0 && sy < image.height && sx >= 0 && sx < image.width;
            const std::uint8_t want =
                inside ? image.pixels[(c * image.height + sy) * image.width + sx] : 0;
            same = crop.pixels[(c * crop.height + y) * crop.width + x] == want;
          }
        }
      }
      if (same) return {top, left};
    }
  }
  return {-1000, -1000};
}

// After a resize, random_crop takes a window of the larger image, any place it fits (with its
// padding), uniformly; an image smaller than the crop is padded as torchvision's pad_if_needed.
TEST(AugmentationKinds, RandomCropOfALargerImageIsAWindowAnywhereInIt) {
  const AugmentContext model{{3, 12, 10}, {}, {}};
  const Image large = noise_image(3, 20, 17, 3);
  for (int padding : {0, 2}) {
    const AugmentStep crop = make_augment_step("random_crop", {{"padding", padding}}, model);
    std::map<std::pair<int, int>, int> seen;
    constexpr int kDraws = 6000;
    for (std::uint64_t image = 0; image < kDraws; ++image) {
      const Image out = augmented(crop, large, augment_math::draw(9, 0, image, 0));
      ASSERT_EQ(out.height, 12);
      ASSERT_EQ(out.width, 10);
      const auto place = window_of(out, large, padding, padding);
      ASSERT_GE(place.first, -padding) << "not a window of the image";
      ++seen[place];
    }
    // (20 + 2p - 12 + 1) x (17 + 2p - 10 + 1) places, about equally often (a third of the mean
    // is a Poisson tail of about 1e-6 per place at these counts).
    const int places = (9 + 2 * padding) * (8 + 2 * padding);
    EXPECT_EQ(static_cast<int>(seen.size()), places);
    for (const auto& [place, count] : seen) {
      EXPECT_GT(count, kDraws / places / 3) << place.first << "," << place.second;
    }
  }
  // 10x7 into 12x10: two rows of zeros above or below (or one each), three columns likewise.
  const Image small = noise_image(3, 10, 7, 4);
  const AugmentStep crop = make_augment_step("random_crop", nlohmann::json::object(), model);
  std::set<std::pair<int, int>> places;
  for (std::uint64_t image = 0; image < 200; ++image) {
    const Image out = augmented(crop, small, augment_math::draw(9, 1, image, 0));
    places.insert(window_of(out, small, 2, 3));
  }
  EXPECT_EQ(places.size(), 12u);  // tops -2..0, lefts -3..0
  EXPECT_EQ(places.count({-1000, -1000}), 0u);
}

// Every kind on tiny and odd images, grey to four channels, with many draws: the size is kept
// and nothing reads or writes outside the image (the sanitizers watch this test too).
TEST(AugmentationKinds, TinyAndOddImagesKeepTheirSize) {
  for (const auto& [channels, height, width] :
       {std::tuple{1, 1, 1}, {3, 1, 1}, {1, 2, 3}, {3, 3, 1}, {2, 5, 4}, {4, 7, 2}, {3, 64, 5}}) {
    const AugmentContext context{
        {channels, height, width},
        {std::vector<float>(channels, 0.5f), std::vector<float>(channels, 0.25f)},
        {}};
    for (const auto& [kind, settings] : every_kind()) {
      nlohmann::json fitted = settings;
      if (kind == "random_crop") fitted["padding"] = std::min(height, width);
      if (kind == "gaussian_blur") fitted["kernel_size"] = 1;
      if (kind == "resize" || kind == "center_crop") fitted["size"] = {height, width};
      if (fitted.contains("fill") && fitted["fill"].is_array()) fitted["fill"] = 9;
      const bool colour = kind == "color_jitter" || kind == "random_grayscale" ||
                          kind == "trivial_augment_wide" || kind == "rand_augment";
      if (colour && channels != 1 && channels != 3) continue;
      const AugmentStep step = make_augment_step(kind, fitted, context);
      const Image image = noise_image(channels, height, width, 11);
      for (std::uint64_t bits = 0; bits < 200; ++bits) {
        const Image out = augmented(step, image, augment_math::draw(5, 0, bits, 0));
        ASSERT_EQ(out.pixels.size(), image.pixels.size()) << kind;
        ASSERT_EQ(out.channels, channels) << kind;
        ASSERT_EQ(out.height, height) << kind;
        ASSERT_EQ(out.width, width) << kind;
      }
    }
  }
}

}  // namespace
}  // namespace runner
