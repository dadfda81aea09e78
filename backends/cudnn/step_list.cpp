// Running and timing step lists.
#include "backends/cudnn/step_list.h"

#include <algorithm>

#include "backends/cudnn/cuda_check.h"

namespace runner::cudnn {

void StepList::add(std::string label, Launch launch) {
  steps_.push_back({std::move(label), std::move(launch)});
}

void StepList::append(const StepList& other) {
  steps_.insert(steps_.end(), other.steps_.begin(), other.steps_.end());
}

void StepList::run(cudaStream_t stream) const {
  for (const Step& step : steps_) step.launch(stream);
}

StepTimer::~StepTimer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

cudaEvent_t StepTimer::event() {
  if (next_ == events_.size()) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
  return events_[next_++];
}

void StepTimer::time(const std::string& label, const StepList::Launch& launch,
                     cudaStream_t stream) {
  Pending p{label, event(), event()};
  CUDA_CHECK(cudaEventRecord(p.start, stream));
  launch(stream);
  CUDA_CHECK(cudaEventRecord(p.stop, stream));
  pending_.push_back(std::move(p));
}

void StepTimer::run(const StepList& steps, cudaStream_t stream) {
  for (const auto& step : steps.steps_) time(step.label, step.launch, stream);
}

void StepTimer::collect(cudaStream_t stream, std::vector<StepTiming>& timings) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (const Pending& p : pending_) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
    auto it = std::find_if(timings.begin(), timings.end(),
                           [&](const StepTiming& t) { return t.label == p.label; });
    if (it == timings.end()) {
      timings.push_back({p.label, ms / 1000.0});
    } else {
      it->seconds += ms / 1000.0;
    }
  }
  pending_.clear();
  next_ = 0;
}

}  // namespace runner::cudnn
