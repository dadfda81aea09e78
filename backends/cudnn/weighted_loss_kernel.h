// The weighted and focal training loss on the GPU (training.loss: class_weights, focal_gamma):
// the device form of backends/common/weighted_cross_entropy.h, in double per image.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cudnn/data_type.h"

namespace runner::cudnn::kernels {

// Over rows < *count of logits (rows, classes): adds the batch's weighted mean loss times *count
// to *loss_sum (as the host adds it: the running loss is then the mean of the batches' losses)
// and writes the gradient of the weighted mean into grad, zero for rows >= *count.
// class_weights: device memory, one per class, or null for 1 each. One block, a fixed summation
// order. loss_scale as kernels::softmax_cross_entropy's.
void weighted_softmax_cross_entropy(const void* logits, const std::int32_t* labels,
                                    const int* count, int rows, int classes, double label_smoothing,
                                    const float* class_weights, double focal_gamma, void* grad,
                                    DataType type, const float* loss_scale, double* loss_sum,
                                    cudaStream_t stream);

}  // namespace runner::cudnn::kernels
