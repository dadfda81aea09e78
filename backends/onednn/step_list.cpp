// Execution of prepared step lists.
#include "backends/onednn/step_list.h"

#include <algorithm>
#include <chrono>

namespace runner::onednn {

void StepList::add(std::string label, dnnl::primitive primitive,
                   std::unordered_map<int, dnnl::memory> args) {
  steps_.push_back({std::move(label), std::move(primitive), std::move(args), {}});
}

void StepList::add(std::string label, std::function<void()> host_function) {
  steps_.push_back({std::move(label), {}, {}, std::move(host_function)});
}

void StepList::run(dnnl::stream& stream) const {
  for (const Step& step : steps_) {
    if (step.host_function) {
      step.host_function();  // CPU primitives run synchronously, so no wait is needed first
    } else {
      step.primitive.execute(stream, step.args);
    }
  }
}

void StepList::run_timed(dnnl::stream& stream, std::vector<StepTiming>& timings) const {
  using Clock = std::chrono::steady_clock;
  for (const Step& step : steps_) {
    auto start = Clock::now();
    if (step.host_function) {
      step.host_function();
    } else {
      step.primitive.execute(stream, step.args);
      stream.wait();
    }
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    auto it = std::find_if(timings.begin(), timings.end(),
                           [&](const StepTiming& t) { return t.label == step.label; });
    if (it == timings.end()) {
      timings.push_back({step.label, seconds});
    } else {
      it->seconds += seconds;
    }
  }
}

}  // namespace runner::onednn
