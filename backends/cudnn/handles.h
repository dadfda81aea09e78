// Owning wrappers of a program's CUDA objects: the stream with its cuDNN and cuBLAS handles,
// another stream, events, and the captured CUDA graph of a training step.
#pragma once

#include <cuda_runtime.h>

#include <functional>

#include "backends/cudnn/build_context.h"

namespace runner::cudnn {

// Makes `device` current for the calling thread (the first member of a program, so everything
// after it is created on that device).
struct DeviceSelection {
  explicit DeviceSelection(int device);
  int device;
};

// One non-blocking stream (a legacy default stream cannot be captured) and the library handles
// bound to it.
class LibraryHandles {
 public:
  LibraryHandles();
  ~LibraryHandles();
  LibraryHandles(const LibraryHandles&) = delete;
  LibraryHandles& operator=(const LibraryHandles&) = delete;
  const Libraries& get() const { return libs_; }
  cudaStream_t stream() const { return libs_.stream; }

 private:
  void release();
  Libraries libs_;
};

// A non-blocking stream of its own (the program copies batches on one, beside its compute stream).
class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// A stream's launches recorded once into a CUDA graph, then replayed with one launch.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  bool ready() const { return exec_ != nullptr; }
  // Records what `enqueue` launches on `stream` (nothing runs while capturing).
  void capture(cudaStream_t stream, const std::function<void()>& enqueue);
  void launch(cudaStream_t stream) const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace runner::cudnn
