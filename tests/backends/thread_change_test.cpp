// A CPU program given other threads between steps: it goes on from the same parameters and
// optimizer state, and computes as a program compiled for those threads from the start would.
#include <gtest/gtest.h>

#include "backends/onednn/onednn_backend.h"
#include "layer_cases.h"
#include "runner/util/random.h"

namespace runner::testing {
namespace thread_change {

constexpr int kChangeBatch = 8;

// LeNet with batch normalisation and dropout: running statistics (buffers) and the masks'
// step count must survive the recompilation too.
Graph lenet_with_buffers() {
  ModelSpec model;
  model.layers = {layer("conv1", "conv2d", {{"out_channels", 6}, {"kernel", 5}}),
                  layer("bn1", "batch_norm2d"),
                  layer("relu1", "relu"),
                  layer("pool1", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
                  layer("conv2", "conv2d", {{"out_channels", 16}, {"kernel", 5}}),
                  layer("relu2", "relu"),
                  layer("flat", "flatten"),
                  layer("drop", "dropout", {{"p", 0.25}}),
                  layer("fc1", "linear", {{"out_features", 10}})};
  return build_graph(model, {3, 32, 32}, 10);
}

std::unique_ptr<Program> compiled(const Graph& graph, int threads) {
  onednn::OnednnBackend cpu;
  CompileOptions options = options_for(graph, kChangeBatch, 16);
  options.optimizer.type = OptimizerType::adam;
  options.optimizer.lr = 1e-3;
  options.threads = threads;
  auto program = cpu.compile(graph, options);
  program->load_parameters(initial_parameters(graph, 3));
  return program;
}

// Step `step`'s batch, the same for every program.
void train_step(Program& program, const Graph& graph, int step, std::vector<double>& losses) {
  Random random(500 + step);
  std::vector<std::uint8_t> images(kChangeBatch * graph.input.elements());
  std::vector<std::int32_t> labels(kChangeBatch);
  for (auto& b : images) b = static_cast<std::uint8_t>(random.below(256));
  for (auto& l : labels) l = static_cast<std::int32_t>(random.below(10));
  program.train_step(images.data(), labels.data(), kChangeBatch);
  losses.push_back(program.take_loss().mean());
}

void expect_identical(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].values, b[i].values) << a[i].name;
  }
}

TEST(ThreadChange, AProgramGivenOtherThreadsComputesAsOneCompiledForThemFromTheSameState) {
  const Graph graph = lenet_with_buffers();
  // Steps 0-1 on 2 threads, 2-3 on 1, 4-5 on 2 again, in one program...
  auto changed = compiled(graph, 2);
  std::vector<double> changed_losses;
  for (int step = 0; step < 6; ++step) {
    if (step == 2) changed->set_threads(1);
    if (step == 4) changed->set_threads(2);
    train_step(*changed, graph, step, changed_losses);
  }
  // ... and in three programs, each compiled for its threads and handed the state.
  std::vector<double> handed_losses;
  std::unique_ptr<Program> program;
  for (int step = 0; step < 6; ++step) {
    if (step % 2 == 0) {
      auto next = compiled(graph, step == 2 ? 1 : 2);
      if (program) {
        next->load_parameters(program->parameters());
        next->load_optimizer_state(program->optimizer_state());
      }
      program = std::move(next);
    }
    train_step(*program, graph, step, handed_losses);
  }
  EXPECT_EQ(changed_losses, handed_losses);
  expect_identical(changed->parameters(), program->parameters());
  expect_identical(changed->optimizer_state(), program->optimizer_state());
  // Inference after the change reads the changed weights.
  std::vector<std::uint8_t> image(graph.input.elements(), 77);
  std::vector<float> a(10), b(10);
  changed->predict(image.data(), 1, a.data());
  program->predict(image.data(), 1, b.data());
  EXPECT_EQ(a, b);
}

TEST(ThreadChange, SettingTheSameThreadsChangesNothing) {
  const Graph graph = lenet_with_buffers();
  auto plain = compiled(graph, 2);
  auto touched = compiled(graph, 2);
  std::vector<double> plain_losses, touched_losses;
  for (int step = 0; step < 3; ++step) {
    train_step(*plain, graph, step, plain_losses);
    touched->set_threads(2);
    train_step(*touched, graph, step, touched_losses);
  }
  EXPECT_EQ(plain_losses, touched_losses);
  expect_identical(plain->parameters(), touched->parameters());
}

}  // namespace thread_change
}  // namespace runner::testing
