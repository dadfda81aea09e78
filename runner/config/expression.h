// Arithmetic in a config: `${expr:0.1 * training.batch_size / 128}` (the linear-scaling rule).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace runner {

// What is wrong with an expression, in words; the caller names the field that holds it.
struct ExpressionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Evaluates `text`: numbers, config paths (training.batch_size, model.layers[0].channels: their
// values come from `field`, and must be numbers or true/false), + - * /, parentheses, unary
// minus, the functions sqrt(x), min(a, b), max(a, b) and round(x), and comparisons (== != < <=
// > >=) joined by `and`, `or`, `not`, which give true or false (a block's `enabled: ${expr:
// stride == 1 and in == out}`); true/false never mixes with arithmetic. The result is an integer
// when every operand is one and only + - * min max round were applied (so `training.batch_size * 2`
// stays an integer), else a double; a result that is not finite (a division by zero) is an error.
// Nesting is bounded (kMaxExpressionDepth) so that no text overflows the stack.
inline constexpr int kMaxExpressionDepth = 64;
nlohmann::json evaluate_expression(std::string_view text,
                                   const std::function<nlohmann::json(const std::string&)>& field);

}  // namespace runner
