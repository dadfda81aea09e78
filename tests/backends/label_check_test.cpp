// A label outside the model's outputs is a UserError on the CPU backend too (it indexed past the
// logits and corrupted the heap), checked before the step changes anything.
#include <gtest/gtest.h>

#include "backends/layer_cases.h"
#include "backends/onednn/onednn_backend.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

using testing::layer;

TEST(LabelCheck, OnednnRefusesALabelBeyondTheOutputs) {
  ModelSpec model;
  model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", 3}})};
  Graph graph = build_graph(model, Shape{1, 2, 2}, 3);
  CompileOptions options;
  options.train_batch = 2;
  options.eval_batch = 2;
  options.normalize = {{0.5f}, {0.5f}};
  auto program = onednn::OnednnBackend().compile(graph, options);
  program->load_parameters(initial_parameters(graph, 0));
  const std::vector<std::uint8_t> images(8, 100);
  auto before = program->parameters();
  for (std::int32_t bad : {3, -1, 19}) {
    const std::vector<std::int32_t> labels = {0, bad};
    try {
      program->train_step(images.data(), labels.data(), 2);
      FAIL() << "label " << bad << " was accepted";
    } catch (const UserError& error) {
      std::string message = error.what();
      EXPECT_NE(message.find("the label of image 1 of a batch is " + std::to_string(bad) +
                             ", outside 0..2: the model has 3 outputs"),
                std::string::npos)
          << message;
    }
  }
  EXPECT_EQ(program->parameters()[0].values, before[0].values);  // nothing was updated
  const std::vector<std::int32_t> good = {0, 2};
  EXPECT_NO_THROW(program->train_step(images.data(), good.data(), 2));
}

}  // namespace
}  // namespace runner
