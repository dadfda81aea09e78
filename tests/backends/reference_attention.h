// The reference model's self_attention (timm's Attention), in double precision, on the
// reference's (N, C, T) token order (reference_tokens.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner::testing {

using Values = std::vector<double>;

// The layer's output for the batch's input x (in training, attention dropout draws the masks of
// step 0 of a run with seed 0, as the tests' programs run).
Values attention_forward(const Node& node, const Values& x, int batch, bool training,
                         const std::map<std::string, Values>& params);

// Adds the layer's gradients for dy (in training mode): to dx (null: not needed) and
// param_grads.
void attention_backward(const Node& node, const Values& x, const Values& dy, Values* dx, int batch,
                        const std::map<std::string, Values>& params,
                        std::map<std::string, Values>& param_grads);

}  // namespace runner::testing
