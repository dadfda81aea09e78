// backend.winograd: oneDNN's Winograd F(4x4, 3x3) trains wide 3x3 convolutions faster but rounds
// otherwise (on ResNet-18 the gradients of a step were 0.5-2.5 % from exact, 1e-5 direct: see the
// README). On a stack of 64-channel convolutions with batch norm and ReLU, the training step's
// gradients with the switch off are within 1e-5 of the double-precision reference, and with it
// on they are other numbers (Winograd ran), still within 1e-2.
#include <gtest/gtest.h>

#include "layer_fixture.h"
#include "reference_model.h"

namespace runner::testing {
namespace {

struct ConvGradients {
  std::map<std::string, Values> runner, reference;
};

// The conv weights' gradients of one step with `winograd`, and the reference's.
ConvGradients conv_gradients(bool winograd) {
  ModelSpec model;
  for (const char* n : {"0", "1", "2"}) {
    const std::string name(n);
    model.layers.push_back(layer("c" + name, "conv2d",
                                 {{"out_channels", 64},
                                  {"kernel", 3},
                                  {"padding", 1},
                                  {"bias", false},
                                  {"init", "kaiming_normal"}}));
    model.layers.push_back(layer("bn" + name, "batch_norm2d"));
    model.layers.push_back(layer("r" + name, "relu"));
  }
  model.layers.push_back(layer("gap", "global_avg_pool2d", {{"flatten", true}}));
  model.layers.push_back(layer("fc", "linear", {{"out_features", kClasses}}));
  const Shape input{32, 4, 4};
  const Graph graph = build_graph(model, input, kClasses);
  const auto initial = initial_parameters(graph, 11);
  // Images as photos of objects on a plain background (Fashion-MNIST's): batch norm then divides
  // by small deviations, which is where Winograd's rounding shows.
  Batch batch = random_batch(input, 32, 5);
  for (std::size_t i = 0; i < batch.bytes.size(); ++i) {
    if (i % 5 != 0) {
      batch.bytes[i] = 0;
      batch.normalized[i] = -1.0;
    }
  }

  CompileOptions options = options_for(graph, 32, 32);
  options.winograd = winograd;
  auto program = onednn::OnednnBackend().compile(graph, options);
  program->load_parameters(initial);
  program->train_step(batch.bytes.data(), batch.labels.data(), 32);

  ConvGradients out;
  out.reference =
      ReferenceModel(graph, as_values(initial)).gradients(batch.normalized, batch.labels);
  auto before = as_values(initial);
  for (const auto& tensor : program->parameters()) {
    if (tensor.name.front() != 'c') continue;  // the convolutions' weights
    Values& grad = out.runner[tensor.name];
    for (std::size_t i = 0; i < tensor.values.size(); ++i)
      grad.push_back(before[tensor.name][i] - tensor.values[i]);
  }
  return out;
}

TEST(WinogradSwitch, DirectConvolutionsGiveExactGradientsAndWinogradOthers) {
  const ConvGradients direct = conv_gradients(false), winograd = conv_gradients(true);
  ASSERT_EQ(direct.runner.size(), 3u);
  bool differ = false;
  for (const auto& [name, grad] : direct.runner) {
    EXPECT_LT(relative_error(grad, direct.reference.at(name)), 1e-5) << name;
    EXPECT_LT(relative_error(winograd.runner.at(name), direct.reference.at(name)), 1e-2) << name;
    differ = differ || winograd.runner.at(name) != grad;
  }
  EXPECT_TRUE(differ) << "the same bits with and without Winograd: the switch decided nothing";
}

}  // namespace
}  // namespace runner::testing
