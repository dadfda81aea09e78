// What the command line says about itself: the short form in --help, unknown commands with a
// did-you-mean, options that are config fields, options only where they apply, a sweep summary
// given to reproduce, the offline download message, and reproduce on a composed config.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "test_support.h"

namespace runner::testing {
namespace {

std::string config(const std::string& name) {
  return (source_dir() / "configs" / name).string();
}

void expect_contains(const CommandResult& result, const std::string& text) {
  EXPECT_NE(result.output.find(text), std::string::npos) << "expected: " << text << "\noutput:\n"
                                                         << result.output;
}

TEST(CommandLine, HelpSaysThatAConfigAloneIsShortForRun) {
  CommandResult result = run_runner("--help");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "`runner CONFIG [OPTIONS]` is short for `runner run CONFIG [OPTIONS]`");
}

TEST(CommandLine, NoArgumentsShowsTheHelp) {
  CommandResult result = run_runner("");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result, "reproduce");
  expect_contains(result, "is short for `runner run CONFIG [OPTIONS]`");
  expect_contains(result, "error: no command given");
}

TEST(CommandLine, AnUnknownCommandIsNamedWithTheNearestOneAndTheList) {
  CommandResult train = run_runner("train " + config("tiny_synthetic.yaml"));
  EXPECT_EQ(train.exit_code, 2) << train.output;
  expect_contains(train,
                  "error: unknown command 'train' (did you mean 'run'?); the commands are: run, ");
  for (const char* command : {"validate", "describe", "eval", "bench", "sweep", "reproduce"}) {
    expect_contains(train, std::string(", ") + command);
  }
  EXPECT_EQ(train.output.find("not expected"), std::string::npos) << train.output;
  CommandResult typo = run_runner("valdate " + config("tiny_synthetic.yaml"));
  EXPECT_EQ(typo.exit_code, 2) << typo.output;
  expect_contains(typo, "unknown command 'valdate' (did you mean 'validate'?)");
  CommandResult far = run_runner("xyzzy");
  EXPECT_EQ(far.exit_code, 2) << far.output;
  expect_contains(far, "unknown command 'xyzzy'; the commands are: run,");
}

TEST(CommandLine, AConfigFileWithoutACommandStillRuns) {
  TempDir tmp;
  // A plain word that is a file is a config, not a command.
  std::filesystem::copy_file(config("tiny_synthetic.yaml"), tmp / "tiny");
  CommandResult result =
      run_command("cd " + tmp.path().string() + " && " + std::string(RUNNER_BINARY) +
                  " validate tiny && " + std::string(RUNNER_BINARY) + " tiny --help");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  expect_contains(result, "tiny: valid");
}

TEST(CommandLine, AnOptionThatIsAConfigFieldPointsToSet) {
  CommandResult result =
      run_runner("run " + config("tiny_synthetic.yaml") + " --epochs 1 --lr=0.5 --bogus");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result, "error: unexpected arguments: --epochs 1 --lr=0.5 --bogus");
  expect_contains(result,
                  "--epochs is not an option; to change the config's training.epochs, "
                  "write --set training.epochs=1");
  expect_contains(result, "--set training.optimizer.lr=0.5");
  EXPECT_EQ(result.output.find("--bogus is not an option"), std::string::npos) << result.output;
}

