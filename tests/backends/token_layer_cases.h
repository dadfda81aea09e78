// The per-layer test cases of token sequences (to_tokens and after) and drop_path: small vision
// transformer pieces of odd sizes, through the same checks as layer_cases.h's (reference finite
// differences, oneDNN exact/short/chunked, bf16 bounds, cuDNN parity).
#pragma once

#include <vector>

#include "layer_case.h"

namespace runner::testing {

inline std::vector<LayerCase> token_cases() {
  const auto none = nlohmann::json::object();
  return {
      // A ViT's stem and an MLP block: 2x2 patches of 6 features (channels-last tokens), a class
      // token, positions, a pre-norm MLP (linear on tokens, GELU) with its residual sum, a layer
      // scale per feature, dropout in (N, T, C) order; the class token and the mean of the tokens
      // read out and summed (without attention the class token alone sees no patch).
      {"tokens_stem_mlp_block_class",
       {3, 6, 4},
       2,
       {layer("patch", "conv2d", {{"out_channels", 6}, {"kernel", 2}, {"stride", 2}}),
        layer("tokens", "to_tokens"), layer("cls", "class_token"),
        layer("pos", "position_embedding"), layer("norm", "layer_norm", {{"eps", 1e-6}}),
        layer("fc1", "linear", {{"out_features", 9}}), layer("act", "gelu"),
        layer("fc2", "linear", {{"out_features", 6}}), layer("sum", "add", none, {"pos", "fc2"}),
        layer("ls", "scale", {{"init_value", 0.5}}), layer("drop", "dropout", {{"p", 0.3}}),
        layer("class", "token_select"),
        layer("mean", "token_select", {{"select", "mean"}}, {"drop"}),
        layer("both", "add", none, {"class", "mean"}),
        layer("head", "linear", {{"out_features", kClasses}})}},
      // 16 features (the net views them as oneDNN's 16-channel blocks), drop_path on a residual
      // branch whose linear has a ReLU fused in, the mean of the tokens read out; batch 3 so
      // that chunks of two images draw the third image's factor from its place in the batch.
      {"tokens_16_features_drop_path_mean",
       {2, 4, 4},
       3,
       {layer("patch", "conv2d", {{"out_channels", 16}, {"kernel", 2}, {"stride", 2}}),
        layer("tokens", "to_tokens"), layer("fc", "linear", {{"out_features", 16}}),
        layer("r", "relu"), layer("dp", "drop_path", {{"p", 0.5}}),
        layer("sum", "add", none, {"tokens", "dp"}), layer("norm", "layer_norm"),
        layer("select", "token_select", {{"select", "mean"}}),
        layer("head", "linear", {{"out_features", kClasses}, {"bias", false}})}},
      // The images themselves as tokens (no input gradient), a class token before them, all read
      // out by their mean.
      {"tokens_from_input_class_token",
       {3, 3, 3},
       2,
       {layer("tokens", "to_tokens"), layer("cls", "class_token"),
        layer("select", "token_select", {{"select", "mean"}}),
        layer("head", "linear", {{"out_features", kClasses}})}},
      // drop_path on residual branches of images (channels-last, then 16-channel blocks) and of
      // flat features; each drops some images of the batch and keeps others.
      {"drop_path_images_and_features",
       {3, 5, 5},
       4,
       {layer("c1", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}}),
        layer("b1", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}}),
        layer("dp1", "drop_path", {{"p", 0.3}}), layer("sum1", "add", none, {"c1", "dp1"}),
        layer("c2", "conv2d", {{"out_channels", 16}, {"kernel", 3}}),
        layer("b2", "conv2d", {{"out_channels", 16}, {"kernel", 1}}),
        layer("dp2", "drop_path", {{"p", 0.4}}), layer("sum2", "add", none, {"c2", "dp2"}),
        layer("flat", "flatten"), layer("h", "linear", {{"out_features", 7}}),
        layer("b3", "linear", {{"out_features", 7}}), layer("dp3", "drop_path", {{"p", 0.35}}),
        layer("sum3", "add", none, {"h", "dp3"}),
        layer("head", "linear", {{"out_features", kClasses}})}},
      // A pre-norm transformer block (timm's Block): attention of 2 heads of 3 features over a
      // class token and 4 patches, its residual sum, then the MLP; the class token read out.
      // Batch 3: chunks of two images and a short one.
      {"attention_pre_norm_block",
       {3, 4, 4},
       3,
       {layer("patch", "conv2d", {{"out_channels", 6}, {"kernel", 2}, {"stride", 2}}),
        layer("tokens", "to_tokens"), layer("cls", "class_token"),
        layer("pos", "position_embedding"), layer("norm1", "layer_norm", {{"eps", 1e-6}}),
        layer("attn", "self_attention", {{"heads", 2}}),
        layer("sum1", "add", none, {"pos", "attn"}), layer("norm2", "layer_norm", {{"eps", 1e-6}}),
        layer("fc1", "linear", {{"out_features", 8}}), layer("act", "gelu"),
        layer("fc2", "linear", {{"out_features", 6}}), layer("sum2", "add", none, {"sum1", "fc2"}),
        layer("norm", "layer_norm", {{"eps", 1e-6}}), layer("select", "token_select"),
        layer("head", "linear", {{"out_features", kClasses}})}},
      // 4 heads of 4 of 16 features (oneDNN's 16-channel view), attention dropout, no biases.
      {"attention_dropout_no_bias_16_features",
       {2, 4, 4},
       3,
       {layer("patch", "conv2d", {{"out_channels", 16}, {"kernel", 2}, {"stride", 2}}),
        layer("tokens", "to_tokens"),
        layer("attn", "self_attention", {{"heads", 4}, {"dropout", 0.3}, {"bias", false}}),
        layer("select", "token_select", {{"select", "mean"}}),
        layer("head", "linear", {{"out_features", kClasses}})}},
      // One head over the images' own 9 positions and a class token (no input gradient).
      {"attention_one_head_on_input",
       {5, 3, 3},
       2,
       {layer("tokens", "to_tokens"), layer("cls", "class_token"),
        layer("attn", "self_attention", {{"heads", 1}}), layer("select", "token_select"),
        layer("head", "linear", {{"out_features", kClasses}})}},
  };
}

}  // namespace runner::testing
