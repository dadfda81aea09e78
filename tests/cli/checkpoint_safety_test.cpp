// Checkpoints and the work they protect (issue 11): a finished run resumes to an evaluation, a
// checkpoint that cannot be written keeps the report, Ctrl-C leaves the last completed epoch on
// disk and resuming from it equals an uninterrupted run, foreign or forged files are refused,
// and checkpoint paths stay inside the run folder.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/train/safetensors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string tiny_config() {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string();
}

std::string report_path_of(const CommandResult& result) {
  auto at = result.output.rfind("report: ");
  if (at == std::string::npos) return "";
  std::string path = result.output.substr(at + 8);
  return path.substr(0, path.find('\n'));
}

nlohmann::json report_of(const CommandResult& result) {
  std::ifstream in(report_path_of(result));
  return in ? nlohmann::json::parse(in) : nlohmann::json();
}

struct Trained {
  nlohmann::json report;
  std::string checkpoint;
};

Trained train(const TempDir& tmp, const std::string& settings) {
  auto result = run_runner(tiny_config() + " --quiet --set checkpoint.path=c.safetensors " +
                           settings + " --output " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  Trained t{report_of(result), ""};
  if (t.report.contains("checkpoint")) t.checkpoint = t.report["checkpoint"]["path"];
  return t;
}

TEST(CheckpointSafety, ResumingAFinishedRunEvaluatesTheCheckpoint) {
  TempDir tmp;
  // Threads pinned: fitted to a busy machine, the run and the evaluations could sum in other
  // orders and a near tie could flip a prediction.
  const std::string pinned = " --set training.threads=2";
  Trained done = train(tmp, "--set training.epochs=1" + pinned);
  auto result = run_runner(tiny_config() + pinned + " --set training.epochs=1 --resume " +
                           done.checkpoint + " --output " + tmp.path().string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("nothing left to train: the checkpoint has 1 epoch(s) done"),
            std::string::npos)
      << result.output;
  nlohmann::json report = report_of(result);
  EXPECT_EQ(report["status"], "completed");
  EXPECT_EQ(report["metrics"]["test_accuracy"], done.report["metrics"]["test_accuracy"]);
  EXPECT_EQ(report["resumed_from"]["epochs_done"], 1);
  EXPECT_EQ(report["resumed_from"]["sha256"].get<std::string>().size(), 64u);

  // With checkpoint.path set (as the shipped configs have), the new run folder gets the state it
  // evaluated, which reloads to the same accuracy.
  auto again = run_runner(tiny_config() + pinned +
                          " --set training.epochs=1 --set checkpoint.path=c.safetensors --resume " +
                          done.checkpoint + " --output " + tmp.path().string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  nlohmann::json with_path = report_of(again);
  EXPECT_EQ(with_path["metrics"]["test_accuracy"], done.report["metrics"]["test_accuracy"]);
  ASSERT_TRUE(with_path["checkpoint"].is_object()) << with_path;
  EXPECT_NE(with_path["checkpoint"]["path"], done.checkpoint);
  EXPECT_EQ(with_path["checkpoint"]["epochs_done"], 1);
  EXPECT_EQ(with_path["checkpoint"]["reload_matches"], true);
  EXPECT_TRUE(std::filesystem::exists(with_path["checkpoint"]["path"].get<std::string>()));
}

TEST(CheckpointSafety, ForgedMetadataAndForeignTensorsAreRefused) {
  TempDir tmp;
  Trained done = train(tmp, "--set training.epochs=1");
  Checkpoint checkpoint = load_safetensors(done.checkpoint);
  auto forged = [&](const std::string& name, auto&& change) {
    Checkpoint copy = checkpoint;
    change(copy);
    auto path = tmp / name;
    save_safetensors(path, copy);
    return path.string();
  };
  std::string negative =
      forged("neg.safetensors", [](Checkpoint& c) { c.metadata["epochs_done"] = "-2"; });
  std::string words =
      forged("words.safetensors", [](Checkpoint& c) { c.metadata["epochs_done"] = "two"; });
  std::string extra = forged("extra.safetensors", [](Checkpoint& c) {
    c.tensors.push_back({"stray.weight", {1}, {0.f}});
  });
  for (const auto& [file, expected] :
       {std::pair{negative, "metadata epochs_done: found '-2', expected a whole number"},
        std::pair{words, "metadata epochs_done: found 'two'"},
        std::pair{extra, "tensor 'stray.weight' is not one of its parameters"}}) {
    auto result =
        run_runner(tiny_config() + " --resume " + file + " --output " + tmp.path().string());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(file), std::string::npos) << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
  auto eval = run_runner("eval --checkpoint " + extra + " " + tiny_config());
  EXPECT_EQ(eval.exit_code, 2) << eval.output;
}

TEST(CheckpointSafety, ACheckpointThatCannotBeWrittenKeepsTheReport) {
  TempDir tmp;  // /dev/null is not a folder: no one can write below it, root included
  auto result =
      run_runner(tiny_config() +
                 " --quiet --set training.epochs=1 --set checkpoint.path=/dev/null/c.safetensors"
                 " --set checkpoint.allow_outside_run_folder=true --output " +
                 tmp.path().string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("checkpoint not saved"), std::string::npos) << result.output;
  nlohmann::json report = report_of(result);
  ASSERT_TRUE(report.is_object()) << result.output;
  EXPECT_EQ(report["status"], "completed");
  EXPECT_TRUE(report.contains("metrics"));
  EXPECT_TRUE(report["checkpoint"].contains("error"));
}

// Issue 24: an absolute checkpoint.path replaced a FIFO (as root it would replace /dev/null),
// and `reproduce` of such a run wrote to the original's path again.
TEST(CheckpointSafety, AFifoAtTheCheckpointPathIsRefusedBeforeTraining) {
  TempDir tmp;
  const auto fifo = tmp / "c.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto result = run_runner(
      tiny_config() + " --quiet --set training.epochs=1 --set checkpoint.path=" + fifo.string() +
      " --set checkpoint.allow_outside_run_folder=true" + " --output " + (tmp / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("checkpoint.path: " + fifo.string() + " is a FIFO"),
            std::string::npos)
      << result.output;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo)) << "the FIFO was replaced";
  EXPECT_FALSE(std::filesystem::exists(tmp / "out")) << "a refused run made a run folder";
}

