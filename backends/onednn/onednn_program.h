// The oneDNN program: a training net and an inference net over shared parameters.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/common/host_math.h"
#include "backends/onednn/net.h"

namespace runner::onednn {

class OnednnProgram : public Program {
 public:
  OnednnProgram(const Graph& graph, const CompileOptions& options);

  void train_step(const std::uint8_t* images, const std::int32_t* labels, int count) override;
  LossSum take_loss() override;
  void predict(const std::uint8_t* images, int count, float* logits) override;
  std::vector<HostTensor> parameters() const override;
  void load_parameters(const std::vector<HostTensor>& tensors) override;
  std::vector<HostTensor> optimizer_state() const override;
  void load_optimizer_state(const std::vector<HostTensor>& tensors) override;

  void profile_train_step(const std::uint8_t* images, const std::int32_t* labels, int count,
                          std::vector<StepTiming>& timings) override;

 private:
  void load_batch(const Net& net, const std::uint8_t* images, int count);
  void compute_loss(const std::int32_t* labels, int count);
  void update_parameters();

  Graph graph_;
  CompileOptions options_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  ParamStore params_;
  std::unique_ptr<Net> train_net_, eval_net_;
  ByteNormalizer normalizer_;
  Optimizer optimizer_;
  std::vector<float*> state_pointers_;  // scratch for the optimizer, sized once
  LossSum loss_;
  bool eval_weights_stale_ = true;
};

}  // namespace runner::onednn
