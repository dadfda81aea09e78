// The trainer under training.schedule: each step gets the schedule's learning rate (and cycled
// momentum), each epoch records its last step's, and a run resumed after an epoch continues the
// schedule there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "forwarding_program.h"
#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/trainer.h"
#include "test_support.h"

namespace runner {
namespace {

// A CPU program that records every learning rate and momentum it is given.
using LrRecordingProgram = testing::ForwardingProgram;

const std::vector<std::string> kCosineWithWarmup = {"training.schedule.type=cosine",
                                                    "training.schedule.min_lr=0.001",
                                                    "training.schedule.warmup.epochs=1.5"};

// tiny_synthetic (1024 images in batches of 16: 64 steps an epoch) over three epochs, by default
// under a cosine schedule with a warm-up of one and a half epochs.
struct ScheduledRun {
  explicit ScheduledRun(std::vector<std::string> schedule = kCosineWithWarmup)
      : experiment(load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml",
                                   with_epochs(std::move(schedule)))) {}
  static std::vector<std::string> with_epochs(std::vector<std::string> overrides) {
    overrides.push_back("training.epochs=3");
    return overrides;
  }

  Experiment experiment;
  DatasetSplits data = load_dataset(experiment.dataset);
  std::unique_ptr<Backend> backend = make_backend(Device::cpu(), nullptr);

  std::unique_ptr<Program> compile() const {
    DatasetGeometry geometry = dataset_geometry(experiment.dataset);
    Graph graph = build_graph(experiment.model, geometry.image, geometry.classes);
    CompileOptions options;
    options.train_batch = experiment.training.batch_size;
    options.eval_batch = experiment.training.eval_batch_size;
    options.optimizer = experiment.training.optimizer;
    options.normalize = experiment.dataset.normalize;
    return backend->compile(graph, options);
  }
  LrRecordingProgram program() const { return LrRecordingProgram(compile()); }
  // The run's schedule, 64 steps an epoch.
  LearningRateSchedule schedule() const {
    return {experiment.training.schedule, experiment.training.optimizer.lr, kStepsPerEpoch, 3};
  }
  // The three epochs from `plan.first_epoch` on, on `program`.
  TrainingOutcome train_on(LrRecordingProgram& program, const TrainingPlan& plan = {}) const {
    Console quiet(true);
    return train(experiment, program, data, quiet, plan);
  }
  static constexpr std::int64_t kStepsPerEpoch = 64;
};

TEST(TrainerSchedule, EachStepGetsTheSchedulesRateAndEpochsRecordTheirLast) {
  ScheduledRun run;
  LrRecordingProgram program = run.program();
  TrainingOutcome outcome = run.train_on(program);
  ASSERT_EQ(outcome.status, RunStatus::completed) << outcome.error;
  const std::int64_t per_epoch = ScheduledRun::kStepsPerEpoch;
  const LearningRateSchedule schedule = run.schedule();
  ASSERT_EQ(program.learning_rates.size(), 3u * per_epoch);
  for (std::size_t s = 0; s < program.learning_rates.size(); ++s) {
    ASSERT_EQ(program.learning_rates[s], schedule.at(static_cast<std::int64_t>(s))) << "step " << s;
  }
  EXPECT_LT(program.learning_rates.front(), 0.1 * 0.02 + 1e-12);  // the warm-up's first factor
  ASSERT_EQ(outcome.epochs.size(), 3u);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(outcome.epochs[e].learning_rate, schedule.at((e + 1) * per_epoch - 1));
    EXPECT_FALSE(outcome.epochs[e].momentum.has_value());
  }
  EXPECT_TRUE(program.momenta.empty());  // the optimizer's momentum stays
}

TEST(TrainerSchedule, OneCycleWithCycleMomentumSetsEachStepsMomentum) {
  ScheduledRun run({"training.optimizer.momentum=0.9", "training.schedule.type=one_cycle",
                    "training.schedule.cycle_momentum=true"});
  LrRecordingProgram program = run.program();
  TrainingOutcome outcome = run.train_on(program);
  ASSERT_EQ(outcome.status, RunStatus::completed) << outcome.error;
  const LearningRateSchedule schedule = run.schedule();
  ASSERT_EQ(program.momenta.size(), 3u * ScheduledRun::kStepsPerEpoch);
  for (std::size_t s = 0; s < program.momenta.size(); ++s) {
    ASSERT_EQ(program.momenta[s], schedule.momentum(static_cast<std::int64_t>(s))) << "step " << s;
  }
  EXPECT_EQ(program.momenta.front(), 0.95);  // max_momentum, down to base_momentum and back
  EXPECT_NEAR(*std::min_element(program.momenta.begin(), program.momenta.end()), 0.85, 1e-3);
  ASSERT_EQ(outcome.epochs.size(), 3u);
  EXPECT_EQ(outcome.epochs[2].momentum, program.momenta.back());
}

TEST(TrainerSchedule, AResumedRunContinuesTheScheduleWhereItStopped) {
  ScheduledRun run;
  LrRecordingProgram straight = run.program();
  run.train_on(straight);
  LrRecordingProgram resumed = run.program();
  TrainingPlan plan;
  plan.first_epoch = 1;  // as after loading a checkpoint of epoch 1 (in the warm-up still)
  run.train_on(resumed, plan);
  const std::vector<double> rest(straight.learning_rates.begin() + ScheduledRun::kStepsPerEpoch,
                                 straight.learning_rates.end());
  EXPECT_EQ(resumed.learning_rates, rest);
}

// A program whose predictions are infinite: its training loss stays finite, the loss of the
// images it is evaluated on does not.
class InfinitePredictions : public testing::ForwardingProgram {
 public:
  using ForwardingProgram::ForwardingProgram;
  void predict(const std::uint8_t* images, int count, float* logits) override {
    inner_->predict(images, count, logits);
    std::fill(logits, logits + count * 10, INFINITY);  // tiny_synthetic's 10 classes
  }
};

// Issue 24: a non-finite test loss was reported `completed` (test_loss null, exit 0): the run
// diverged, as with a non-finite training loss, and stops after the epoch that found it.
TEST(TrainerDivergence, ANonFiniteTestLossIsADivergedRun) {
  ScheduledRun run(std::vector<std::string>{});
  InfinitePredictions program(run.compile());
  const TrainingOutcome outcome = run.train_on(program);
  EXPECT_EQ(outcome.status, RunStatus::diverged);
  EXPECT_EQ(outcome.stop_reason, StopReason::diverged);
  EXPECT_NE(outcome.error.find("on the test set after epoch 1"), std::string::npos)
      << outcome.error;
  EXPECT_EQ(outcome.epochs.size(), 1u) << "training went on after the loss diverged";
}

}  // namespace
}  // namespace runner
