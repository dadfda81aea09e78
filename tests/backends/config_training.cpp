// A config's network trained on oneDNN (config_training.h).
#include "config_training.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/onednn/onednn_backend.h"
#include "runner/data/dataset.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/graph.h"

namespace runner::testing {

std::vector<double> onednn_epoch_losses(const Experiment& e, Precision precision, int epochs) {
  const DatasetGeometry geometry = dataset_geometry(e.dataset);
  const Graph graph = build_graph(e.model, geometry);
  const DatasetSplits data = load_dataset(e.dataset);
  CompileOptions options;
  options.train_batch = e.training.batch_size;
  options.optimizer = e.training.optimizer;
  options.normalize = e.dataset.normalize;
  options.precision = precision;
  auto program = onednn::OnednnBackend().compile(graph, options);
  program->load_parameters(initial_parameters(graph, 1));
  const int batch = options.train_batch, steps = static_cast<int>(data.train.size()) / batch;
  std::vector<double> losses;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double sum = 0;
    for (int step = 0; step < steps; ++step) {
      const std::size_t first = static_cast<std::size_t>(step) * batch;
      program->train_step(&data.train.images[first * data.train.image_bytes()],
                          &data.train.labels[first], batch);
      sum += program->take_loss().mean();
    }
    losses.push_back(sum / steps);
  }
  return losses;
}

void expect_falling_losses(const std::vector<double>& losses) {
  for (double loss : losses) EXPECT_TRUE(std::isfinite(loss));
  EXPECT_LT(losses.back(), 0.8 * losses.front())
      << "epoch losses " << ::testing::PrintToString(losses);
}

}  // namespace runner::testing