TEST(CheckpointSafety, ReproduceKeepsAnAbsoluteCheckpointInsideItsOwnRunFolder) {
  TempDir tmp;
  const auto outside = tmp / "shared" / "c.safetensors";
  auto result = run_runner(
      tiny_config() + " --quiet --set training.epochs=1 --set checkpoint.path=" + outside.string() +
      " --set checkpoint.allow_outside_run_folder=true" + " --output " + (tmp / "a").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto written = std::filesystem::last_write_time(outside);
  auto rerun =
      run_runner("reproduce " + report_path_of(result) + " --output " + (tmp / "b").string());
  EXPECT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("the rerun writes c.safetensors inside its run folder"),
            std::string::npos)
      << rerun.output;
  EXPECT_NE(rerun.output.find("reproduced"), std::string::npos) << rerun.output;
  EXPECT_EQ(std::filesystem::last_write_time(outside), written) << "the original was overwritten";
  const auto rerun_folder = std::filesystem::path(report_path_of(rerun)).parent_path();
  EXPECT_TRUE(std::filesystem::exists(rerun_folder / "c.safetensors")) << rerun.output;
}

// Issue 24: `eval` of a checkpoint holding inf reported `completed` with test_loss null.
TEST(CheckpointSafety, EvaluatingWeightsWithAnInfiniteLossIsADivergedRun) {
  TempDir tmp;
  Trained done = train(tmp, "--set training.epochs=1");
  ASSERT_FALSE(done.checkpoint.empty());
  Checkpoint checkpoint = load_safetensors(done.checkpoint);
  for (HostTensor& tensor : checkpoint.tensors) {
    if (tensor.name == "fc2.bias") std::fill(tensor.values.begin(), tensor.values.end(), INFINITY);
  }
  const auto broken = tmp / "inf.safetensors";
  save_safetensors(broken, checkpoint);
  auto result = run_runner("eval --checkpoint " + broken.string() + " " + tiny_config() +
                           " --output " + (tmp / "eval").string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("run diverged: the loss diverged"), std::string::npos)
      << result.output;
  nlohmann::json report = report_of(result);
  ASSERT_TRUE(report.is_object()) << result.output;
  EXPECT_EQ(report["status"], "diverged");
}

