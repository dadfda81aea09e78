// A naive double-precision model of a Graph: the readable specification that the backends'
// forward and backward passes are checked against (and that is itself checked by finite
// differences).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner::testing {

using Values = std::vector<double>;

class ReferenceModel {
 public:
  ReferenceModel(const Graph& graph, std::map<std::string, Values> params)
      : graph_(graph), params_(std::move(params)) {}

  // input: (N, C, H, W) normalised values. Returns the logits (N, classes) in evaluation mode
  // (batch norm with its running statistics).
  Values logits(const Values& input, int batch) const;
  // Mean softmax cross-entropy over the batch, in training mode (batch statistics).
  double loss(const Values& input, const std::vector<int>& labels) const;
  // d(mean loss)/d(parameter) for every trainable parameter, in training mode.
  std::map<std::string, Values> gradients(const Values& input,
                                          const std::vector<int>& labels) const;
  // The buffers (batch norm's running statistics) after one training step on `input`.
  std::map<std::string, Values> buffers_after_step(const Values& input, int batch) const;

  std::map<std::string, Values>& params() { return params_; }

 private:
  std::vector<Values> forward(const Values& input, int batch, bool training) const;
  const Graph& graph_;
  std::map<std::string, Values> params_;
};

}  // namespace runner::testing
