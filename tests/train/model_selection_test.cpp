// Early stopping and the best epoch: Lightning's improvement test, the patience counter, the
// state a checkpoint carries, and the trainer stopping at the right epoch on scripted validation
// figures, also when resumed mid-patience.
#include "runner/train/model_selection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "forwarding_program.h"
#include "runner/config/load_config.h"
#include "runner/data/validation_split.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/train/trainer.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment tiny(std::vector<std::string> overrides) {
  overrides.push_back("dataset.validation_split=0.25");
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml", overrides);
}

const std::vector<std::string> kPatience2 = {
    "training.early_stopping={monitor: val_accuracy, patience: 2}"};

// A validation set of `correct` right answers out of n, as ModelSelection sees it.
Evaluation scored(int correct, int n = 10, double loss = 1.0) {
  Evaluation e;
  e.count = n;
  e.correct = correct;
  e.loss = loss;
  return e;
}

TEST(ModelSelection, ImprovesAsLightningsEarlyStopping) {
  EXPECT_TRUE(improves(MonitorMode::max, 0.5, std::nullopt, 0));
  EXPECT_TRUE(improves(MonitorMode::max, 0.6, 0.5, 0));
  EXPECT_FALSE(improves(MonitorMode::max, 0.5, 0.5, 0));      // equal is no improvement
  EXPECT_FALSE(improves(MonitorMode::max, 0.55, 0.5, 0.05));  // by more than min_delta
  EXPECT_TRUE(improves(MonitorMode::max, 0.56, 0.5, 0.05));
  EXPECT_TRUE(improves(MonitorMode::min, 0.4, 0.5, 0.05));
  EXPECT_FALSE(improves(MonitorMode::min, 0.45, 0.5, 0.05));
  EXPECT_FALSE(improves(MonitorMode::min, 0.6, 0.5, 0));
  EXPECT_FALSE(improves(MonitorMode::min, std::nan(""), std::nullopt, 0));
  EXPECT_FALSE(improves(MonitorMode::min, INFINITY, std::nullopt, 0));
}

TEST(ModelSelection, StopsWhenPatienceRunsOutAndKeepsTheFirstBest) {
  ModelSelection selection(tiny(kPatience2));
  const int correct[] = {5, 7, 7, 6};  // 7 at epochs 2 and 3: the first is the best
  const bool best[] = {true, true, false, false};
  const bool stop[] = {false, false, false, true};
  for (int e = 0; e < 4; ++e) {
    EpochVerdict verdict = selection.epoch_done(e + 1, scored(correct[e]));
    EXPECT_EQ(verdict.new_best, best[e]) << "epoch " << e + 1;
    EXPECT_EQ(verdict.stop, stop[e]) << "epoch " << e + 1;
  }
  EXPECT_EQ(selection.state().best.best_epoch, 2);
  EXPECT_EQ(selection.state().best.best, 0.7);
  EXPECT_EQ(selection.state().early_stopping.wait, 2);
  EXPECT_TRUE(selection.stopped());
  EXPECT_EQ(selection.stop_text(),
            "val_accuracy did not improve by more than 0 for 2 epochs (best 0.7000 at epoch 2)");
}

TEST(ModelSelection, MinDeltaCountsSmallGainsAsNoImprovementButTheBestEpochIsTheArgmax) {
  ModelSelection selection(
      tiny({"training.early_stopping={monitor: val_accuracy, patience: 3, min_delta: 0.05}"}));
  // 0.50, 0.54 (+0.04: no), 0.58 (+0.08 over 0.50: yes), 0.60 (+0.02: no)
  for (int e = 0; e < 4; ++e)
    selection.epoch_done(e + 1, scored(50 + 4 * e - (e == 3 ? 2 : 0), 100));
  EXPECT_EQ(selection.state().early_stopping.best_epoch, 3);
  EXPECT_EQ(selection.state().early_stopping.wait, 1);
  EXPECT_EQ(selection.state().best.best_epoch, 4);  // 0.60, the highest
}

TEST(ModelSelection, ValLossIsMinimisedByDefaultAndChoosesTheBestEpoch) {
  const Experiment e = tiny({"training.early_stopping={monitor: val_loss, patience: 5}"});
  EXPECT_EQ(e.training.early_stopping.watch.mode, MonitorMode::min);
  EXPECT_EQ(best_epoch_monitor(e).monitor, "val_loss");
  ModelSelection selection(e);
  const double losses[] = {1.0, 0.8, 0.9, 0.7, 0.75};
  for (int i = 0; i < 5; ++i) selection.epoch_done(i + 1, scored(1, 10, losses[i]));
  EXPECT_EQ(selection.state().best.best_epoch, 4);
  EXPECT_EQ(selection.state().early_stopping.wait, 1);
  // checkpoint.monitor, when given, chooses the best epoch instead.
  const Experiment by_accuracy =
      tiny({"training.early_stopping={monitor: val_loss}", "checkpoint.path=m.safetensors",
            "checkpoint.monitor=val_accuracy"});
  EXPECT_EQ(best_epoch_monitor(by_accuracy).monitor, "val_accuracy");
  EXPECT_EQ(best_epoch_monitor(by_accuracy).mode, MonitorMode::max);
}

