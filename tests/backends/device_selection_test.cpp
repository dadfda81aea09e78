// Device selection (cpu, auto, cuda, cuda:N) with and without a usable GPU, what the GPU probe
// reports, and out-of-memory on the GPU. Tests that need a GPU skip without one.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backends/gpu_library.h"
#include "layer_cases.h"
#include "runner/util/errors.h"

namespace runner::testing {
namespace {

// Whether cuda:0 can run programs here.
bool gpu_usable() {
  try {
    make_backend(*Device::parse("cuda:0"), nullptr);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

std::string error_of(const std::string& device) {
  try {
    make_backend(*Device::parse(device), nullptr);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceSelection, CpuIsAlwaysTheOnednnBackend) {
  std::string note;
  auto backend = make_backend(Device::cpu(), &note);
  EXPECT_EQ(backend->info().backend, "onednn");
  EXPECT_EQ(backend->info().device, "cpu");
  EXPECT_GT(backend->info().memory_bytes, 0);  // as a number, for the sweep's memory plan
  EXPECT_TRUE(note.empty()) << note;
}

TEST(DeviceSelection, AutoPicksTheGpuOrFallsBackWithOneLineSayingWhy) {
  std::string note;
  auto backend = make_backend(Device{}, &note);
  if (gpu_usable()) {
    EXPECT_EQ(backend->info().backend, "cudnn");
    EXPECT_EQ(backend->info().device, "cuda:0");
    EXPECT_TRUE(note.empty()) << note;
  } else {
    EXPECT_EQ(backend->info().backend, "onednn");
    EXPECT_NE(note.find("device auto: using the CPU ("), std::string::npos) << note;
    EXPECT_EQ(note.find('\n'), std::string::npos) << note;
    EXPECT_GT(note.size(), std::string("device auto: using the CPU ()").size()) << note;
  }
}

TEST(DeviceSelection, OutOfRangeGpuNamesTheDeviceAndWhy) {
  const std::string message = error_of("cuda:99");
  EXPECT_NE(message.find("'cuda:99' is not usable"), std::string::npos) << message;
  if (gpu_usable()) {
    EXPECT_NE(message.find("this machine has"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
  }
}

TEST(DeviceSelection, IndexTooLargeForAnIntIsOutOfRange) {
  const std::string message = error_of("cuda:99999999999999999999");
  EXPECT_NE(message.find("is not usable"), std::string::npos) << message;
}

TEST(DeviceSelection, ExplicitGpuWithoutOneIsAUserErrorSayingWhy) {
  if (gpu_usable()) GTEST_SKIP() << "a GPU is usable here";
  for (std::string device : {"cuda", "cuda:0"}) {
    const std::string message = error_of(device);
    EXPECT_NE(message.find("'" + device + "' is not usable: "), std::string::npos) << message;
    EXPECT_NE(message.find(gpu_inventory().problem), std::string::npos) << message;
#ifndef RUNNER_WITH_CUDA
    EXPECT_NE(message.find("built without the cuDNN GPU backend"), std::string::npos) << message;
#endif
  }
}

TEST(DeviceInventory, ListsGpusOrSaysWhyNone) {
  const auto& gpus = gpu_inventory();
  EXPECT_EQ(gpus.devices.empty(), !gpus.problem.empty()) << gpus.problem;
  for (const auto& d : gpus.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GT(d.major, 0);
  }
#ifdef RUNNER_WITH_CUDA
  // The GPU backend's library loads on a machine without a driver too, and says what it has.
  EXPECT_EQ(gpus.cudnn.rfind("9.", 0), 0u) << gpus.problem;
  EXPECT_FALSE(gpus.runtime.empty());
  EXPECT_FALSE(gpus.cublas.empty());
  if (!gpus.devices.empty()) {
    EXPECT_FALSE(gpus.driver.empty());
  }
#endif
}

TEST(DeviceInventory, CpuBackendHasNoUtilisationMonitor) {
  EXPECT_EQ(make_backend(Device::cpu(), nullptr)->monitor_utilization(), nullptr);
}

TEST(DeviceInventory, GpuUtilisationIsSampledWhileTheMonitorRuns) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU here";
  auto monitor = make_backend(*Device::parse("cuda:0"), nullptr)->monitor_utilization();
  if (!monitor) GTEST_SKIP() << "NVML (libnvidia-ml.so.1) is not available";
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  DeviceUtilization u = monitor->stop();
  EXPECT_TRUE(u.available);
  EXPECT_GE(u.samples, 2);
  EXPECT_GT(u.peak_memory_used_bytes, 0);
  EXPECT_GT(u.mean_sm_clock_mhz, 0);
}

// A batch too large for the GPU: an OutOfMemoryError with the bytes asked for, and the GPU is
// still usable afterwards (the failed program released what it had allocated).
TEST(DeviceMemory, TooLargeBatchIsOutOfMemoryWithBytes) {
  std::string why;
  std::unique_ptr<Backend> gpu;
  try {
    gpu = make_backend(*Device::parse("cuda:0"), nullptr);
  } catch (const UserError& e) {
    GTEST_SKIP() << "no usable GPU: " << e.what();
  }
  ModelSpec model;
  model.layers = {layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 3}}),
                  layer("flat", "flatten"), layer("fc", "linear", {{"out_features", kClasses}})};
  Graph graph = build_graph(model, {3, 224, 224}, kClasses);
  CompileOptions options;
  options.train_batch = 2'000'000;  // 301 GB of input bytes alone
  options.eval_batch = 1;
  try {
    gpu->compile(graph, options);
    FAIL() << "a 2,000,000-image batch of 3x224x224 fit on the GPU";
  } catch (const OutOfMemoryError& e) {
    EXPECT_GE(e.requested_bytes, 2'000'000ull * 3 * 224 * 224) << e.what();
    EXPECT_NE(std::string(e.what()).find("GPU out of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("free"), std::string::npos) << e.what();
  }
  options.train_batch = 4;
  auto program = gpu->compile(graph, options);
  program->load_parameters(initial_parameters(graph, 1));
  Batch batch = random_batch(graph.input, 4, 2);
  program->train_step(batch.bytes.data(), batch.labels.data(), 4);
  EXPECT_GT(program->take_loss().sum, 0);
}

}  // namespace
}  // namespace runner::testing
