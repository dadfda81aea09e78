// TrainingFeed: a program that holds the training set gets each batch as rows, in the order and
// sizes the host loader would give; a program that declines gets the loader's batches. Whole
// training runs on the CPU through a program that holds the set (gathering rows itself, and
// augmenting them as the GPU's gather kernel does) match a run fed by the loader exactly.
#include "runner/train/training_feed.h"

#include <gtest/gtest.h>

#include <cstring>

#include "forwarding_program.h"
#include "runner/config/load_config.h"
#include "runner/data/augment.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/train/benchmark.h"
#include "runner/train/trainer.h"
#include "runner/util/threads.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny_experiment(std::vector<std::string> overrides = {}) {
  overrides.push_back("training.log_every=5");
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

// Wraps a real program; when `holds`, it takes the training set and gathers the rows of each
// batch on the host, as the GPU program does on its device.
class HoldingProgram : public testing::ForwardingProgram {
 public:
  HoldingProgram(std::unique_ptr<Program> inner, bool holds)
      : ForwardingProgram(std::move(inner)), holds_(holds) {}

  bool hold_training_set(const HostImageSet& set) override {
    offered = set;
    return holds_;
  }
  void train_step(const TrainBatch& batch) override {
    steps.push_back(batch.count);
    inner_->train_step(gather(batch));
  }
  void profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) override {
    inner_->profile_train_step(gather(batch), timings);
  }

  HostImageSet offered;
  std::vector<int> steps;  // each step's batch size
  int row_batches = 0;     // steps given as rows

 private:
  TrainBatch gather(const TrainBatch& batch) {
    if (!batch.indices) {
      EXPECT_FALSE(holds_) << "a holding program was given images";
      return batch;
    }
    EXPECT_TRUE(holds_) << "rows given to a program that declined the set";
    ++row_batches;
    const std::size_t image_bytes = 3 * 16 * 16;
    images_.resize(batch.count * image_bytes);
    labels_.resize(batch.count);
    for (int i = 0; i < batch.count; ++i) {
      const std::uint32_t row = batch.indices[i];
      EXPECT_LT(row, offered.count);
      const std::uint8_t* image = offered.images + row * image_bytes;
      if (offered.augment.count > 0) {
        augment_image(offered.augment, batch.epoch, row, image, images_.data() + i * image_bytes, 3,
                      16, 16);
      } else {
        std::memcpy(images_.data() + i * image_bytes, image, image_bytes);
      }
      labels_[i] = offered.labels[row];
    }
    return {images_.data(), labels_.data(), nullptr, batch.count};
  }

  bool holds_;
  std::vector<std::uint8_t> images_;
  std::vector<std::int32_t> labels_;
};

struct TinyRun {
  Experiment experiment;
  Graph graph;
  DatasetSplits data;
  std::unique_ptr<Backend> backend = make_backend(Device::cpu(), nullptr);

  explicit TinyRun(std::vector<std::string> overrides = {})
      : experiment(tiny_experiment(std::move(overrides))) {
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    graph = build_graph(experiment.model, geometry.image, geometry.classes);
    data = load_dataset(experiment.dataset);
  }
  std::unique_ptr<HoldingProgram> program(bool holds) const {
    CompileOptions options;
    options.train_batch = experiment.training.batch_size;
    options.eval_batch = experiment.training.eval_batch_size;
    options.optimizer = experiment.training.optimizer;
    options.normalize = experiment.dataset.normalize;
    auto inner = backend->compile(graph, options);
    inner->load_parameters(initial_parameters(graph, experiment.seed));
    return std::make_unique<HoldingProgram>(std::move(inner), holds);
  }
};

// The labels of an epoch's batches (the tiny set's labels are random, so they identify order).
std::vector<std::vector<std::int32_t>> epoch_labels(TrainingFeed& feed, const Dataset& data,
                                                    int epoch) {
  std::vector<std::vector<std::int32_t>> batches;
  feed.start_epoch(epoch);
  TrainBatch batch;
  while (feed.next(batch)) {
    std::vector<std::int32_t> labels;
    for (int i = 0; i < batch.count; ++i) {
      labels.push_back(batch.indices ? data.labels[batch.indices[i]] : batch.labels[i]);
    }
    batches.push_back(labels);
  }
  return batches;
}

