// The cuDNN program: a training net and an inference net over shared device parameters; the
// training step (normalise, forward, loss, backward, update) launched on one stream, captured
// once as a CUDA graph and replayed.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cudnn/handles.h"
#include "backends/cudnn/kernels.h"
#include "backends/cudnn/net.h"

namespace runner::cudnn {

class CudnnProgram : public Program {
 public:
  CudnnProgram(int device, const Graph& graph, const CompileOptions& options);
  ~CudnnProgram() override;

  void train_step(const std::uint8_t* images, const std::int32_t* labels, int count) override;
  LossSum take_loss() override;
  void profile_train_step(const std::uint8_t* images, const std::int32_t* labels, int count,
                          std::vector<StepTiming>& timings) override;
  void predict(const std::uint8_t* images, int count, float* logits) override;
  std::vector<HostTensor> parameters() const override;
  void load_parameters(const std::vector<HostTensor>& tensors) override;
  std::vector<HostTensor> optimizer_state() const override;
  void load_optimizer_state(const std::vector<HostTensor>& tensors) override;

  // The algorithm of each convolution pass ("conv1 forward: IMPLICIT_PRECOMP_GEMM") and the
  // device memory this program holds.
  ProgramFacts facts() const override;

 private:
  // Pinned host buffers a batch crosses through, and an event marking the end of the last
  // copy out of them (so they are not overwritten while a copy may still read them).
  struct Staging {
    std::uint8_t* images = nullptr;  // (N, C, H, W)
    std::int32_t* labels = nullptr;  // (N), then the count
    std::unique_ptr<CudaEvent> copied;
  };
  Staging make_staging(int batch, const std::string& what);
  void stage(const Net& net, Staging& slot, const std::uint8_t* images, const std::int32_t* labels,
             int count);
  void check_batch(const Net& net, const std::int32_t* labels, int count) const;
  void build_train_steps();
  void select_device() const;

  Graph graph_;
  CompileOptions options_;
  DeviceSelection device_;  // first: everything below is made on this device
  DeviceMemory memory_;     // before everything that points into it, so it is freed last
  PinnedMemory pinned_;
  LibraryHandles handles_;
  ParamStore params_;
  Workspace workspace_;
  std::vector<std::string> algorithms_;
  std::vector<std::string> state_names_;  // optimizer buffers, PyTorch's state_dict names

  kernels::StepScalars* scalars_ = nullptr;  // device: optimizer step and its factors
  double* loss_sum_ = nullptr;               // device: summed loss since take_loss()
  double* loss_host_ = nullptr;              // pinned
  float* logits_host_ = nullptr;             // pinned (eval batch, classes)
  std::unique_ptr<Net> train_, eval_;
  std::array<Staging, 2> train_staging_;  // alternated, so a batch is staged while one copies
  Staging eval_staging_;
  int next_slot_ = 0;

  StepList train_steps_;  // everything a training step launches after the batch is copied
  CapturedGraph graph_exec_;
  StepTimer timer_;
  std::int64_t step_ = 0;       // optimizer steps, as saved in checkpoints
  std::int64_t steps_run_ = 0;  // training steps this program ran (the first runs eagerly)
  std::int64_t loss_count_ = 0;
};

}  // namespace runner::cudnn
