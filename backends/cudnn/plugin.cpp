// The entry point of librunner_cudnn.so (see plugin.h); everything else in it is hidden.
#include "backends/cudnn/plugin.h"

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cudnn_backend.h"

namespace runner::cudnn {
namespace {

std::unique_ptr<Backend> make_cudnn_backend(int device) {
  return std::make_unique<CudnnBackend>(device);
}

}  // namespace
}  // namespace runner::cudnn

extern "C" __attribute__((visibility("default"))) const runner::cudnn::GpuPlugin*
runner_cudnn_plugin() {
  static const runner::cudnn::GpuPlugin plugin{
      runner::cudnn::kGpuPluginAbi, &runner::cudnn::gpu_inventory, &runner::cudnn::kernel_problem,
      &runner::cudnn::make_cudnn_backend, &runner::cudnn::layer_kinds};
  return &plugin;
}
