// Training-image augmentation on the host: dataset.augment's steps applied to one image. Steps
// that only move pixels (crops, flips) form a plan of augment_math, byte for byte what the GPU's
// gather kernel makes; any other step (colour, rotation, erasing, ...) runs here, in the loader's
// workers, each with its own draw stream per image.
#pragma once

#include <cstdint>
#include <vector>

#include "runner/data/augment_math.h"
#include "runner/data/dataset_spec.h"
#include "runner/data/image_decode.h"

namespace runner {

// The steps (at most kMaxAugmentSteps, every one a pixel move) with the run's augmentation
// seed; count 0 when empty.
augment_math::Plan augment_plan(const std::vector<AugmentStep>& steps, std::uint64_t seed);

// out (C, H, W) = image `index` of the dataset, in (C, H, W), as augmented in `epoch`.
void augment_image(const augment_math::Plan& plan, std::int64_t epoch, std::uint64_t index,
                   const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width);
// The same with the decisions made.
void move_pixels(const augment_math::Plan& plan, const augment_math::Choices& choices,
                 const std::uint8_t* in, std::uint8_t* out, int channels, int height, int width);

// The whole augmentation of a run, for the loader: a copy of the steps and the seed.
class ImageAugmenter {
 public:
  ImageAugmenter() = default;
  // Crops and flips only (the GPU's plan, or a test's).
  ImageAugmenter(const augment_math::Plan& plan) : plan_(plan), seed_(plan.seed) {}  // NOLINT
  ImageAugmenter(const std::vector<AugmentStep>& steps, std::uint64_t seed);

  bool empty() const { return plan_.count == 0 && steps_.empty(); }
  // Every step only moves pixels: plan() is the whole augmentation, which a device can gather.
  bool moves_pixels_only() const { return steps_.empty(); }
  const augment_math::Plan& plan() const { return plan_; }
  // out = image `key` (its index, or its draw's place for a sampler with replacement) of
  // `epoch`, augmented; in and out do not overlap.
  void apply(std::int64_t epoch, std::uint64_t key, const std::uint8_t* in, std::uint8_t* out,
             int channels, int height, int width) const;
  // The same from an image as decoded, at any size (dataset.decode: per_epoch): a first step
  // that takes any size (resize, center_crop, random_resized_crop) gets it whole; otherwise it is
  // first resized to (height, width), as the images of a split decoded once are.
  void apply_decoded(std::int64_t epoch, std::uint64_t key, Image decoded, std::uint8_t* out,
                     int channels, int height, int width) const;

 private:
  augment_math::Plan plan_;         // when every step moves pixels only
  std::vector<AugmentStep> steps_;  // otherwise: step by step on the host
  std::uint64_t seed_ = 0;
};

}  // namespace runner