TEST(TrainingFeed, RowsFollowTheLoadersOrderAndSizes) {
  for (bool shuffle : {true, false}) {
    // 1024 images in batches of 100: ten full batches and a short one of 24.
    TinyRun setup(
        {"training.batch_size=100", shuffle ? "dataset.shuffle=true" : "dataset.shuffle=false"});
    auto holding = setup.program(true);
    auto declining = setup.program(false);
    TrainingFeed rows(setup.data.train, *holding, setup.experiment);
    TrainingFeed host(setup.data.train, *declining, setup.experiment);
    EXPECT_TRUE(rows.on_device());
    EXPECT_FALSE(host.on_device());
    EXPECT_EQ(holding->offered.count, 1024);
    EXPECT_EQ(holding->offered.images, setup.data.train.images.data());
    EXPECT_EQ(holding->offered.labels, setup.data.train.labels.data());
    EXPECT_EQ(rows.batches_per_epoch(), 11);
    for (int epoch : {0, 1, 2}) {
      auto expected = epoch_labels(host, setup.data.train, epoch);
      auto actual = epoch_labels(rows, setup.data.train, epoch);
      ASSERT_EQ(actual.size(), 11u);
      EXPECT_EQ(actual.back().size(), 24u);
      EXPECT_EQ(actual, expected) << "epoch " << epoch << (shuffle ? " shuffled" : "");
    }
  }
}

TEST(TrainingFeed, RowsSpanEveryImageOncePerEpochAndNothingBeforeTheFirstEpoch) {
  TinyRun setup({"training.batch_size=64"});
  auto holding = setup.program(true);
  TrainingFeed feed(setup.data.train, *holding, setup.experiment);
  TrainBatch batch;
  EXPECT_FALSE(feed.next(batch)) << "no batch before start_epoch";
  feed.start_epoch(4);
  std::vector<int> seen(setup.data.train.size(), 0);
  while (feed.next(batch)) {
    for (int i = 0; i < batch.count; ++i) ++seen[batch.indices[i]];
  }
  for (std::size_t row = 0; row < seen.size(); ++row) ASSERT_EQ(seen[row], 1) << "row " << row;
}

const std::string kAugment =
    "dataset.augment=[{random_crop: {padding: 2}}, {horizontal_flip: {p: 0.5}}]";

TEST(TrainingFeed, TrainingOnHeldRowsGivesTheLoadersNumbersExactly) {
  for (bool augmented : {false, true}) {
    SCOPED_TRACE(augmented ? "augmented" : "not augmented");
    TinyRun setup(augmented ? std::vector<std::string>{kAugment} : std::vector<std::string>{});
    Console console(true);
    auto holding = setup.program(true);
    auto declining = setup.program(false);
    TrainingOutcome held = train(setup.experiment, *holding, setup.data, console);
    TrainingOutcome streamed = train(setup.experiment, *declining, setup.data, console);
    EXPECT_EQ(holding->row_batches, static_cast<int>(holding->steps.size()));
    EXPECT_EQ(held.steps, 2 * 64);
    EXPECT_EQ(held.steps, streamed.steps);
    ASSERT_EQ(held.epochs.size(), 2u);
    for (std::size_t e = 0; e < held.epochs.size(); ++e) {
      EXPECT_EQ(held.epochs[e].train_loss, streamed.epochs[e].train_loss) << "epoch " << e + 1;
      EXPECT_EQ(held.epochs[e].test_accuracy, streamed.epochs[e].test_accuracy);
    }
    EXPECT_EQ(held.data_wait_seconds, 0.0) << "nothing is waited for when the device gathers";
    EXPECT_EQ(holding->offered.augment.count, augmented ? 2 : 0);
    auto a = holding->parameters();
    auto b = declining->parameters();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].values, b[i].values) << a[i].name;
  }
}

TEST(TrainingFeed, AugmentedTrainingDiffersAndRepeatsAndLeavesTheDataAlone) {
  Console console(true);
  TinyRun plain;
  TinyRun augmented({kAugment});
  const DatasetSplits original = augmented.data;
  auto plain_program = plain.program(false);
  auto first = augmented.program(false);
  auto second = augmented.program(false);
  TrainingOutcome p = train(plain.experiment, *plain_program, plain.data, console);
  TrainingOutcome a = train(augmented.experiment, *first, augmented.data, console);
  TrainingOutcome b = train(augmented.experiment, *second, augmented.data, console);
  ASSERT_EQ(a.epochs.size(), 2u);
  EXPECT_NE(a.epochs[0].train_loss, p.epochs[0].train_loss) << "the images were augmented";
  for (std::size_t e = 0; e < a.epochs.size(); ++e) {
    EXPECT_EQ(a.epochs[e].train_loss, b.epochs[e].train_loss) << "epoch " << e + 1;
    EXPECT_EQ(a.epochs[e].test_loss, b.epochs[e].test_loss) << "epoch " << e + 1;
  }
  EXPECT_EQ(augmented.data.train.images, original.train.images);
  EXPECT_EQ(augmented.data.test.images, original.test.images);
}

