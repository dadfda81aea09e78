// What a run's report records beside its metrics: the loss curves, the throughputs by name,
// the command line and tags; `runner report RUN` drawing its curves; and the checkpoint read
// back by scripts/load_checkpoint.py.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string tiny_config() {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string();
}

struct TinyRun {
  CommandResult result;
  std::string report_path;
  json report;
};

TinyRun run_tiny(const std::string& arguments) {
  TinyRun run;
  run.result = run_runner(tiny_config() + " " + arguments);
  run.report_path = report_path_in(run.result.output);
  std::ifstream in(run.report_path);
  if (in) run.report = json::parse(in);
  return run;
}

// The tutorial's log lines, "[epoch, step] loss: x", in order.
std::vector<std::pair<int, double>> logged_losses(const std::string& output) {
  std::vector<std::pair<int, double>> out;
  const std::regex line(R"(\[(\d+), +(\d+)\] loss: (\d+\.\d+))");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it)
    out.emplace_back(std::stoi((*it)[1]), std::stod((*it)[3]));
  return out;
}

TEST(RunRecord, CurvesHoldTheLoggedLossesAndEachEpochsTestFigures) {
  TempDir tmp;
  TinyRun run = run_tiny("--output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const json& train = run.report["curves"]["train"];
  auto logged = logged_losses(run.result.output);
  // 64 steps per epoch, a log point every 8, two epochs.
  ASSERT_EQ(train.size(), 16u) << run.report["curves"].dump();
  ASSERT_EQ(logged.size(), 16u);
  for (std::size_t i = 0; i < train.size(); ++i) {
    EXPECT_EQ(train[i]["step"], 8 * (i + 1));
    EXPECT_EQ(train[i]["epoch"], logged[i].first);
    EXPECT_NEAR(train[i]["loss"].get<double>(), logged[i].second, 0.0005);
    EXPECT_EQ(train[i]["lr"], 0.02);
  }
  const json& test = run.report["curves"]["test"];
  ASSERT_EQ(test.size(), 2u);
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(test[e]["epoch"], e + 1);
    EXPECT_EQ(test[e]["step"], 64 * (e + 1));
    EXPECT_EQ(test[e]["loss"], run.report["epochs"][e]["test_loss"]);
    EXPECT_EQ(test[e]["accuracy"], run.report["epochs"][e]["test_accuracy"]);
  }
}