TEST(CommandLine, ValidateAndDescribeOfferNoOutputFolder) {
  for (const char* command : {"validate", "describe"}) {
    CommandResult help = run_runner(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_EQ(help.output.find("--output"), std::string::npos) << command << ":\n" << help.output;
    EXPECT_EQ(help.output.find("report path"), std::string::npos) << command << ":\n"
                                                                  << help.output;
    expect_contains(help, "print only warnings and the result");
  }
  CommandResult given = run_runner("validate " + config("tiny_synthetic.yaml") + " --output x");
  EXPECT_EQ(given.exit_code, 2) << given.output;
  expect_contains(given, "--output is not an option of this command: it writes no report");
  CommandResult run_help = run_runner("run --help");
  expect_contains(run_help, "--output");
}

TEST(CommandLine, DescribeGroupsTheLayersOfEachBlockUseAndFlatListsThem) {
  const std::string resnet18 = (source_dir() / "configs" / "resnet18_cifar.yaml").string();
  CommandResult grouped = run_runner("describe " + resnet18);
  ASSERT_EQ(grouped.exit_code, 0) << grouped.output;
  // The group's line: its block, repeat, output and the sums of its layers (two instances of
  // 128-channel basic blocks plus the projection: 525,312 weights and 1,536 batch norm values).
  EXPECT_TRUE(std::regex_search(grouped.output,
                                std::regex("\nlayer2: +basic_block x2 +128x16x16 +526848 ")))
      << grouped.output;
  expect_contains(grouped, "\n  layer2.0.downsample.0 ");
  CommandResult flat = run_runner("describe --flat " + resnet18);
  ASSERT_EQ(flat.exit_code, 0) << flat.output;
  EXPECT_EQ(flat.output.find("layer2:"), std::string::npos) << flat.output;
  expect_contains(flat, "\nlayer2.0.downsample.0 ");
  expect_contains(flat, "total: 11183562 parameters");
}

TEST(CommandLine, ReproduceOnASweepSummarySaysWhatToPass) {
  TempDir tmp;
  nlohmann::json summary = {{"schema_version", 1},
                            {"sweep", "batch"},
                            {"directory", tmp.path().string()},
                            {"points", {{{"id", "bs8"}, {"report", "bs8/report.json"}}}}};
  std::ofstream(tmp / "summary.json") << summary.dump();
  CommandResult result = run_runner("reproduce " + (tmp / "summary.json").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result, "this is the summary of sweep 'batch' (1 runs), not a run's report");
  expect_contains(result, (tmp / "bs8/report.json").string());
}

TEST(CommandLine, AFailedDownloadDoesNotAdviseSettingDownload) {
  TempDir tmp;
  CommandResult result = run_runner(
      config("lenet_cifar.yaml") + " --quiet --set dataset.root=" + (tmp / "cifar").string() +
      " --set dataset.url=http://127.0.0.1:1/x --output " + (tmp / "out").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  expect_contains(result, "dataset.download is set, but the download failed");
  expect_contains(result, "Couldn't connect");  // why, in curl's words
  expect_contains(result, "put the files by hand");
  EXPECT_EQ(result.output.find("set dataset.download"), std::string::npos) << result.output;
}

TEST(CommandLine, ReproduceNeedsNothingButTheReportOfAComposedConfig) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "variants");
  std::filesystem::copy_file(config("tiny_synthetic.yaml"), tmp / "tiny.yaml");
  tmp.write("variants/short.yaml",
            "defaults: [../tiny.yaml]\nname: tiny_short\ntraining:\n  epochs: ${env:RUNNER_"
            "TEST_EPOCHS,1}\n  eval_batch_size: ${training.batch_size}\n");
  CommandResult first =
      run_runner((tmp / "variants/short.yaml").string() +
                 " --quiet --set ~training.optimizer.momentum --output " + (tmp / "out").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::string report = first.output.substr(first.output.rfind("report: ") + 8);
  report = report.substr(0, report.find('\n'));
  nlohmann::json resolved = nlohmann::json::parse(std::ifstream(report))["config"];
  EXPECT_EQ(resolved["name"], "tiny_short");
  EXPECT_EQ(resolved["training"]["epochs"], 1);
  EXPECT_EQ(resolved["training"]["eval_batch_size"], resolved["training"]["batch_size"]);
  EXPECT_EQ(resolved["training"]["optimizer"]["momentum"], 0);  // deleted: the default
  EXPECT_FALSE(resolved.contains("defaults"));
  EXPECT_EQ(resolved.dump().find("${"), std::string::npos) << resolved.dump();
  // The config files are gone: the report alone reruns it.
  std::filesystem::remove_all(tmp / "variants");
  std::filesystem::remove(tmp / "tiny.yaml");
  CommandResult again =
      run_runner("reproduce " + report + " --quiet --output " + (tmp / "again").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  expect_contains(again, "reproduced: every exact metric matches");
}

}  // namespace
}  // namespace runner::testing
