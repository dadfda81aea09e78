// CUDA kernels of the token kinds (to_tokens, class_token, position_embedding, token_select) and
// drop_path. A token sequence is (N, T, C) contiguous, PyTorch's layout; tensors hold `type`
// elements (the activations'), computed in FP32; learned tensors are read and their gradients
// written in FP32.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

// y[n][j][i] = x[n][i][j]: each image's (rows, cols) matrix transposed, x (N, rows, cols) to
// y (N, cols, rows). to_tokens: an NCHW image (C, H*W) to its tokens (H*W, C); and back.
void transpose_images(const void* x, void* y, int images, int rows, int cols, DataType type,
                      cudaStream_t stream);

// class_token: y (N, T + 1, C) = the token (C, FP32), then x (N, T, C).
void prepend_token(const void* x, const float* token, void* y, int images, int tokens, int features,
                   DataType type, cudaStream_t stream);
// Its backward pass: dx (N, T, C; null: not needed) = dy without token 0.
void drop_first_token(const void* dy, void* dx, int images, int tokens, int features, DataType type,
                      cudaStream_t stream);

// out[i] = the sum over n < images of a[n * stride + i], for i < count, in image order (FP32):
// a learned token's or position embedding's gradient.
void sum_images(const void* a, DataType type, int images, std::size_t stride, std::size_t count,
                float* out, cudaStream_t stream);

// position_embedding: y = x + position, the same (T, C) = `image` values added to every image.
void add_to_images(const void* x, const float* position, void* y, int images, std::size_t image,
                   DataType type, cudaStream_t stream);

// token_select: y (N, C) = token 0 of x (N, T, C), or the mean over the tokens (`mean`).
void select_tokens(const void* x, void* y, int images, int tokens, int features, bool mean,
                   DataType type, cudaStream_t stream);
// Its backward pass: dx (N, T, C) = dy at token 0 and 0 elsewhere, or dy / T everywhere.
void select_tokens_backward(const void* dy, void* dx, int images, int tokens, int features,
                            bool mean, DataType type, cudaStream_t stream);

// drop_path: factors[n] = 0 or 1 / (1 - p) for image n under the mask of step *step (device
// memory, so a replayed CUDA graph uses the current step); backends/common/dropout_math.h.
void drop_path_factors(std::uint64_t seed, const long long* step, std::uint64_t layer, float p,
                       float* factors, int images, cudaStream_t stream);

}  // namespace runner::cudnn::kernels