TEST(TrainingFeed, EvaluationSeesTheTestSetAsItIs) {
  // The trainer's evaluation of an augmented run is the plain evaluation of the test set as
  // loaded, with the trained parameters: nothing augments the test images.
  TinyRun augmented({kAugment});
  auto program = augmented.program(false);
  Console console(true);
  TrainingOutcome trained = train(augmented.experiment, *program, augmented.data, console);
  auto fresh = augmented.program(false);
  fresh->load_parameters(program->parameters());
  Evaluation after = evaluate(*fresh, augmented.data.test, 128);
  EXPECT_EQ(trained.final_evaluation.loss, after.loss);
  EXPECT_EQ(trained.final_evaluation.correct, after.correct);
}

// Issue 27: the loader's threads are dataset.workers when given; auto runs none for batches that
// are only copies, nor for augmentation when the compute threads take every core; the feed says
// which, and the run records what ran. The numbers do not depend on it.
TEST(TrainingFeed, LoaderWorkersAreConfiguredOrPlannedAndRecorded) {
  struct Case {
    std::vector<std::string> overrides;
    int workers;
    std::string says;
  };
  const std::string all_cores = "training.threads=" + std::to_string(available_cores());
  const std::vector<Case> cases = {
      {{"dataset.workers=3"}, 3, "3 loader workers (dataset.workers)"},
      {{"dataset.workers=auto"}, 0, "0 loader workers (auto: a batch is a copy"},
      {{"dataset.workers=auto", kAugment, all_cores},
       0,
       "0 loader workers (auto: augmenting inline"},
      {{"dataset.workers=2", kAugment}, 2, "2 loader workers (dataset.workers)"},
  };
  Console console(true);
  std::vector<double> losses;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    TinyRun setup(c.overrides);
    auto program = setup.program(false);
    TrainingFeed feed(setup.data.train, *program, setup.experiment);
    EXPECT_EQ(feed.loader_workers(), c.workers);
    EXPECT_EQ(feed.description().rfind(c.says, 0), 0u) << feed.description();
    TrainingOutcome outcome = train(setup.experiment, *program, setup.data, console);
    EXPECT_EQ(outcome.loader_workers, c.workers);
    losses.push_back(outcome.epochs.back().train_loss);
  }
  EXPECT_EQ(losses[0], losses[1]) << "3 workers and auto (inline) trained differently";
  EXPECT_EQ(losses[2], losses[3]) << "augmenting inline and with 2 workers trained differently";

  TinyRun held({"dataset.workers=3"});
  auto holding = held.program(true);
  TrainingFeed feed(held.data.train, *holding, held.experiment);
  EXPECT_EQ(feed.loader_workers(), 0) << "no loader runs for a set held on the device";
  EXPECT_EQ(feed.description(),
            "the training set is held on the device; batches are gathered there");
}

TEST(TrainingFeed, BenchmarkStepsOnHeldRowsAreFullBatches) {
  // 1024 images in batches of 100: the short batch of each epoch is skipped, as on the host.
  TinyRun setup({"training.batch_size=100"});
  Console console(true);
  auto holding = setup.program(true);
  BenchmarkSpec spec;
  spec.warmup_steps = 3;
  spec.steps = 12;
  BenchmarkOutcome out = run_benchmark(setup.experiment, *holding, setup.data.train, spec, console);
  EXPECT_EQ(out.run.status, RunStatus::completed);
  EXPECT_EQ(holding->steps.size(), 15u);
  for (int size : holding->steps) EXPECT_EQ(size, 100);
  EXPECT_EQ(holding->row_batches, 15);
}

// A benchmark times the recipe's steps: augmented as in training, at the schedule's rate of each
// step counted from the first warm-up step.
TEST(TrainingFeed, BenchmarkStepsAreAugmentedAndFollowTheSchedule) {
  TinyRun setup({"training.batch_size=100", "dataset.synthetic.train_count=300", kAugment,
                 "training.optimizer.lr=0.5",
                 "training.schedule={type: step, step_size: 1, gamma: 0.1, "
                 "warmup: {epochs: 1, start_factor: 0.5}}"});
  Console console(true);
  auto holding = setup.program(true);
  BenchmarkSpec spec;
  spec.warmup_steps = 1;
  spec.steps = 3;
  run_benchmark(setup.experiment, *holding, setup.data.train, spec, console);
  EXPECT_EQ(holding->offered.augment.count, 2);
  // The tiny set has 300 images: 3 steps per epoch, a warm-up of 3 steps, then epoch 1.
  ASSERT_EQ(setup.data.train.size(), 300u);
  const std::vector<double> expected = {0.5 * 0.5, 0.5 * (0.5 + 0.5 / 3), 0.5 * (0.5 + 1.0 / 3),
                                        0.5 * 0.1};
  ASSERT_EQ(holding->learning_rates.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(holding->learning_rates[i], expected[i], 1e-12) << "step " << i;
  }
}

}  // namespace
}  // namespace runner
