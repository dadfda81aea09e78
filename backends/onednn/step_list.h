// An ordered list of steps (oneDNN primitives with their arguments, or host functions), built
// once and executed every iteration; optionally timed per step for `runner bench`.
#pragma once

#include <functional>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/backend.h"

namespace runner::onednn {

class StepList {
 public:
  void add(std::string label, dnnl::primitive primitive,
           std::unordered_map<int, dnnl::memory> args);
  void add(std::string label, std::function<void()> host_function);
  void append(const StepList& other) {
    steps_.insert(steps_.end(), other.steps_.begin(), other.steps_.end());
  }
  void run(dnnl::stream& stream) const;
  // Runs like run() and adds each step's wall time to `timings` (one entry per label).
  void run_timed(dnnl::stream& stream, std::vector<StepTiming>& timings) const;
  bool empty() const { return steps_.empty(); }

 private:
  struct Step {
    std::string label;
    dnnl::primitive primitive;  // empty when host_function is set
    std::unordered_map<int, dnnl::memory> args;
    std::function<void()> host_function;
  };
  std::vector<Step> steps_;
};

}  // namespace runner::onednn