TEST(RunRecord, ThroughputsAreNamedPrintedSideBySideAndTheirGapAccountedFor) {
  TempDir tmp;
  TinyRun run = run_tiny("--output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const json& step = run.report["step_time"];
  const json& whole = run.report["throughput"];
  EXPECT_GT(step["median_step_images_per_second"].get<double>(), 0);
  EXPECT_EQ(step["median_step_images_per_second"], step["images_per_second"]);
  EXPECT_EQ(whole["whole_run_images_per_second"], whole["train_images_per_second"]);
  std::string expected = fmt::format(
      "throughput: {:.0f} images/s (whole run), {:.0f} images/s (median step); its {:.2f} s: ",
      whole["train_images_per_second"].get<double>(), step["images_per_second"].get<double>(),
      whole["timed_seconds"].get<double>());
  EXPECT_NE(run.result.output.find(expected), std::string::npos) << run.result.output;
  // The gap between the two rates is accounted for: the training seconds are the timed steps at
  // the median, what they took beyond it, and the time outside them.
  const double at_median = step["median_seconds"].get<double>() * step["steps"].get<double>();
  const double off = whole["off_median_seconds"].get<double>();  // negative: faster steps
  const double other = whole["other_seconds"].get<double>();
  EXPECT_GE(other, 0);
  EXPECT_NEAR(at_median + off + other, whole["timed_seconds"].get<double>(),
              1e-9 * whole["timed_seconds"].get<double>() + 1e-9);
}

// The whole run's wall time is split: start-up, the steps, evaluation, checkpoints and the rest.
TEST(RunRecord, TheRunsWallTimeIsSplitIntoItsParts) {
  TempDir tmp;
  TinyRun run = run_tiny("--set checkpoint.path=c.safetensors --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const json& wall = run.report["wall_time"];
  ASSERT_TRUE(wall.is_object()) << run.report.dump();
  EXPECT_EQ(wall["training_seconds"], run.report["throughput"]["train_seconds"]);
  EXPECT_GT(wall["startup_seconds"].get<double>(), 0);
  EXPECT_GT(wall["evaluation_seconds"].get<double>(), 0);  // two epochs' test set, then the kept
  EXPECT_GT(wall["checkpoint_seconds"].get<double>(), 0);
  EXPECT_GE(wall["other_seconds"].get<double>(), 0);
  double parts = 0;
  for (const char* part : {"startup_seconds", "training_seconds", "evaluation_seconds",
                           "checkpoint_seconds", "progress_seconds", "other_seconds"}) {
    parts += wall[part].get<double>();
  }
  EXPECT_NEAR(parts, wall["total_seconds"].get<double>(), 1e-6);
  // Started before the config was read, ended before the report: within the process's life.
  EXPECT_LT(wall["total_seconds"].get<double>(), 120);
}

TEST(RunRecord, ReportKeepsTheCommandLineAndTheTagsOfConfigAndOptions) {
  TempDir tmp;
  std::ifstream base(tiny_config());
  std::string config((std::istreambuf_iterator<char>(base)), std::istreambuf_iterator<char>());
  auto tagged =
      tmp.write("tagged.yaml", config + "tags: {team: vision, purpose: draft, round: 3}\n");
  const std::string output = (tmp / "out").string();
  CommandResult result = run_runner("run " + tagged.string() +
                                    " --quiet --set training.epochs=1 --tag purpose=baseline "
                                    "--tag note=a=b --output " +
                                    output);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(report_path_in(result.output));
  json report = json::parse(in);
  EXPECT_EQ(report["tags"],
            json({{"team", "vision"}, {"purpose", "baseline"}, {"round", 3}, {"note", "a=b"}}));
  EXPECT_EQ(report["argv"],
            json({RUNNER_BINARY, "run", tagged.string(), "--quiet", "--set", "training.epochs=1",
                  "--tag", "purpose=baseline", "--tag", "note=a=b", "--output", output}));
  EXPECT_EQ(report["config"]["tags"],
            json({{"team", "vision"}, {"purpose", "draft"}, {"round", 3}}));
}

TEST(RunRecord, AMalformedTagIsAUserErrorBeforeTheRun) {
  TempDir tmp;
  CommandResult result =
      run_runner(tiny_config() + " --tag novalue --output " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--tag: found 'novalue', expected key=value"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("report: "), std::string::npos) << result.output;
}

TEST(RunRecord, ABadTagKeyInTheConfigNamesItsLine) {
  TempDir tmp;
  std::ifstream base(tiny_config());
  std::string config((std::istreambuf_iterator<char>(base)), std::istreambuf_iterator<char>());
  auto bad = tmp.write("bad.yaml", config + "tags:\n  purpose: x\n  \"a b\": 1\n");
  CommandResult result = run_runner("validate " + bad.string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(
      result.output.find(bad.string() + ":31:10: tags.a b: found the key 'a b', expected a key "
                                        "of 1 to 64 letters, digits, '_', '.' or '-'"),
      std::string::npos)
      << result.output;
}

TEST(RunRecord, ReportOfARunFolderSummarisesItAndDrawsItsCurves) {
  TempDir tmp;
  TinyRun run = run_tiny("--quiet --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  auto folder = std::filesystem::path(run.report_path).parent_path();
  CommandResult report = run_runner("report " + folder.string());
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find("tiny_synthetic " + run.report["run_id"].get<std::string>() +
                               ": train, completed; test accuracy "),
            std::string::npos)
      << report.output;
  EXPECT_NE(report.output.find("2 epoch(s), 16 loss point(s)"), std::string::npos) << report.output;
  if (run_command("/usr/bin/python3 -c 'import matplotlib'").exit_code != 0) {
    EXPECT_NE(report.output.find("plots skipped"), std::string::npos) << report.output;
    GTEST_SKIP() << "no matplotlib: the plots themselves are not checked";
  }
  for (const char* name : {"loss_steps.png", "accuracy_epochs.png", "loss_steps.svg"}) {
    EXPECT_GT(std::filesystem::file_size(folder / "plots" / name), 1000u) << name;
  }
  EXPECT_NE(report.output.find("plots: " + (folder / "plots").string()), std::string::npos);
}

TEST(RunRecord, ReportSaysWhyPlotsAreSkippedWithoutPython) {
  TempDir tmp;
  TinyRun run = run_tiny("--quiet --set training.epochs=1 --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  CommandResult report = run_command("RUNNER_PYTHON=/nonexistent/python3 " +
                                     std::string(RUNNER_BINARY) + " report " + run.report_path);
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NE(report.output.find("plots skipped: /nonexistent/python3 not found"), std::string::npos)
      << report.output;
}

// A plot script that fails is an error line and a non-zero exit, not a success (issue 24).
TEST(RunRecord, ReportFailsWhenThePlotScriptFails) {
  TempDir tmp;
  TinyRun run = run_tiny("--quiet --set training.epochs=1 --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  // A Python that has matplotlib but whose scripts fail.
  auto python =
      tmp.write("python3", "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\necho boom >&2\nexit 1\n");
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  CommandResult report = run_command("RUNNER_PYTHON=" + python.string() + " " +
                                     std::string(RUNNER_BINARY) + " report " + run.report_path);
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("error: the plots were not drawn: scripts/plot_run.py failed"),
            std::string::npos)
      << report.output;
  EXPECT_EQ(report.output.find("plots: " + tmp.path().string()), std::string::npos)
      << report.output;
}

// A folder the user cannot write: one error line and exit 2 before Python starts (issue 24: a
// traceback, then exit 0). Root writes anywhere, so as root the command runs as nobody.
TEST(RunRecord, ReportOnAReadOnlyFolderSaysSoInOneLine) {
  TempDir tmp;
  TinyRun run = run_tiny("--quiet --set training.epochs=1 --output " + tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=nobody --regid=nogroup "
                                                 "--clear-groups "
                                               : "";
  ASSERT_EQ(run_command("chmod -R a-w,a+rX " + tmp.path().string()).exit_code, 0);
  const auto folder = std::filesystem::path(run.report_path).parent_path();
  CommandResult report = run_command(as_user + RUNNER_BINARY + " report " + folder.string());
  run_command("chmod -R u+w " + tmp.path().string());  // so that TempDir can remove it
  EXPECT_EQ(report.exit_code, 2) << report.output;
  EXPECT_NE(report.output.find("error: " + folder.string() +
                               ": cannot write the plots here (Permission denied)"),
            std::string::npos)
      << report.output;
  EXPECT_EQ(report.output.find("Traceback"), std::string::npos) << report.output;
}

// scripts/load_checkpoint.py: the README's loader where the safetensors package is missing.
TEST(RunRecord, LoadCheckpointScriptReadsTheRunnersCheckpoint) {
  if (run_command("/usr/bin/python3 -c 'import numpy, torch'").exit_code != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 with numpy and torch";
  }
  TempDir tmp;
  TinyRun run =
      run_tiny("--quiet --set training.epochs=1 --set checkpoint.path=n.safetensors --output " +
               tmp.path().string());
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  const std::string checkpoint = run.report["checkpoint"]["path"].get<std::string>();
  const std::string script = (source_dir() / "scripts" / "load_checkpoint.py").string();
  CommandResult listing = run_command("/usr/bin/python3 " + script + " " + checkpoint);
  ASSERT_EQ(listing.exit_code, 0) << listing.output;
  EXPECT_NE(listing.output.find("conv1.weight float32 [4, 3, 3, 3]\n"), std::string::npos)
      << listing.output;
  EXPECT_NE(listing.output.find("optimizer.step int64 [1]\n"), std::string::npos);
  EXPECT_NE(listing.output.find("metadata epochs_done: 1\n"), std::string::npos);
  // As the README uses it: a state_dict without the optimizer, torch tensors of the right values.
  auto use =
      tmp.write("use.py",
                "import sys\nsys.path.insert(0, sys.argv[1])\n"
                "from load_checkpoint import load_model_state, load_file\n"
                "s = load_model_state(sys.argv[2]); t = load_file(sys.argv[2])\n"
                "print(len(s), sorted(s)[0], s['fc2.bias'].dtype, "
                "int(t['optimizer.step'][0]), any(k.startswith('optimizer.') for k in s))\n");
  CommandResult used = run_command("/usr/bin/python3 " + use.string() + " " +
                                   (source_dir() / "scripts").string() + " " + checkpoint);
  EXPECT_EQ(used.output, "8 conv1.bias torch.float32 64 False\n");
}

}  // namespace
}  // namespace runner::testing
