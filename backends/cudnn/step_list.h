// An ordered list of labelled launches (cuDNN and cuBLAS calls, our kernels, copies), built
// once; run() enqueues them all on one stream (eagerly, or while a CUDA graph is captured).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace runner::cudnn {

class StepList {
 public:
  using Launch = std::function<void(cudaStream_t)>;
  void add(std::string label, Launch launch);
  void append(const StepList& other);
  void run(cudaStream_t stream) const;
  bool empty() const { return steps_.empty(); }

 private:
  friend class StepTimer;
  struct Step {
    std::string label;
    Launch launch;
  };
  std::vector<Step> steps_;
};

// Times steps with CUDA events recorded around each on the stream; collect() waits for the
// stream and adds each step's time to the timing with its label. Events are made once, reused.
class StepTimer {
 public:
  StepTimer() = default;
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;
  ~StepTimer();

  void run(const StepList& steps, cudaStream_t stream);
  void time(const std::string& label, const StepList::Launch& launch, cudaStream_t stream);
  void collect(cudaStream_t stream, std::vector<StepTiming>& timings);

 private:
  struct Pending {
    std::string label;
    cudaEvent_t start, stop;
  };
  cudaEvent_t event();
  std::vector<cudaEvent_t> events_;  // every event made, reused from `next_`
  std::size_t next_ = 0;
  std::vector<Pending> pending_;
};

}  // namespace runner::cudnn
