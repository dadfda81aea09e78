// model.init and a layer's own init: which weights start as N(0, 2/fan_out) (torchvision's
// ResNet choice), which as PyTorch's default, and that biases always start as PyTorch's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "backends/backend.h"
#include "layer_cases.h"

namespace runner {
namespace {

using testing::layer;

double std_of(const std::vector<float>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double sum = 0;
  for (float x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size()));
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

// conv (64 outputs, 32 inputs, 3x3: 18432 weights), hidden linear (256 x 512), classifier.
ModelSpec model_with(WeightInit model_init, nlohmann::json conv_extra, nlohmann::json fc_extra) {
  nlohmann::json conv = {{"out_channels", 64}, {"kernel", 3}, {"padding", 1}};
  conv.update(conv_extra);
  nlohmann::json fc = {{"out_features", 256}};
  fc.update(fc_extra);
  ModelSpec model;
  model.init = model_init;
  model.layers = {layer("conv", "conv2d", conv), layer("gap", "global_avg_pool2d"),
                  layer("flat", "flatten"),      layer("expand", "linear", {{"out_features", 512}}),
                  layer("fc", "linear", fc),     layer("out", "linear", {{"out_features", 3}})};
  return model;
}

std::map<std::string, std::vector<float>> initial_values(const ModelSpec& model) {
  Graph graph = build_graph(model, Shape{32, 4, 4}, 3);
  std::map<std::string, std::vector<float>> values;
  for (auto& t : initial_parameters(graph, 3)) values[t.name] = std::move(t.values);
  return values;
}

// Whether `w` looks like N(0, 2/fan_out): its sample std within 3% (thousands of samples).
void expect_kaiming(const std::vector<float>& w, double fan_out, const char* what) {
  const double expected = std::sqrt(2.0 / fan_out);
  EXPECT_NEAR(std_of(w), expected, 0.03 * expected) << what;
  EXPECT_GT(max_abs(w), 3 * expected) << what;  // normal tails, beyond any uniform bound here
}

// Whether `w` looks like PyTorch's default U(-1/sqrt(fan_in), 1/sqrt(fan_in)): inside the bound
// and spanning it; for thousands of values also its std, bound/sqrt(3), within 3%.
void expect_default(const std::vector<float>& w, double fan_in, const char* what) {
  const double bound = 1 / std::sqrt(fan_in);
  EXPECT_LE(max_abs(w), bound) << what;
  EXPECT_GT(max_abs(w), 0.9 * bound) << what;
  if (w.size() >= 10000) {
    EXPECT_NEAR(std_of(w), bound / std::sqrt(3.0), 0.03 * bound / std::sqrt(3.0)) << what;
  }
}

TEST(WeightInit, ModelWideKaimingNormalWithALayerKeepingTheDefault) {
  auto v = initial_values(
      model_with(WeightInit::kaiming_normal, nlohmann::json::object(), {{"init", "default"}}));
  expect_kaiming(v["conv.weight"], 64 * 3 * 3, "conv.weight");  // fan_out = O x kernel
  expect_kaiming(v["expand.weight"], 512, "expand.weight");     // fan_out = out_features
  expect_default(v["fc.weight"], 512, "fc.weight");             // its own init wins
  expect_default(v["conv.bias"], 32 * 3 * 3, "conv.bias");      // biases stay PyTorch's
  expect_default(v["expand.bias"], 64, "expand.bias");
}

TEST(WeightInit, DefaultModelWithLayersAskingForKaimingNormal) {
  auto v = initial_values(model_with(WeightInit::pytorch_default,
                                     {{"init", "kaiming_normal"}, {"bias", false}},
                                     {{"init", "kaiming_normal"}}));
  expect_kaiming(v["conv.weight"], 64 * 3 * 3, "conv.weight");
  EXPECT_EQ(v.count("conv.bias"), 0u);
  expect_kaiming(v["fc.weight"], 256, "fc.weight");
  expect_default(v["expand.weight"], 64, "expand.weight");
  expect_default(v["fc.bias"], 512, "fc.bias");
}

TEST(WeightInit, AnUnknownInitNamesTheField) {
  try {
    build_graph(
        model_with(WeightInit::pytorch_default, {{"init", "xavier"}}, nlohmann::json::object()),
        Shape{32, 4, 4}, 3);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("model.layers[conv].init"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("default, kaiming_normal"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace runner
