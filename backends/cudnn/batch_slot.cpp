// Batch slots: pinned and device buffers, the copy on its own stream, and the events that order
// it against the steps that read the slot.
#include "backends/cudnn/batch_slot.h"

#include <cstring>

#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {

BatchSlot::BatchSlot(DeviceMemory& memory, PinnedMemory& pinned, int batch, std::size_t image_bytes,
                     const HeldSet* held)
    : batch_(batch), image_bytes_(image_bytes), held_(held) {
  const std::size_t counted = static_cast<std::size_t>(batch) + 1;
  if (held) {
    host_rows_ = pinned.array<std::int32_t>(counted + 1, "batch rows");
    rows_ = memory.array<std::int32_t>(counted + 1, "batch rows");
  } else {
    host_images_ = pinned.array<std::uint8_t>(batch * image_bytes, "batch images");
    host_labels_ = pinned.array<std::int32_t>(counted, "batch labels");
    images_ = memory.array<std::uint8_t>(batch * image_bytes, "batch images");
    labels_ = memory.array<std::int32_t>(counted, "batch labels");
  }
  host_mix_ = pinned.array<batch_mix::BatchMix>(1, "batch mix");
  mix_ = memory.array<batch_mix::BatchMix>(1, "batch mix");
}

kernels::BatchSource BatchSlot::source() const {
  if (held_) {
    return {held_->images,  held_->labels,      rows_, rows_ + batch_,
            held_->augment, rows_ + batch_ + 1, mix_};
  }
  return {images_, labels_, nullptr, labels_ + batch_, {}, nullptr, mix_};
}

void BatchSlot::upload(const TrainBatch& batch, cudaStream_t copy, cudaStream_t compute,
                       StepTimer* timer, const std::string& label) {
  // The pinned buffers may still be read by this slot's previous copy.
  CUDA_CHECK(cudaEventSynchronize(uploaded_.get()));
  const int count = batch.count;
  const std::size_t counted_bytes = (batch_ + 1) * sizeof(std::int32_t);
  if (held_) {
    for (int i = 0; i < count; ++i) host_rows_[i] = static_cast<std::int32_t>(batch.indices[i]);
    host_rows_[batch_] = count;
    host_rows_[batch_ + 1] = batch.epoch;
  } else {
    std::memcpy(host_images_, batch.images, count * image_bytes_);
    if (batch.labels) std::memcpy(host_labels_, batch.labels, count * sizeof(std::int32_t));
    host_labels_[batch_] = count;
  }
  *host_mix_ = batch.mix;
  // The device buffers may still be read by the step before last.
  CUDA_CHECK(cudaStreamWaitEvent(copy, consumed_.get(), 0));
  auto enqueue = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(mix_, host_mix_, sizeof(batch_mix::BatchMix), cudaMemcpyHostToDevice,
                               stream));
    if (held_) {
      CUDA_CHECK(cudaMemcpyAsync(rows_, host_rows_, counted_bytes + sizeof(std::int32_t),
                                 cudaMemcpyHostToDevice, stream));
      return;
    }
    CUDA_CHECK(cudaMemcpyAsync(images_, host_images_, count * image_bytes_, cudaMemcpyHostToDevice,
                               stream));
    CUDA_CHECK(
        cudaMemcpyAsync(labels_, host_labels_, counted_bytes, cudaMemcpyHostToDevice, stream));
  };
  if (timer) {
    timer->time(label, enqueue, copy);
  } else {
    enqueue(copy);
  }
  CUDA_CHECK(cudaEventRecord(uploaded_.get(), copy));
  CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded_.get(), 0));
}

void BatchSlot::release(cudaStream_t compute) {
  CUDA_CHECK(cudaEventRecord(consumed_.get(), compute));
}

}  // namespace runner::cudnn
