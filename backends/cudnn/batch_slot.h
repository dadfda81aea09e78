// How a batch reaches the device. The host writes it into pinned memory: its images and labels,
// or only its rows when the training set is held on the device. A copy stream moves that into
// the slot's device memory, and the step on the compute stream waits for the copy and starts by
// loading the batch into the net's input. With two slots taking turns, one batch is copied
// while the step before it computes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/backend.h"
#include "backends/cudnn/device_memory.h"
#include "backends/cudnn/handles.h"
#include "backends/cudnn/kernels.h"
#include "backends/cudnn/step_list.h"

namespace runner::cudnn {

// A training set copied to the device once, and how its rows are augmented when gathered.
struct HeldSet {
  const std::uint8_t* images = nullptr;  // device (count, C, H, W)
  const std::int32_t* labels = nullptr;  // device (count)
  std::int64_t count = 0;
  augment_math::Plan augment = {};  // count 0: none
};

class BatchSlot {
 public:
  // Room for batches of up to `batch` images of `image_bytes` each; with `held`, batches are
  // given as rows of that set and only the rows cross.
  BatchSlot(DeviceMemory& memory, PinnedMemory& pinned, int batch, std::size_t image_bytes,
            const HeldSet* held);
  BatchSlot(const BatchSlot&) = delete;
  BatchSlot& operator=(const BatchSlot&) = delete;

  // Where the step's load finds the batch once uploaded.
  kernels::BatchSource source() const;
  bool takes_rows() const { return held_ != nullptr; }

  // Writes `batch` (checked by the caller) into pinned memory once this slot's previous copy
  // is done; enqueues its copy on `copy` after the last step that read this slot; makes
  // `compute` wait for the copy. With `timer`, the copy is timed as `label`.
  void upload(const TrainBatch& batch, cudaStream_t copy, cudaStream_t compute,
              StepTimer* timer = nullptr, const std::string& label = {});
  // Marks the end of the step just enqueued on `compute`, which read this slot.
  void release(cudaStream_t compute);

  StepList load;        // the step's first launch, reading this slot (set by the program)
  CapturedGraph graph;  // load and the training step; captured from the second step on

 private:
  const int batch_;
  const std::size_t image_bytes_;
  const HeldSet* held_;
  // Pinned, written by the host; labels and rows end with the batch's count at [batch_], rows
  // then with the batch's epoch at [batch_ + 1] (the augmentation draws from it).
  std::uint8_t* host_images_ = nullptr;
  std::int32_t* host_labels_ = nullptr;
  std::int32_t* host_rows_ = nullptr;
  batch_mix::BatchMix* host_mix_ = nullptr;  // the batch's mixup or cutmix
  // Device copies of the same.
  std::uint8_t* images_ = nullptr;
  std::int32_t* labels_ = nullptr;
  std::int32_t* rows_ = nullptr;
  batch_mix::BatchMix* mix_ = nullptr;
  CudaEvent uploaded_;  // recorded on the copy stream after the copy
  CudaEvent consumed_;  // recorded on the compute stream after the step that read the slot
};

}  // namespace runner::cudnn
