// The GPU backend's library (librunner_cudnn.so) as the runner opens it: a missing or broken
// library makes the GPU "not usable" with a reason naming the file, never a crash, and CPU runs
// go on. RUNNER_GPU_LIBRARY points the runner at a chosen file.
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.h"

namespace runner::testing {
namespace {

CommandResult run_with_library(const std::string& library, const std::string& arguments) {
#ifdef RUNNER_BINARY
  return run_command("RUNNER_GPU_LIBRARY='" + library + "' " + RUNNER_BINARY + " " + arguments);
#else
  return run_command("false");
#endif
}

std::string tiny_run(const TempDir& tmp) {
  return (source_dir() / "configs" / "bench" / "lenet_cifar_synthetic.yaml").string() +
         " --output " + tmp.path().string() +
         " --set dataset.synthetic.train_count=8 --set dataset.synthetic.test_count=4" +
         " --set training.epochs=1";
}

TEST(GpuLibrary, ABrokenLibraryIsAReasonNamingTheFile) {
  TempDir tmp;
  const std::string broken = (tmp / "librunner_cudnn.so").string();
  std::ofstream(broken) << "not a shared library";
  CommandResult devices = run_with_library(broken, "devices");
  EXPECT_EQ(devices.exit_code, 0) << devices.output;
  CommandResult on_gpu = run_with_library(broken, tiny_run(tmp) + " --set device=cuda");
  EXPECT_EQ(on_gpu.exit_code, 2) << on_gpu.output;
  CommandResult on_auto = run_with_library(broken, tiny_run(tmp) + " --set device=auto");
  EXPECT_EQ(on_auto.exit_code, 0) << on_auto.output;
#ifdef RUNNER_WITH_CUDA
  for (const auto* result : {&devices, &on_gpu, &on_auto}) {
    EXPECT_NE(result->output.find("the GPU backend " + broken + " could not be loaded"),
              std::string::npos)
        << result->output;
  }
#else
  EXPECT_NE(devices.output.find("built without the cuDNN GPU backend"), std::string::npos)
      << devices.output;
#endif
}

TEST(GpuLibrary, AMissingChosenLibraryIsNamed) {
  CommandResult devices = run_with_library("/nonexistent/librunner_cudnn.so", "devices");
  EXPECT_EQ(devices.exit_code, 0) << devices.output;
#ifdef RUNNER_WITH_CUDA
  EXPECT_NE(devices.output.find("RUNNER_GPU_LIBRARY is /nonexistent/librunner_cudnn.so, which "
                                "does not exist"),
            std::string::npos)
      << devices.output;
#endif
}

}  // namespace
}  // namespace runner::testing
