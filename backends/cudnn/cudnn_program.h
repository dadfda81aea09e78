// The cuDNN program: a training net and an inference net over shared device parameters; the
// training step (load the batch, forward, loss, backward, update) launched on one stream,
// captured once per batch slot as a CUDA graph and replayed; batches copied on another stream.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cudnn/batch_slot.h"
#include "backends/cudnn/handles.h"
#include "backends/cudnn/kernels.h"
#include "backends/cudnn/net.h"
#include "backends/cudnn/staged_scalars.h"

namespace runner::cudnn {

class CudnnProgram : public Program {
 public:
  CudnnProgram(int device, const Graph& graph, const CompileOptions& options);
  ~CudnnProgram() override;

  using Program::profile_train_step;
  using Program::train_step;
  void train_step(const TrainBatch& batch) override;
  LossSum take_loss() override;
  void profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) override;
  bool hold_training_set(const HostImageSet& set) override;
  void predict(const std::uint8_t* images, int count, float* logits) override;
  std::vector<HostTensor> parameters() const override;
  void load_parameters(const std::vector<HostTensor>& tensors) override;
  std::vector<HostTensor> optimizer_state() const override;
  void load_optimizer_state(const std::vector<HostTensor>& tensors) override;
  // Copied to the device on the compute stream, where the next step's kernels (eager or a
  // replayed graph) read it: graphs capture the lr's address, not its value.
  void set_learning_rate(double lr) override;
  void set_momentum(double momentum) override;

  // The algorithm of each convolution pass ("conv1 forward: IMPLICIT_PRECOMP_GEMM"), the
  // device memory this program holds, whether it holds the training set and, under fp16, the
  // loss scale and the steps it skipped (waits for the device).
  ProgramFacts facts() const override;

 private:
  void check_batch(const Net& net, const TrainBatch& batch) const;
  // Copies `value` into the device's StepScalars at `offset` (on the compute stream).
  void copy_to_scalars(std::size_t offset, double value);
  // The training slot the next step uses (the slots are made on the first step, when it is
  // known whether batches come as rows of a held set), and the evaluation slot.
  BatchSlot& next_train_slot();
  BatchSlot& eval_slot();
  std::unique_ptr<BatchSlot> make_slot(const Net& net, const HeldSet* held);
  // Appends what a training step of `net` launches after loading the batch to `steps`.
  void build_train_steps(const Net& net, StepList& steps);
  // A graph with batch statistics (batch norm) must not see a short batch padded with zeros:
  // such a batch trains on a net compiled for exactly its size, made when first needed and run
  // eagerly (a last batch comes once an epoch).
  struct ShortNet {
    Workspace workspace;
    std::unique_ptr<Net> net;
    StepList steps;
    std::unique_ptr<BatchSlot> slot;
  };
  ShortNet& short_net(int count);
  void short_train_step(const TrainBatch& batch);
  // clip_grad_norm's steps: each gradient's sum of squares, then the global norm and factor.
  void add_clip_steps(StepList& steps);
  // Mixed precision: the launches that round the FP32 weights into their 16-bit mirrors.
  void build_mirror_steps();
  // fp16's dynamic loss scaling (backends/common/loss_scale_math.h): whether it runs, and the
  // launches that flag a non-finite gradient, so that begin_step skips the update.
  bool loss_scaling() const;
  void add_non_finite_steps(StepList& steps);
  // The device's StepScalars, copied once the stream is done.
  kernels::StepScalars device_scalars() const;
  void select_device() const;

  Graph graph_;
  CompileOptions options_;
  DeviceSelection device_;  // first: everything below is made on this device
  DeviceMemory memory_;     // before everything that points into it, so it is freed last
  PinnedMemory pinned_;
  LibraryHandles handles_;
  CudaStream copy_stream_;  // batch uploads, beside the compute stream (handles_.stream())
  ParamStore params_;
  Workspace workspace_;
  std::vector<std::string> algorithms_;
  std::vector<std::string> state_names_;  // optimizer buffers, PyTorch's state_dict names

  kernels::StepScalars* scalars_ = nullptr;        // device: optimizer step and its factors
  double learning_rate_ = 0;                       // the last set_learning_rate
  std::unique_ptr<StagedScalars> staged_scalars_;  // pinned sources of the factors' copies
  double* loss_sum_ = nullptr;                     // device: summed loss since take_loss()
  const float* class_weights_ = nullptr;           // device: training.loss's, when given
  double* loss_host_ = nullptr;                    // pinned: the loss sum, the gradient norm sum
  float* logits_host_ = nullptr;                   // pinned (eval batch, classes)
  float* eval_logits_ = nullptr;  // device (eval batch, classes): 16-bit ones widened
  DeviceNormalizer normalizer_;
  std::unique_ptr<Net> train_, eval_;
  std::optional<HeldSet> held_;                  // the training set, once held
  const std::uint8_t* asked_to_hold_ = nullptr;  // the host set hold_training_set was given
  std::array<std::unique_ptr<BatchSlot>, 2> train_slots_;  // taking turns
  std::string graph_fallback_;  // why training steps run eagerly after a failed capture
  std::unique_ptr<BatchSlot> eval_slot_;
  int next_slot_ = 0;

  StepList mirror_steps_;          // 16-bit weights from the FP32 ones (none for FP32 programs)
  StepList train_steps_;           // everything a training step launches after loading the batch
  bool batch_statistics_ = false;  // uses_batch_statistics(graph_)
  BuildContext short_context_;     // how the nets were built
  std::map<int, std::unique_ptr<ShortNet>> short_nets_;  // by batch size
  StepTimer timer_;
  std::int64_t steps_run_ = 0;  // training steps this program ran (the first runs eagerly)
  std::int64_t loss_count_ = 0;
  std::int64_t clipped_steps_ = 0;  // steps since take_loss() that measured the gradient norm
};

}  // namespace runner::cudnn
