// End-to-end runs of the runner binary: determinism, reports that validate, checkpoints that
// reload, resume that continues exactly, and real Fashion-MNIST data that is learned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "runner/report/report.h"
#include "runner/train/safetensors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string tiny_config() {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string();
}

struct RunOutput {
  CommandResult result;
  nlohmann::json report;
};

// Runs the runner and reads the report named by its last line, `report: <path>`.
RunOutput run_and_read(const std::string& arguments) {
  RunOutput run;
  run.result = run_runner(arguments);
  auto at = run.result.output.rfind("report: ");
  if (at == std::string::npos) return run;
  std::string path = run.result.output.substr(at + 8);
  path = path.substr(0, path.find('\n'));
  std::ifstream in(path);
  if (in) run.report = nlohmann::json::parse(in);
  return run;
}

TEST(Run, TrainsPrintsTheTutorialLogLineAndEndsWithTheReportPath) {
  TempDir tmp;
  RunOutput run = run_and_read(tiny_config() + " --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_NE(run.result.output.find("[1,     8] loss: "), std::string::npos) << run.result.output;
  EXPECT_NE(run.result.output.find("Accuracy for class: class0"), std::string::npos);
  std::string tail =
      run.result.output.substr(run.result.output.rfind('\n', run.result.output.size() - 2) + 1);
  EXPECT_EQ(tail.rfind("report: ", 0), 0u) << "last line: " << tail;
  ASSERT_TRUE(run.report.is_object());
  EXPECT_EQ(run.report["status"], "completed");
  EXPECT_GT(run.report["metrics"]["test_accuracy"].get<double>(),
            0.5);  // 10 classes: chance is 0.1
}

// Runs compared to the last bit fix their threads: by default a run fits them to the cores the
// machine gives it (a busy ctest -j2 gives fewer), and the sums' order, so the last bits, follow
// the thread count. `reproduce` replays a fitted run's changes (tests/sweep/reproduce_test.cpp).
const std::string kPinnedThreads = " --set training.threads=2";

TEST(Run, SameConfigTwiceGivesIdenticalLossesAndAccuracy) {
  TempDir tmp;
  const std::string run = tiny_config() + kPinnedThreads + " --quiet --output ";
  RunOutput first = run_and_read(run + tmp.path().string());
  RunOutput second = run_and_read(run + tmp.path().string());
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  ASSERT_EQ(second.result.exit_code, 0) << second.result.output;
  ASSERT_EQ(first.report["epochs"].size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    for (const char* key : {"train_loss", "test_loss", "test_accuracy"}) {
      EXPECT_EQ(first.report["epochs"][e][key].get<double>(),
                second.report["epochs"][e][key].get<double>())
          << key << " of epoch " << e + 1;
    }
  }
  EXPECT_EQ(first.report["metrics"], second.report["metrics"]);
  EXPECT_NE(first.report["run_id"], second.report["run_id"]);
}

// At a learning rate of 50 the loss climbs to 1e6 and beyond long before a NaN: the run stops as
// diverged at the divergence threshold, which the report records; a higher threshold lets it go.
TEST(Run, ALossPastTheDivergenceThresholdEndsTheRunAsDiverged) {
  TempDir tmp;
  RunOutput run = run_and_read(tiny_config() + " --quiet --set training.optimizer.lr=50 --output " +
                               (tmp / "default").string());
  EXPECT_EQ(run.result.exit_code, 1) << run.result.output;
  ASSERT_TRUE(run.report.is_object()) << run.result.output;
  EXPECT_EQ(run.report["status"], "diverged");
  EXPECT_EQ(run.report["stop_reason"], "diverged");
  EXPECT_NEAR(run.report["divergence_threshold"].get<double>(), 1000 * std::log(10.0), 1e-9);
  EXPECT_NE(run.report["error"].get<std::string>().find("above training.divergence_threshold"),
            std::string::npos);
  EXPECT_FALSE(run.report["config"]["training"].contains("divergence_threshold"))
      << "the default stays out of the resolved config (and its hash)";

  RunOutput lenient = run_and_read(tiny_config() +
                                   " --quiet --set training.optimizer.lr=50 --set "
                                   "training.divergence_threshold=1e30 --output " +
                                   (tmp / "lenient").string());
  ASSERT_TRUE(lenient.report.is_object()) << lenient.result.output;
  EXPECT_EQ(lenient.report["config"]["training"]["divergence_threshold"], 1e30);
  EXPECT_EQ(lenient.report["divergence_threshold"], 1e30);
  EXPECT_NE(lenient.report["stop_reason"], "diverged") << lenient.result.output;
}

TEST(Run, ReportValidatesAgainstItsSchemaAndRecordsTheEnvironment) {
  TempDir tmp;
  RunOutput run = run_and_read(tiny_config() + " --quiet --set training.epochs=1 --output " +
                               tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  auto violations = schema_violations(load_schema("report.schema.json"), run.report);
  for (const auto& v : violations) ADD_FAILURE() << v.description;
  EXPECT_EQ(run.report["config"]["training"]["epochs"],
            1);  // the override is in the resolved config
  EXPECT_EQ(run.report["environment"]["threads"].get<int>() > 0, true);
  EXPECT_FALSE(run.report["environment"]["onednn_version"].get<std::string>().empty());
  EXPECT_FALSE(run.report.contains("gpu")) << "a CPU run has no GPU block";
  // A GPU run's block, as a cuDNN program and NVML fill it, validates; a percentage over 100
  // does not.
  DeviceUtilization sampled{true, 12, 55.0, 90.0, 3e9, 1980.0, 300.0, 410.0};
  // The GPU block as a report writes it.
  auto gpu_block = [](const ProgramFacts& facts, const DeviceUtilization* utilisation) {
    RunRecord record;
    record.gpu = gpu_record(facts, utilisation);
    return run_record_json(record).value("gpu", nlohmann::json());
  };
  run.report["gpu"] = gpu_block({{"conv1 forward: FFT"}, 1 << 20, true}, &sampled);
  EXPECT_TRUE(schema_violations(load_schema("report.schema.json"), run.report).empty());
  EXPECT_EQ(run.report["gpu"]["utilisation"]["samples"], 12);
  EXPECT_EQ(run.report["gpu"]["training_set_on_device"], true);
  // fp16's loss scaling facts validate; a CPU program's (loss_scale 0) leave no block.
  ProgramFacts fp16{{"conv1 forward: FFT"}, 1 << 20, true};
  fp16.loss_scale = 32768;
  fp16.skipped_steps = 3;
  run.report["gpu"] = gpu_block(fp16, &sampled);
  EXPECT_TRUE(schema_violations(load_schema("report.schema.json"), run.report).empty());
  EXPECT_EQ(run.report["gpu"]["loss_scaling"]["skipped_steps"], 3);
  EXPECT_EQ(run.report["gpu"]["loss_scaling"]["final_scale"], 32768.0);
  EXPECT_FALSE(gpu_block({{}, 0, false}, nullptr).contains("loss_scaling"));
  run.report["gpu"]["utilisation"]["peak_gpu_percent"] = 150;
  EXPECT_FALSE(schema_violations(load_schema("report.schema.json"), run.report).empty());
  run.report.erase("gpu");
  // The schema rejects what it should: a report without its status.
  run.report.erase("status");
  EXPECT_FALSE(schema_violations(load_schema("report.schema.json"), run.report).empty());
}

// training.log_every: auto (the default) logs about 20 running losses per epoch whatever its
// length, at least one (issue 39: 2,000 steps left short epochs with no loss curve at all).
TEST(Run, LogEveryAutoGivesAboutTwentyLossPointsPerEpoch) {
  TempDir tmp;
  const std::string out = " --quiet --output " + tmp.path().string();
  // 1,024 images at batch 16: 64 steps per epoch, a line every 3 steps, 21 per epoch.
  RunOutput run = run_and_read(tiny_config() + " --set '~training.log_every'" + out);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(run.report["config"]["training"]["log_every"], "auto");
  EXPECT_EQ(run.report["curves"]["train"].size(), 2u * 21u) << run.report["curves"].dump();
  // Epochs shorter than 20 steps still log each step's loss: never none.
  RunOutput short_epochs = run_and_read(
      tiny_config() + " --set '~training.log_every' --set training.batch_size=512" + out);
  ASSERT_EQ(short_epochs.result.exit_code, 0) << short_epochs.result.output;
  EXPECT_EQ(short_epochs.report["curves"]["train"].size(), 2u * 2u);
}

TEST(Run, CheckpointReloadsAndEvalReproducesTheAccuracy) {
  TempDir tmp;
  // Threads pinned: fitted to a busy machine, training and evaluation could sum in other orders
  // and a near tie could flip a prediction.
  std::string out = " --set training.threads=2 --output " + tmp.path().string();
  RunOutput run =
      run_and_read(tiny_config() + " --quiet --set checkpoint.path=net.safetensors" + out);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  ASSERT_TRUE(run.report.contains("checkpoint")) << run.report.dump(2);
  EXPECT_TRUE(run.report["checkpoint"]["reload_matches"].get<bool>());
  std::string checkpoint = run.report["checkpoint"]["path"];
  ASSERT_TRUE(std::filesystem::exists(checkpoint));
  RunOutput eval =
      run_and_read("eval --quiet --checkpoint " + checkpoint + " " + tiny_config() + out);
  ASSERT_EQ(eval.result.exit_code, 0) << eval.result.output;
  EXPECT_EQ(eval.report["mode"], "eval");
  EXPECT_EQ(eval.report["metrics"]["test_accuracy"], run.report["metrics"]["test_accuracy"]);
  // The run folder, or its checkpoint with the report beside it, brings its own config.
  const std::filesystem::path run_dir = std::filesystem::path(checkpoint).parent_path();
  for (const std::string& model : {run_dir.string(), checkpoint}) {
    RunOutput again = run_and_read("eval --quiet " + model + out);
    ASSERT_EQ(again.result.exit_code, 0) << again.result.output;
    EXPECT_EQ(again.report["metrics"]["test_accuracy"], run.report["metrics"]["test_accuracy"]);
    EXPECT_EQ(again.report["config_sha256"], run.report["config_sha256"]);
    EXPECT_EQ(again.report["config_file"], run.report["config_file"]);
  }
  // A config alone has no weights: said, naming it.
  RunOutput bare = run_and_read("eval --quiet " + tiny_config() + out);
  EXPECT_EQ(bare.result.exit_code, 2) << bare.result.output;
  EXPECT_NE(bare.result.output.find("a config needs --checkpoint FILE"), std::string::npos)
      << bare.result.output;
}

// Resumes a run of `config` (with extra options) after its first epoch and compares the second
// epoch with an uninterrupted run's.
// One epoch of `config`, checkpointed to n.safetensors, in `tmp`.
RunOutput one_epoch_with_checkpoint(const std::string& config, const TempDir& tmp) {
  return run_and_read(config +
                      " --quiet --set training.epochs=1 --set checkpoint.path=n.safetensors "
                      "--output " +
                      tmp.path().string());
}

void expect_resume_continues_exactly(const std::string& config) {
  TempDir tmp;
  std::string out = kPinnedThreads + " --quiet --output " + tmp.path().string();
  RunOutput straight = run_and_read(config + out);
  RunOutput first =
      run_and_read(config + " --set training.epochs=1 --set checkpoint.path=e1.safetensors" + out);
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  RunOutput resumed = run_and_read(config + " --resume " +
                                   first.report["checkpoint"]["path"].get<std::string>() + out);
  ASSERT_EQ(resumed.result.exit_code, 0) << resumed.result.output;
  ASSERT_EQ(resumed.report["epochs"].size(), 1u);
  EXPECT_EQ(resumed.report["epochs"][0]["epoch"], 2);
  EXPECT_EQ(resumed.report["epochs"][0]["train_loss"], straight.report["epochs"][1]["train_loss"]);
  EXPECT_EQ(resumed.report["metrics"], straight.report["metrics"]);
}

// Augmented with crops and flips that depend on the epoch.
const std::string kAugment =
    " --set 'dataset.augment=[{random_crop: {padding: 2}}, {horizontal_flip: {p: 0.5}}]'";

TEST(Run, ResumingFromACheckpointContinuesExactly) {
  expect_resume_continues_exactly(tiny_config());
}

TEST(Run, ResumingAnAugmentedRunContinuesExactly) {
  expect_resume_continues_exactly(tiny_config() + kAugment);
}

// training.ema: the average continues from the file saved beside the checkpoint, so a resumed
// run's average (and its figures in metrics) is the uninterrupted run's.
TEST(Run, ResumingARunWithAWeightAverageContinuesItExactly) {
  expect_resume_continues_exactly(tiny_config() + " --set 'training.ema={decay: 0.999}'");
}

// The average is evaluated after every epoch beside the weights, reported as val_ema_* and
// test_ema_* figures, and kept as NAME.ema.safetensors, which eval reads like any checkpoint.
TEST(Run, AWeightAverageIsEvaluatedReportedAndKept) {
  TempDir tmp;
  const std::string out = kPinnedThreads + " --quiet --output " + tmp.path().string();
  RunOutput run = run_and_read(tiny_config() +
                               " --set 'training.ema={decay: 0.8, every: 2}'"
                               " --set dataset.validation_split=0.25"
                               " --set checkpoint.path=net.safetensors" +
                               out);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_TRUE(schema_violations(load_schema("report.schema.json"), run.report).empty());
  for (const nlohmann::json& epoch : run.report["epochs"]) {
    for (const char* key :
         {"val_ema_loss", "val_ema_accuracy", "test_ema_loss", "test_ema_accuracy"}) {
      EXPECT_TRUE(epoch.contains(key)) << key << " in " << epoch.dump();
    }
  }
  const nlohmann::json& metrics = run.report["metrics"];
  EXPECT_EQ(metrics["test_ema_accuracy"], run.report["epochs"].back()["test_ema_accuracy"]);
  const std::filesystem::path kept = run.report["checkpoint"]["path"].get<std::string>();
  const std::filesystem::path average = kept.parent_path() / "net.ema.safetensors";
  ASSERT_TRUE(std::filesystem::exists(average));
  RunOutput eval = run_and_read("eval --checkpoint " + average.string() + " " + tiny_config() +
                                " --set dataset.validation_split=0.25" + out);
  ASSERT_EQ(eval.result.exit_code, 0) << eval.result.output;
  EXPECT_EQ(eval.report["metrics"]["test_accuracy"], metrics["test_ema_accuracy"]);
  EXPECT_NE(run.report["metrics"]["test_loss"], metrics["test_ema_loss"]) << "an average, not the "
                                                                             "weights";
}

// checkpoint.monitor and early stopping watching the average (val_ema_*): the best epoch is the
// one whose average scored best, its average is the kept model (the report's checkpoint.path,
// which predict and eval read) and scores again what it scored; without training.ema refused.
TEST(Run, TheWeightAverageCanBeMonitoredAndIsThenTheKeptModel) {
  TempDir tmp;
  const std::string out = kPinnedThreads + " --quiet --output " + tmp.path().string();
  const std::string watched =
      " --set dataset.validation_split=0.25"
      " --set checkpoint.path=net.safetensors"
      " --set checkpoint.monitor=val_ema_accuracy"
      " --set 'training.early_stopping={monitor: val_ema_loss, patience: 9}'"
      " --set training.epochs=4";
  RunOutput run =
      run_and_read(tiny_config() + " --set 'training.ema={decay: 0.5}'" + watched + out);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_TRUE(schema_violations(load_schema("report.schema.json"), run.report).empty());
  int best = 0;
  double best_value = -1;
  for (const nlohmann::json& epoch : run.report["epochs"]) {
    if (epoch["val_ema_accuracy"].get<double>() > best_value) {
      best_value = epoch["val_ema_accuracy"];
      best = epoch["epoch"];
    }
  }
  const nlohmann::json& kept = run.report["checkpoint"];
  EXPECT_EQ(kept["best_epoch"], best);
  EXPECT_EQ(kept["best_value"], best_value);
  EXPECT_TRUE(kept["reload_matches"].get<bool>()) << run.result.output;
  const std::filesystem::path model = kept["path"].get<std::string>();
  EXPECT_EQ(model.filename(), "net.ema.safetensors");
  EXPECT_EQ(run.report["metrics"]["val_accuracy"], best_value);  // the kept model is the average
  RunOutput eval = run_and_read("eval " + model.parent_path().string() + out);
  ASSERT_EQ(eval.result.exit_code, 0) << eval.result.output;
  EXPECT_EQ(eval.report["metrics"]["test_accuracy"], run.report["metrics"]["test_accuracy"]);

  const CommandResult refused = run_runner(tiny_config() + watched + out);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("training.ema"), std::string::npos) << refused.output;
}

// Batch norm (short last batches), dropout and a residual join.
std::string tiny_resnet_config() {
  return (source_dir() / "configs" / "tiny_resnet_synthetic.yaml").string();
}

// The numbers of one epoch entry that must repeat exactly (not its seconds or images/s).
nlohmann::json epoch_numbers(const nlohmann::json& epoch) {
  nlohmann::json out;
  for (const char* key : {"epoch", "train_loss", "test_loss", "test_accuracy", "learning_rate"}) {
    out[key] = epoch.at(key);
  }
  return out;
}

// The bits of a float, so that -0 and 0 (or two NaNs) are not taken for each other.
std::vector<std::uint32_t> float_bits(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  // An integer tensor has no float values (memcpy from null is undefined even for 0 bytes).
  if (!values.empty()) std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

// Every tensor of two checkpoints, name by name, bit for bit.
void expect_same_tensors(const std::string& a_path, const std::string& b_path) {
  const Checkpoint a = load_safetensors(a_path), b = load_safetensors(b_path);
  std::map<std::string, const HostTensor*> b_named;
  for (const HostTensor& t : b.tensors) b_named[t.name] = &t;
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const HostTensor& t : a.tensors) {
    ASSERT_TRUE(b_named.count(t.name)) << t.name;
    const HostTensor& u = *b_named[t.name];
    EXPECT_EQ(t.dims, u.dims) << t.name;
    EXPECT_EQ(t.dtype, u.dtype) << t.name;
    EXPECT_EQ(t.integers, u.integers) << t.name;
    EXPECT_EQ(float_bits(t.values), float_bits(u.values)) << t.name;
  }
  EXPECT_EQ(a.metadata.at("epochs_done"), b.metadata.at("epochs_done"));
  EXPECT_EQ(a.metadata.at("config_sha256"), b.metadata.at("config_sha256"));
}

// A run with batch norm (and a short last batch), dropout, a residual join, the recipe's warm-up
// and cosine schedule, label smoothing and augmentation, stopped by a real SIGINT after some
// epoch and resumed from the checkpoint that epoch left: the epochs before and after the stop,
// the loss and learning rate at every step, the metrics and every tensor of the final checkpoint
// (parameters, batch norm's running statistics and num_batches_tracked, the optimizer's
// momentum and step) equal the uninterrupted run's, bit for bit.
TEST(Run, AnInterruptedBatchNormDropoutCosineRunResumesBitForBit) {
  TempDir tmp;
  constexpr int kEpochs = 60;  // enough that the stop lands well before the end
  // 72 images in batches of 16: 5 steps an epoch, the last of 8 images. One thread: on a busy
  // machine OpenMP threads waiting for a descheduled one make such tiny steps many times slower.
  const std::string settings =
      " --quiet --set dataset.synthetic.train_count=72 --set dataset.synthetic.test_count=32"
      " --set training.log_every=1 --set training.threads=1 --set checkpoint.path=c.safetensors"
      " --set training.epochs=" +
      std::to_string(kEpochs);
  const std::string run = std::string(RUNNER_BINARY) + " " + tiny_resnet_config() + settings;
  auto stopped =
      run_command("(" + run + " --output " + (tmp / "a").string() + " & pid=$!; while ! ls " +
                  (tmp / "a").string() +
                  "/tiny_resnet_synthetic/*/c.safetensors >/dev/null 2>&1; do kill -0 $pid "
                  "|| break; sleep 0.01; done; kill -INT $pid; wait $pid; echo exit=$?)");
  ASSERT_NE(stopped.output.find("exit=130"), std::string::npos)
      << "the run was to be interrupted before its last epoch\n"
      << stopped.output;
  std::ifstream in(report_path_in(stopped.output));
  ASSERT_TRUE(in) << stopped.output;
  const nlohmann::json interrupted = nlohmann::json::parse(in);
  const int done = interrupted["checkpoint"]["epochs_done"];
  ASSERT_GE(done, 1);
  ASSERT_LT(done, kEpochs);
  const std::string checkpoint = interrupted["checkpoint"]["path"];

  RunOutput straight =
      run_and_read(tiny_resnet_config() + settings + " --output " + (tmp / "b").string());
  RunOutput resumed = run_and_read(tiny_resnet_config() + settings + " --resume " + checkpoint +
                                   " --output " + (tmp / "c").string());
  ASSERT_EQ(straight.result.exit_code, 0) << straight.result.output;
  ASSERT_EQ(resumed.result.exit_code, 0) << resumed.result.output;

  // The epochs the interrupted run completed, then the ones the resumed run trained.
  const nlohmann::json& all = straight.report["epochs"];
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kEpochs));
  for (int e = 0; e < done; ++e) {
    EXPECT_EQ(epoch_numbers(interrupted["epochs"][e]), epoch_numbers(all[e]));
  }
  const nlohmann::json& rest = resumed.report["epochs"];
  ASSERT_EQ(rest.size(), static_cast<std::size_t>(kEpochs - done));
  for (int e = done; e < kEpochs; ++e) {
    EXPECT_EQ(epoch_numbers(rest[e - done]), epoch_numbers(all[e]));
  }
  // The warm-up spans the first epoch; the rate then falls with the cosine.
  EXPECT_EQ(all[0]["epoch"], 1);
  EXPECT_GT(all[1]["learning_rate"].get<double>(), all[kEpochs - 1]["learning_rate"]);
  // Every step's logged loss and rate (log_every 1) after the stop.
  const nlohmann::json& steps = straight.report["curves"]["train"];
  const nlohmann::json& resumed_steps = resumed.report["curves"]["train"];
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(kEpochs * 5));
  ASSERT_EQ(resumed_steps.size(), static_cast<std::size_t>((kEpochs - done) * 5));
  for (std::size_t i = 0; i < resumed_steps.size(); ++i) {
    EXPECT_EQ(resumed_steps[i], steps[done * 5 + i]) << "step " << done * 5 + i;
  }
  EXPECT_EQ(resumed.report["metrics"], straight.report["metrics"]);

  // The final checkpoints hold every tensor of the run, buffers and optimizer state included.
  const std::string final_straight = straight.report["checkpoint"]["path"];
  const std::string final_resumed = resumed.report["checkpoint"]["path"];
  const Checkpoint file = load_safetensors(final_straight);
  std::set<std::string> names;
  for (const HostTensor& t : file.tensors) names.insert(t.name);
  for (const char* name :
       {"stem.weight", "bn0.weight", "bn0.bias", "bn0.running_mean", "bn0.running_var",
        "bn0.num_batches_tracked", "fc.weight", "fc.bias", "optimizer.stem.weight.momentum_buffer",
        "optimizer.bn0.weight.momentum_buffer", "optimizer.step"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  expect_same_tensors(final_straight, final_resumed);
}

// The checkpoint holds PyTorch's state_dict (batch norm's buffers included, the step counter as
// int64) and loads into the same network built by PyTorch (scripts/pytorch_peer.py, which
// reads the file as plain safetensors), which then scores the test set as the runner did.
TEST(Run, BatchNormCheckpointReloadsInPyTorchWithTheSameAccuracy) {
  if (run_command("/usr/bin/python3 -c 'import torch, yaml, numpy'").exit_code != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch, yaml and numpy";
  }
  TempDir tmp;
  RunOutput run = one_epoch_with_checkpoint(tiny_resnet_config(), tmp);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const std::string checkpoint = run.report["checkpoint"]["path"].get<std::string>();
  auto header = tmp.write("header.py", R"(import json, struct, sys
data = open(sys.argv[1], 'rb').read()
header = json.loads(data[8:8 + struct.unpack('<Q', data[:8])[0]])
t = header['bn1.num_batches_tracked']
print(header['bn1.running_var']['dtype'], header['bn1.running_var']['shape'], t['dtype'], t['shape'])
)");
  EXPECT_EQ(run_command("/usr/bin/python3 " + header.string() + " " + checkpoint).output,
            "F32 [8] I64 []\n");
  auto result =
      run_command("/usr/bin/python3 " + (source_dir() / "scripts" / "pytorch_peer.py").string() +
                  " evaluate " + tiny_resnet_config() + " " + checkpoint);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto peer = nlohmann::json::parse(result.output);
  // 3 convolution weights, 3 batch norms of 5 (weight, bias, running mean and variance,
  // num_batches_tracked), the classifier's weight and bias: every one loaded (strict).
  EXPECT_EQ(peer["tensors"], 20);
  // 128 test images; float rounding may flip an argmax between near-equal logits.
  EXPECT_NEAR(peer["test_accuracy"].get<double>(),
              run.report["metrics"]["test_accuracy"].get<double>(), 1.5 / 128);
}

// A warm-up longer than the first epoch and a decay after it: the resumed epoch must start at
// step 64 of the schedule (a schedule restarted at 0 would warm up again and lose the decay).
TEST(Run, ResumingContinuesTheLearningRateSchedule) {
  TempDir tmp;
  const std::string schedule =
      " --set training.schedule.type=step --set training.schedule.step_size=1"
      " --set training.schedule.gamma=0.5 --set training.schedule.warmup.epochs=1.5";
  std::string out = kPinnedThreads + " --quiet --output " + tmp.path().string();
  RunOutput straight = run_and_read(tiny_config() + schedule + out);
  ASSERT_EQ(straight.result.exit_code, 0) << straight.result.output;
  RunOutput first =
      run_and_read(tiny_config() + schedule +
                   " --set training.epochs=1 --set checkpoint.path=e1.safetensors" + out);
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  RunOutput resumed = run_and_read(tiny_config() + schedule + " --resume " +
                                   first.report["checkpoint"]["path"].get<std::string>() + out);
  ASSERT_EQ(resumed.result.exit_code, 0) << resumed.result.output;
  ASSERT_EQ(resumed.report["epochs"].size(), 1u);
  EXPECT_EQ(straight.report["epochs"][1]["learning_rate"], 0.5 * 0.02);  // decayed, warmed up
  EXPECT_EQ(resumed.report["epochs"][0]["learning_rate"],
            straight.report["epochs"][1]["learning_rate"]);
  EXPECT_EQ(resumed.report["epochs"][0]["train_loss"], straight.report["epochs"][1]["train_loss"]);
  EXPECT_EQ(resumed.report["metrics"], straight.report["metrics"]);
  EXPECT_EQ(straight.report["config"]["training"]["schedule"]["type"], "step");
}

TEST(Run, CheckpointIsReadableAsSafetensorsByPython) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  TempDir tmp;
  RunOutput run = one_epoch_with_checkpoint(tiny_config(), tmp);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  // The safetensors layout, read independently: u64 header length, JSON header, F32 data and
  // the step as I64 (1024 images in batches of 16: 64 steps).
  auto script = tmp.write("read.py", R"(import json, struct, sys
data = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', data[:8])[0]
header = json.loads(data[8:8 + n])
w = header['conv1.weight']
begin, end = w['data_offsets']
values = struct.unpack('<%df' % ((end - begin) // 4), data[8 + n + begin:8 + n + end])
assert w['dtype'] == 'F32' and w['shape'] == [4, 3, 3, 3], w
s = header['optimizer.step']
assert s['dtype'] == 'I64' and s['shape'] == [1] and s['data_offsets'][1] - s['data_offsets'][0] == 8, s
step = struct.unpack('<q', data[8 + n + s['data_offsets'][0]:8 + n + s['data_offsets'][1]])[0]
print('ok', len(values), header['__metadata__']['epochs_done'], 'optimizer.conv1.weight.momentum_buffer' in header, step)
)");
  auto result = run_command("/usr/bin/python3 " + script.string() + " " +
                            run.report["checkpoint"]["path"].get<std::string>());
  EXPECT_EQ(result.output, "ok 108 1 True 64\n");
}

// PyTorch's own reader, where the safetensors package is installed (Debian 12 has none).
TEST(Run, CheckpointLoadsInPyTorchsSafetensors) {
  if (run_command("/usr/bin/python3 -c 'import safetensors.torch, torch'").exit_code != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with torch and safetensors";
  }
  TempDir tmp;
  RunOutput run = one_epoch_with_checkpoint(tiny_config(), tmp);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  auto script = tmp.write("read.py", R"(import sys, torch
from safetensors.torch import load_file
t = load_file(sys.argv[1])
print(t['optimizer.step'].dtype, int(t['optimizer.step'][0]), t['conv1.weight'].dtype)
)");
  auto result = run_command("/usr/bin/python3 " + script.string() + " " +
                            run.report["checkpoint"]["path"].get<std::string>());
  EXPECT_EQ(result.output, "torch.int64 64 torch.float32\n");
}

TEST(Run, ClipGradNormRecordsTheMeanNormPerEpoch) {
  TempDir tmp;
  RunOutput clipped = run_and_read(
      tiny_config() + " --quiet --set training.clip_grad_norm=0.5 --output " + tmp.path().string());
  RunOutput plain = run_and_read(tiny_config() + " --quiet --output " + tmp.path().string());
  ASSERT_EQ(clipped.result.exit_code, 0) << clipped.result.output;
  ASSERT_EQ(plain.result.exit_code, 0) << plain.result.output;
  EXPECT_EQ(clipped.report["config"]["training"]["clip_grad_norm"], 0.5);
  ASSERT_EQ(clipped.report["epochs"].size(), 2u);
  for (const auto& epoch : clipped.report["epochs"]) {
    ASSERT_TRUE(epoch.contains("grad_norm_mean")) << epoch.dump();
    EXPECT_GT(epoch["grad_norm_mean"].get<double>(), 0.0);
  }
  EXPECT_FALSE(plain.report["epochs"][0].contains("grad_norm_mean"));
  // Clipping changed the steps.
  EXPECT_NE(clipped.report["epochs"][0]["train_loss"], plain.report["epochs"][0]["train_loss"]);
}

TEST(Run, LearnsRealFashionMnist) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
  }
  TempDir tmp;
  RunOutput run = run_and_read((source_dir() / "configs" / "lenet_fashion_mnist.yaml").string() +
                               " --quiet --set training.epochs=1 --set training.batch_size=16"
                               " --set training.optimizer.lr=0.01 --set dataset.train_limit=12000"
                               " --set dataset.test_limit=2000 --set checkpoint.path= --output " +
                               tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  double accuracy = run.report["metrics"]["test_accuracy"];
  EXPECT_GT(accuracy, 0.70) << "chance is 0.10";
  EXPECT_EQ(run.report["metrics"]["per_class_accuracy"].size(), 10u);
  EXPECT_TRUE(run.report["metrics"]["per_class_accuracy"].contains("Ankle boot"));
}

// Real Fashion-MNIST with the usual crop and flip: the report records the steps, and the run gives
// the same numbers again with another number of loader workers.
// Two epochs of LeNet on 3,000 real Fashion-MNIST images at learning rate `lr`, writing under
// `output`: the augmentation tests' command.
std::string short_fashion_run(const std::string& lr, const TempDir& output) {
  return (source_dir() / "configs" / "lenet_fashion_mnist.yaml").string() +
         " --quiet --set training.epochs=2 --set training.batch_size=32 --set device=cpu"
         " --set training.optimizer.lr=" +
         lr + " --set dataset.train_limit=3000 --set dataset.test_limit=500" +
         " --set checkpoint.path=" + kPinnedThreads + " --output " + output.path().string();
}

TEST(Run, AugmentedFashionMnistRepeatsForAnyWorkers) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
  }
  TempDir tmp;
  const std::string config = short_fashion_run("0.01", tmp);
  const std::string augment =
      " --set 'dataset.augment=[{random_crop: {padding: 4}}, {horizontal_flip: {}}]'";
  RunOutput inline_loader = run_and_read(config + augment + " --set dataset.workers=0");
  RunOutput three_workers = run_and_read(config + augment + " --set dataset.workers=3");
  ASSERT_EQ(inline_loader.result.exit_code, 0) << inline_loader.result.output;
  ASSERT_EQ(three_workers.result.exit_code, 0) << three_workers.result.output;
  const nlohmann::json steps = nlohmann::json::parse(
      R"([{"random_crop": {"size": [28, 28], "padding": 4}}, {"horizontal_flip": {"p": 0.5}}])");
  EXPECT_EQ(inline_loader.report["config"]["dataset"]["augment"], steps);
  ASSERT_EQ(inline_loader.report["epochs"].size(), 2u);
  for (int e = 0; e < 2; ++e) {
    EXPECT_EQ(inline_loader.report["epochs"][e]["train_loss"],
              three_workers.report["epochs"][e]["train_loss"])
        << "epoch " << e + 1;
  }
  EXPECT_EQ(inline_loader.report["metrics"]["test_accuracy"],
            three_workers.report["metrics"]["test_accuracy"]);
  EXPECT_GT(inline_loader.report["metrics"]["test_accuracy"].get<double>(), 0.3)
      << "chance is 0.10";
}