TEST(CheckpointSafety, AnInterruptedRunResumesToTheUninterruptedNumbers) {
  TempDir tmp;
  // Stop the run once its first epoch's checkpoint is on disk, somewhere in a later epoch. The
  // three runs fix their threads (a default run fits them to a busy machine's free cores, and the
  // last bits follow them).
  const std::string pinned = "OMP_NUM_THREADS=2 ";
  std::string run = pinned + std::string(RUNNER_BINARY) + " " + tiny_config() +
                    " --quiet --set training.epochs=100000 --set checkpoint.path=c.safetensors"
                    " --set dataset.synthetic.train_count=2048 --output " +
                    (tmp / "a").string();
  auto result =
      run_command("(" + run + " & pid=$!; while ! ls " + (tmp / "a").string() +
                  "/tiny_synthetic/*/c.safetensors >/dev/null 2>&1; do kill -0 $pid || break;"
                  " sleep 0.05; done;"
                  " sleep 0.1; kill -INT $pid; wait $pid; echo exit=$?)");
  ASSERT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  // Every option of the run, so the resumed config is the same; no --output, as the checkpoint
  // is in the run's folder and the resumed run goes on there (RunHistory). And it is the runner
  // as started (here by its path), not whatever `runner` is on PATH.
  EXPECT_NE(
      result.output.find("continue with: " + std::string(RUNNER_BINARY) + " run " + tiny_config() +
                         " --set training.epochs=100000 --set checkpoint.path=c.safetensors"
                         " --set dataset.synthetic.train_count=2048 --quiet --resume "),
      std::string::npos)
      << "the command that continues it keeps every option\n"
      << result.output;
  nlohmann::json interrupted = report_of(result);
  ASSERT_TRUE(interrupted.is_object()) << result.output;
  const int done = interrupted["checkpoint"]["epochs_done"];
  ASSERT_GE(done, 1);
  const std::string checkpoint = interrupted["checkpoint"]["path"];
  Checkpoint on_disk = load_safetensors(checkpoint);
  EXPECT_EQ(on_disk.metadata["epochs_done"], std::to_string(done));

  std::string settings =
      " --quiet --set dataset.synthetic.train_count=2048 --set training.epochs=" +
      std::to_string(done + 1);
  auto straight = run_command(pinned + RUNNER_BINARY + " " + tiny_config() + settings +
                              " --output " + (tmp / "b").string());
  auto resumed = run_command(pinned + RUNNER_BINARY + " " + tiny_config() + settings +
                             " --resume " + checkpoint + " --output " + (tmp / "c").string());
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  nlohmann::json a = report_of(straight), b = report_of(resumed);
  EXPECT_EQ(b["epochs"].back()["train_loss"], a["epochs"].back()["train_loss"]);
  EXPECT_EQ(b["metrics"], a["metrics"]);
}

TEST(CheckpointSafety, CheckpointPathsStayInsideTheRunFolder) {
  TempDir tmp;
  for (const auto& [path, expected] :
       {std::pair{"../../../x.safetensors", "expected a path inside the run folder (no '..'"},
        std::pair{"report.json", "expected a name the run does not write itself"},
        std::pair{"/tmp/x.safetensors",
                  "an absolute path needs checkpoint.allow_outside_run_folder"},
        std::pair{"sub/..", "expected a file name"}}) {
    auto result = run_runner("validate " + tiny_config() + " --set checkpoint.path=" + path);
    EXPECT_EQ(result.exit_code, 2) << path << ": " << result.output;
    EXPECT_NE(result.output.find("checkpoint.path: found '" + std::string(path) + "'"),
              std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
  auto inside =
      run_runner("validate " + tiny_config() + " --set checkpoint.path=sub/../c.safetensors");
  EXPECT_EQ(inside.exit_code, 0) << inside.output;
}

}  // namespace
}  // namespace runner::testing
