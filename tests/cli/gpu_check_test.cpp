// scripts/gpu_check.sh run, the GPU check's second half, where no GPU is usable (RUNNER_GPU_LIBRARY
// names a missing file, so on a GPU machine too): every GPU step is skipped with the reason, the
// summary files are still written in their format (and beside them only the details' archive),
// and the exit status is 3.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

std::string gpu_check() {
  return (source_dir() / "scripts" / "gpu_check.sh").string();
}

#ifdef RUNNER_BINARY
TEST(GpuCheck, WithoutAGpuSkipsTheGpuStepsSaysWhyAndWritesTheSummary) {
  TempDir tmp;
  const auto out = tmp / "out";
  auto result = run_command("RUNNER_GPU_LIBRARY=/nonexistent/librunner_cudnn.so " + gpu_check() +
                            " run " + out.string() + " --work " + (tmp / "work").string() +
                            " --skip environment --build " +
                            std::filesystem::path(RUNNER_BINARY).parent_path().string());
  EXPECT_EQ(result.exit_code, 3) << result.output;

  const json summary = json::parse(std::ifstream(out / "summary.json"));
  EXPECT_EQ(summary["status"], "no_gpu");
  EXPECT_EQ(summary["exit_code"], 3);
  EXPECT_TRUE(summary["device"].is_null());
  // The runner's reason (here: the library named is missing, or a runner built without it).
  const std::string reason = summary["no_gpu_reason"];
  EXPECT_FALSE(reason.empty());
  EXPECT_NE(summary["devices"].dump().find("cuda: not available: " + reason), std::string::npos)
      << summary["devices"].dump();
  EXPECT_EQ(summary["tests"]["passed"], 0);
  EXPECT_EQ(summary["tests"]["failed"], 0);
  EXPECT_EQ(summary["tests"]["skipped"], 0);
  EXPECT_TRUE(summary["checks"].empty());
  for (const char* figure : {"lenet", "checkpoint", "resnet8", "nvml", "sweep", "bench"}) {
    EXPECT_TRUE(summary["figures"].contains(figure)) << figure;
  }

  std::set<std::string> skipped;
  for (const auto& step : summary["steps"]) {
    if (step["step"] == "devices") {
      EXPECT_EQ(step["status"], "passed");
      continue;
    }
    EXPECT_EQ(step["status"], "skipped") << step.dump();
    EXPECT_EQ(step["reason"], "no usable GPU: " + reason) << step.dump();
    skipped.insert(step["step"]);
  }
  EXPECT_EQ(skipped, (std::set<std::string>{"tests", "lenet-fp32", "lenet-tf32", "lenet-bf16",
                                            "lenet-fp16", "eval-cpu", "eval-pytorch", "resnet8",
                                            "sweep", "bench", "architectures", "recipe"}));

  // Three files: what the device call brings back is at most 8, two folders down.
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    files.insert(entry.path().filename().string());
  }
  EXPECT_EQ(files, (std::set<std::string>{"summary.json", "summary.md", "details.tar.gz"}));
  EXPECT_TRUE(std::filesystem::exists(tmp / "work" / "logs" / "devices.log"));

  std::ifstream markdown(out / "summary.md");
  const std::string text{std::istreambuf_iterator<char>(markdown), {}};
  EXPECT_NE(text.find("Status: **no_gpu** (exit 3)"), std::string::npos) << text;
  EXPECT_NE(text.find("| tests | skipped | 0 | no usable GPU: "), std::string::npos) << text;
}
#endif

TEST(GpuCheck, BadArgumentsExitWithTwo) {
  EXPECT_EQ(run_command(gpu_check() + " run").exit_code, 2);
  EXPECT_EQ(run_command(gpu_check() + " check").exit_code, 2);
  EXPECT_EQ(run_command(gpu_check() + " run out --no-such-option").exit_code, 2);
  TempDir tmp;
  EXPECT_EQ(run_command(gpu_check() + " run " + (tmp / "out").string() + " --build " +
                        tmp.path().string())
                .exit_code,
            2);
}

}  // namespace
}  // namespace runner::testing