TEST(ModelSelection, StateRoundTripsThroughCheckpointMetadata) {
  const Experiment e = tiny(kPatience2);
  ModelSelection selection(e);
  int epoch = 0;
  for (int c : {3, 6, 5}) selection.epoch_done(++epoch, scored(c));
  std::vector<std::string> notes;
  const SelectionState back =
      read_selection(selection_json(selection.state(), e).dump(), e, "x.safetensors", notes);
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(back.best.best, selection.state().best.best);
  EXPECT_EQ(back.best.best_epoch, selection.state().best.best_epoch);
  EXPECT_EQ(back.early_stopping.wait, 1);
  EXPECT_EQ(back.early_stopping.best, 0.6);
  // Kept by another monitor: starts afresh, and says so.
  const Experiment by_loss = tiny({"training.early_stopping={monitor: val_loss}"});
  const SelectionState other =
      read_selection(selection_json(selection.state(), e).dump(), by_loss, "x.safetensors", notes);
  EXPECT_FALSE(other.early_stopping.best.has_value());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("watched val_accuracy (max), this config val_loss (min)"),
            std::string::npos)
      << notes[0];
}

TEST(ModelSelection, MetadataTheRunnerDoesNotWriteIsAUserError) {
  const Experiment e = tiny(kPatience2);
  std::vector<std::string> notes;
  for (const char* text :
       {"[1]", "not json", R"({"best": {"monitor": "val_accuracy", "mode": "max"}})",
        R"({"best": {"monitor": "val_accuracy", "mode": "max", "best": 0.5, "best_epoch": -1,
            "wait": 0}})"}) {
    try {
      read_selection(text, e, "f.safetensors", notes);
      ADD_FAILURE() << "accepted " << text;
    } catch (const UserError& error) {
      EXPECT_EQ(std::string(error.what()).rfind("f.safetensors: metadata selection", 0), 0u)
          << error.what();
    }
  }
}

// The experiment's program on the CPU (one thread), with the seed's initial parameters.
std::unique_ptr<Program> compile_cpu(const Experiment& e) {
  const DatasetGeometry geometry = dataset_geometry(e.dataset);
  const Graph graph = build_graph(e.model, geometry.image, geometry.classes);
  CompileOptions options;
  options.train_batch = e.training.batch_size;
  options.eval_batch = e.training.eval_batch_size;
  options.optimizer = e.training.optimizer;
  options.normalize = e.dataset.normalize;
  options.threads = 1;
  static const std::unique_ptr<Backend> cpu =
      make_backend(Device::cpu(), nullptr);  // outlives programs
  auto program = cpu->compile(graph, options);
  program->load_parameters(initial_parameters(graph, e.seed));
  return program;
}

// A program whose validation figures follow a script: each evaluation (the whole validation set
// in one predict call) gets the next count of right answers; training runs on the real program.
class ScriptedValidation : public testing::ForwardingProgram {
 public:
  ScriptedValidation(std::unique_ptr<Program> inner, const Dataset& validation,
                     std::deque<int> correct)
      : ForwardingProgram(std::move(inner)), validation_(validation), correct_(correct) {}
  void predict(const std::uint8_t*, int count, float* logits) override {
    EXPECT_EQ(static_cast<std::size_t>(count), validation_.size()) << "one call per evaluation";
    ASSERT_FALSE(correct_.empty()) << "evaluated more often than scripted";
    const int right = correct_.front();
    correct_.pop_front();
    const int classes = validation_.classes();
    for (int n = 0; n < count; ++n) {
      const int label = validation_.labels[n];
      const int answer = n < right ? label : (label + 1) % classes;
      for (int k = 0; k < classes; ++k) logits[n * classes + k] = k == answer ? 1.0f : 0.0f;
    }
  }

 private:
  const Dataset& validation_;
  std::deque<int> correct_;
};

// tiny_synthetic on 64 training images, a quarter held out, no test set, 10 epochs at most.
struct ScriptedRun {
  explicit ScriptedRun(std::vector<std::string> overrides)
      : experiment(tiny(with_size(std::move(overrides)))) {
    data = load_dataset(experiment.dataset);
    hold_out_validation(data, experiment.dataset.validation_split, experiment.seed, {});
    data.test = Dataset{};
  }
  // The test's own overrides after these, so that they win.
  static std::vector<std::string> with_size(std::vector<std::string> overrides) {
    overrides.insert(overrides.begin(), {"dataset.synthetic.train_count=64", "training.epochs=10"});
    return overrides;
  }
  TrainingOutcome train_on(std::deque<int> correct, TrainingPlan plan = {}) {
    ScriptedValidation program(compile_cpu(experiment), data.validation, correct);
    plan.after_epoch = [&](int epochs, const SelectionState& state, bool best) {
      states.push_back(state);
      bests.push_back(best ? epochs : 0);
    };
    Console quiet(true);
    return train(experiment, program, data, quiet, plan);
  }

