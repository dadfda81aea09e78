// The reference model's token kinds (to_tokens, class_token, position_embedding, token_select)
// and drop_path. The reference holds a token sequence as an image of T x 1 positions, (N, C, T)
// in NCHW order (to_tokens is then the identity); the backends hold (N, T, C), which only the
// values' order of dropout's masks sees (reference_model.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner::testing {

using Values = std::vector<double>;

// Whether `type` is one of these kinds.
bool is_token_kind(const std::string& type);

// The layer's output for the batch's input x (in training: drop_path draws the masks of step 0
// of a run with seed 0, which is what the tests' programs run).
Values token_forward(const Node& node, const Shape& in, const Values& x, int batch, bool training,
                     const std::map<std::string, Values>& params);

// Adds the layer's gradients for dy: to dx (null: not needed) and param_grads.
void token_backward(const Node& node, const Shape& in, const Values& dy, Values* dx, int batch,
                    std::map<std::string, Values>& param_grads);

// drop_path's factor for image n of the batch (1 in evaluation).
double drop_path_factor(const Node& node, int n, bool training);

}  // namespace runner::testing