// The recipes' steps that change pixel values run in the loader's workers: the same training
// for any number of them, the steps recorded with their defaults, the rate in the report.
TEST(RunCommand, RecipeAugmentationsTrainAlikeOnAnyWorkersAndReportTheirRate) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
  }
  TempDir tmp;
  const std::string config =
      short_fashion_run("0.02", tmp) +
      " --set 'dataset.augment=[{random_resized_crop: {scale: [0.8, 1]}}, {random_affine: "
      "{degrees: 5, translate: [0.05, 0.05]}}, {trivial_augment_wide: {}}, {random_erasing: "
      "{p: 0.25}}]'";
  RunOutput inline_loader = run_and_read(config + " --set dataset.workers=0");
  RunOutput two_workers = run_and_read(config + " --set dataset.workers=2");
  ASSERT_EQ(inline_loader.result.exit_code, 0) << inline_loader.result.output;
  ASSERT_EQ(two_workers.result.exit_code, 0) << two_workers.result.output;
  const nlohmann::json& steps = inline_loader.report["config"]["dataset"]["augment"];
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[2], nlohmann::json::parse(R"({"trivial_augment_wide": {"num_magnitude_bins": 31,
                                                                         "fill": 0}})"));
  EXPECT_EQ(steps[3]["random_erasing"]["value"], 0);
  EXPECT_EQ(inline_loader.report["epochs"][1]["train_loss"],
            two_workers.report["epochs"][1]["train_loss"]);
  EXPECT_EQ(inline_loader.report["metrics"]["test_accuracy"],
            two_workers.report["metrics"]["test_accuracy"]);
  EXPECT_GT(inline_loader.report["metrics"]["test_accuracy"].get<double>(), 0.3)
      << "chance is 0.10";
  // A rate, not a speed limit: the loader shares a busy CI machine (make bench measures speed).
  EXPECT_GT(two_workers.report["data"]["augment_images_per_second"].get<double>(), 0);
}

}  // namespace
}  // namespace runner::testing