  Experiment experiment;
  DatasetSplits data;
  std::vector<SelectionState> states;  // after each epoch
  std::vector<int> bests;              // each epoch's number when it was a new best, else 0
};

TEST(TrainerEarlyStopping, APlateauStopsTheRunAtTheRightEpoch) {
  ScriptedRun run({"training.early_stopping={monitor: val_accuracy, patience: 3}"});
  const int n = static_cast<int>(run.data.validation.size());
  ASSERT_GE(n, 12);
  // 6, 9, 9, 8, 9: no improvement after epoch 2 for three epochs: the run stops after epoch 5.
  const TrainingOutcome outcome = run.train_on({6, 9, 9, 8, 9, 11, 12});
  ASSERT_EQ(outcome.status, RunStatus::completed) << outcome.error;
  EXPECT_EQ(outcome.stop_reason, StopReason::early_stopping);
  ASSERT_EQ(outcome.epochs.size(), 5u);
  EXPECT_EQ(outcome.selection.best.best_epoch, 2);
  EXPECT_EQ(outcome.selection.early_stopping.wait, 3);
  EXPECT_EQ(run.bests, (std::vector<int>{1, 2, 0, 0, 0}));
  for (const EpochRecord& e : outcome.epochs) {
    EXPECT_FALSE(e.test_accuracy.has_value()) << "no test set, no test figures";
    ASSERT_TRUE(e.val_accuracy.has_value());
  }
  EXPECT_DOUBLE_EQ(*outcome.epochs[1].val_accuracy, 9.0 / n);
  EXPECT_EQ(outcome.final_validation.correct, 9);  // the last epoch's
  EXPECT_EQ(outcome.final_evaluation.count, 0);
}

TEST(TrainerEarlyStopping, WithoutAPlateauEveryEpochRuns) {
  ScriptedRun run(
      {"training.early_stopping={monitor: val_accuracy, patience: 3}", "training.epochs=4"});
  const TrainingOutcome outcome = run.train_on({1, 2, 3, 2});
  EXPECT_EQ(outcome.stop_reason, StopReason::epochs);
  EXPECT_EQ(outcome.epochs.size(), 4u);
  EXPECT_EQ(outcome.selection.best.best_epoch, 3);
}

TEST(TrainerEarlyStopping, AResumedRunStopsWhereTheUninterruptedOneDid) {
  const std::vector<std::string> settings = {
      "training.early_stopping={monitor: val_accuracy, patience: 3}"};
  ScriptedRun straight(settings);
  const TrainingOutcome all = straight.train_on({6, 9, 9, 8, 9, 11});
  ASSERT_EQ(all.epochs.size(), 5u);
  // Resumed after epoch 3, one epoch into its patience, with the state its checkpoint held.
  ScriptedRun resumed(settings);
  TrainingPlan plan;
  plan.first_epoch = 3;
  plan.selection = straight.states[2];
  ASSERT_EQ(plan.selection.early_stopping.wait, 1);
  const TrainingOutcome rest = resumed.train_on({8, 9, 11}, plan);
  EXPECT_EQ(rest.stop_reason, StopReason::early_stopping);
  ASSERT_EQ(rest.epochs.size(), 2u);
  EXPECT_EQ(rest.epochs.back().epoch, 5);
  EXPECT_EQ(rest.selection.best.best_epoch, all.selection.best.best_epoch);
  EXPECT_EQ(rest.selection.best.best, all.selection.best.best);
  EXPECT_EQ(rest.selection.early_stopping.wait, all.selection.early_stopping.wait);
}

// Runs tiny_synthetic's first epoch with `workers` loader threads on a held-out validation set.
TrainingOutcome one_epoch(int workers, std::vector<std::int32_t>& validation_labels) {
  const Experiment e = tiny({"dataset.synthetic.train_count=256", "training.epochs=1",
                             "dataset.workers=" + std::to_string(workers)});
  DatasetSplits data = load_dataset(e.dataset);
  hold_out_validation(data, e.dataset.validation_split, e.seed, {});
  validation_labels = data.validation.labels;
  auto program = compile_cpu(e);
  Console quiet(true);
  return train(e, *program, data, quiet);
}

TEST(TrainerEarlyStopping, TheValidationFiguresAreTheSameForAnyWorkers) {
  std::vector<std::int32_t> first_labels;
  const TrainingOutcome first = one_epoch(0, first_labels);
  ASSERT_EQ(first.epochs.size(), 1u);
  ASSERT_TRUE(first.epochs[0].val_loss.has_value());
  for (int workers : {1, 2, 3}) {
    std::vector<std::int32_t> labels;
    const TrainingOutcome other = one_epoch(workers, labels);
    EXPECT_EQ(labels, first_labels) << workers << " workers";
    EXPECT_EQ(other.epochs[0].val_loss, first.epochs[0].val_loss) << workers << " workers";
    EXPECT_EQ(other.epochs[0].val_accuracy, first.epochs[0].val_accuracy) << workers;
    EXPECT_EQ(other.epochs[0].test_loss, first.epochs[0].test_loss) << workers << " workers";
  }
}

}  // namespace
}  // namespace runner
