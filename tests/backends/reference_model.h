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

  // input: (N, C, H, W) normalised values. Returns the logits (N, classes).
  Values logits(const Values& input, int batch) const;
  // Mean softmax cross-entropy over the batch.
  double loss(const Values& input, const std::vector<int>& labels) const;
  // d(mean loss)/d(parameter) for every parameter.
  std::map<std::string, Values> gradients(const Values& input,
                                          const std::vector<int>& labels) const;

  std::map<std::string, Values>& params() { return params_; }

 private:
  std::vector<Values> forward(const Values& input, int batch) const;
  const Graph& graph_;
  std::map<std::string, Values> params_;
};

}  // namespace runner::testing
