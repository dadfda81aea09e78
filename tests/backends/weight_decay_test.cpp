// Which parameters weight_decay applies to (weight_decay_exclude), and the per-parameter settings
// both backends' updates take from it: AdamW's decay decoupled, Adam's and SGD's coupled.
#include <gtest/gtest.h>

#include "backends/common/host_math.h"

namespace runner {
namespace {

ParamSpec param(const std::string& name, std::vector<std::int64_t> dims, bool norm = false) {
  ParamSpec p;
  p.name = name;
  p.dims = std::move(dims);
  p.normalization = norm;
  return p;
}

OptimizerSpec decaying(OptimizerType type, bool exclude_bias, bool exclude_norm) {
  OptimizerSpec spec;
  spec.type = type;
  spec.lr = 0.1;
  spec.weight_decay = 0.25;
  spec.decay_exclude_bias = exclude_bias;
  spec.decay_exclude_norm = exclude_norm;
  return spec;
}

TEST(WeightDecay, ExclusionsFollowTheNameAndTheNormalizationMark) {
  const ParamSpec weight = param("conv1.weight", {6, 3, 5, 5});
  const ParamSpec bias = param("conv1.bias", {6});
  const ParamSpec norm_weight = param("bn1.weight", {6}, true);
  const ParamSpec norm_bias = param("bn1.bias", {6}, true);
  const ParamSpec biased_name = param("bias_layer.weight", {6, 3});  // not *.bias
  for (bool exclude_bias : {false, true}) {
    for (bool exclude_norm : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "bias " << exclude_bias << ", norm " << exclude_norm);
      const OptimizerSpec spec = decaying(OptimizerType::sgd, exclude_bias, exclude_norm);
      EXPECT_EQ(weight_decay_of(spec, weight), 0.25);
      EXPECT_EQ(weight_decay_of(spec, biased_name), 0.25);
      EXPECT_EQ(weight_decay_of(spec, bias), exclude_bias ? 0.0 : 0.25);
      EXPECT_EQ(weight_decay_of(spec, norm_weight), exclude_norm ? 0.0 : 0.25);
      EXPECT_EQ(weight_decay_of(spec, norm_bias), exclude_bias || exclude_norm ? 0.0 : 0.25);
    }
  }
}

// embedding: the learned class token and position embedding (timm's no_weight_decay), named as
// their layers (no *.bias, not normalization); nothing else.
TEST(WeightDecay, EmbeddingExcludesTheTokenEmbeddingsOnly) {
  ParamSpec cls_token = param("cls_token", {1, 1, 192});
  cls_token.embedding = true;
  ParamSpec pos_embed = param("pos_embed", {1, 65, 192});
  pos_embed.embedding = true;
  const ParamSpec qkv = param("blocks.0.attn.qkv.weight", {576, 192});
  const ParamSpec norm = param("norm.weight", {192}, true);
  OptimizerSpec spec = decaying(OptimizerType::adamw, false, false);
  EXPECT_EQ(weight_decay_of(spec, cls_token), 0.25);
  spec.decay_exclude_embedding = true;
  EXPECT_EQ(weight_decay_of(spec, cls_token), 0.0);
  EXPECT_EQ(weight_decay_of(spec, pos_embed), 0.0);
  EXPECT_EQ(weight_decay_of(spec, qkv), 0.25);
  EXPECT_EQ(weight_decay_of(spec, norm), 0.25);  // that is [norm]'s
  EXPECT_EQ(adam_settings(spec, pos_embed).keep, 1.f);
  EXPECT_EQ(adam_settings(spec, qkv).keep, static_cast<float>(1 - 0.1 * 0.25));
}

TEST(WeightDecay, AdamwDecouplesItAdamAndSgdAddItToTheGradient) {
  const ParamSpec weight = param("fc.weight", {4, 3});
  const ParamSpec bias = param("fc.bias", {4});
  const auto adamw = adam_settings(decaying(OptimizerType::adamw, true, false), weight);
  EXPECT_EQ(adamw.weight_decay, 0.f);
  EXPECT_EQ(adamw.keep, static_cast<float>(1 - 0.1 * 0.25));
  const auto adamw_bias = adam_settings(decaying(OptimizerType::adamw, true, false), bias);
  EXPECT_EQ(adamw_bias.keep, 1.f);
  const auto adam = adam_settings(decaying(OptimizerType::adam, false, false), weight);
  EXPECT_EQ(adam.weight_decay, 0.25f);
  EXPECT_EQ(adam.keep, 1.f);
  EXPECT_EQ(sgd_settings(decaying(OptimizerType::sgd, true, false), bias).weight_decay, 0.f);
  EXPECT_EQ(sgd_settings(decaying(OptimizerType::sgd, true, false), weight).weight_decay, 0.25f);
}

TEST(WeightDecay, ClipFactorIsPyTorchs) {
  EXPECT_EQ(optimizer_math::clip_factor(0.5f, 1.f), 1.f);  // below the maximum: unchanged
  EXPECT_FLOAT_EQ(optimizer_math::clip_factor(4.f, 1.f), 1.f / (4.f + 1e-6f));
  EXPECT_EQ(optimizer_math::clip_factor(0.f, 1.f), 1.f);
}

}  // namespace
}  // namespace runner
