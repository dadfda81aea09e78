// The optimizer as the config names it (PyTorch's SGD, Adam and AdamW settings): what the
// backends' update arithmetic and the memory estimate read.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/util/enum_names.h"

namespace runner {

enum class OptimizerType { sgd, adam, adamw };

// The config's names of the optimizer types, the only place they are spelled.
inline constexpr EnumNames<OptimizerType, 3> kOptimizerTypeNames = {
    {{OptimizerType::sgd, "sgd"}, {OptimizerType::adam, "adam"}, {OptimizerType::adamw, "adamw"}}};

inline std::string_view optimizer_type_name(OptimizerType type) {
  return name_in(kOptimizerTypeNames, type);
}

// The type a config names; nullopt for a name that is none of them.
inline std::optional<OptimizerType> optimizer_type_named(std::string_view name) {
  return value_named(kOptimizerTypeNames, name);
}

// PyTorch's default weight decay: 0.01 for torch.optim.AdamW, 0 for SGD and Adam.
inline double default_weight_decay(OptimizerType type) {
  return type == OptimizerType::adamw ? 0.01 : 0.0;
}

struct OptimizerSpec {
  OptimizerType type = OptimizerType::sgd;
  double lr = 0.001;
  double momentum = 0.0;
  double dampening = 0.0;
  // sgd, adam: L2 added to the gradient; adamw: decoupled (value *= 1 - lr * weight_decay
  // before the Adam step); default_weight_decay(type) unless given.
  double weight_decay = 0.0;
  // weight_decay_exclude: [bias, norm, embedding]: no decay for parameters named *.bias, for
  // those of normalisation layers (ParamSpec::normalization), or for learned token and position
  // embeddings (ParamSpec::embedding, timm's no_weight_decay).
  bool decay_exclude_bias = false, decay_exclude_norm = false, decay_exclude_embedding = false;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam, adamw

  bool adam_family() const { return type == OptimizerType::adam || type == OptimizerType::adamw; }
  // The per-parameter state buffers, as PyTorch's state_dict names them: what the backends
  // allocate and checkpoint, and what the memory estimate counts.
  std::vector<std::string> state_names() const {
    if (adam_family()) return {"exp_avg", "exp_avg_sq"};
    if (momentum != 0) return {"momentum_buffer"};
    return {};
  }
};

}  // namespace runner
