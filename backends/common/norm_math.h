// layer_norm's and group_norm's arithmetic, once for the CPU kernels (backends/onednn/
// norm_kernels.cpp) and the GPU kernels (backends/cudnn/layer_kernels.cu): which values share
// statistics, and the per-value formulas of both passes. Statistics are the mean and the biased
// variance of a set of values of one image, as PyTorch's.
#pragma once

#include <cmath>

#include "runner/util/host_device.h"

namespace runner::norm_math {

// The statistics sets of one image of C channels at P positions (H x W): layer_norm (groups 0)
// has one per position, over the C channels; group_norm one per group of C / groups channels,
// over those channels at every position.
struct NormSets {
  int channels = 0;
  int positions = 1;
  int groups = 0;  // 0: layer_norm

  RUNNER_HOST_DEVICE int per_image() const { return groups ? groups : positions; }
  // Values per set.
  RUNNER_HOST_DEVICE int size() const { return groups ? channels / groups * positions : channels; }
  RUNNER_HOST_DEVICE int of(int channel, int position) const {
    return groups ? channel / (channels / groups) : position;
  }

  // In a batch's NCHW values, with sets counted over the batch (image n's set k is
  // n * per_image() + k): where value j of set s lies, and its channel.
  RUNNER_HOST_DEVICE long long nchw_offset(long long s, int j) const {
    if (groups) return s * size() + j;  // a group's values are contiguous
    const long long image = s / positions, position = s % positions;
    return (image * channels + j) * positions + position;
  }
  RUNNER_HOST_DEVICE int channel(long long s, int j) const {
    return groups ? static_cast<int>(s % groups) * (channels / groups) + j / positions : j;
  }
};

RUNNER_HOST_DEVICE inline float inverse_std(double variance, float eps) {
  return static_cast<float>(1.0 / sqrt(variance + eps));
}

// y = (x - mean) / sqrt(var + eps) * weight + bias.
RUNNER_HOST_DEVICE inline float normalize(float x, float mean, float inverse_std, float weight,
                                          float bias) {
  return (x - mean) * inverse_std * weight + bias;
}

// dL/dx of one value from g = dL/dy * weight and its normalised value xhat, with the means of g
// and of g * xhat over its set: the set's mean and variance depend on x too.
RUNNER_HOST_DEVICE inline float input_gradient(float g, float xhat, float inverse_std, float mean_g,
                                               float mean_g_xhat) {
  return inverse_std * (g - mean_g - xhat * mean_g_xhat);
}

}  // namespace runner::norm_math
