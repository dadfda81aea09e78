// The oneDNN program: a training net and an inference net over shared parameters.
#pragma once

#include <map>
#include <memory>

#include "backends/backend.h"
#include "backends/common/host_math.h"
#include "backends/onednn/net.h"

namespace runner::onednn {

class OnednnProgram : public Program {
 public:
  OnednnProgram(const Graph& graph, const CompileOptions& options);

  using Program::profile_train_step;
  using Program::train_step;
  void train_step(const TrainBatch& batch) override;
  LossSum take_loss() override;
  void predict(const std::uint8_t* images, int count, float* logits) override;
  std::vector<HostTensor> parameters() const override;
  void load_parameters(const std::vector<HostTensor>& tensors) override;
  std::vector<HostTensor> optimizer_state() const override;
  void load_optimizer_state(const std::vector<HostTensor>& tensors) override;
  void set_learning_rate(double lr) override { optimizer_.set_learning_rate(lr); }
  void set_momentum(double momentum) override { optimizer_.set_momentum(momentum); }
  void set_threads(int threads) override;
  void release_memory() override;

  void profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) override;

 private:
  // One training step, as chunks of at most train_net_->batch images; run_list executes a step
  // list, run_host a labelled host function (timed or not).
  template <typename RunList, typename RunHost>
  void step(const TrainBatch& batch, RunList run_list, RunHost run_host);
  // Normalises `count` images into the net's input, or copies them from `mixed` (mix_batch's
  // rows) when the batch is mixed.
  void load_batch(const Net& net, const std::uint8_t* images, const float* mixed, int count);
  // Mixup or cutmix (batch.mix): the whole batch normalised and mixed into mixed_input_ (its
  // partners may be in another chunk), their labels into partner_labels_.
  void mix_batch(const TrainBatch& batch);
  // The loss of `count` rows of `net`; gradients are of the mean over the whole batch of
  // `batch_count` images, whose true classes weigh `weight` in all (options_.loss_weighting;
  // batch_count without class weights). `mixed`: the rows' partners and lam, when mixed.
  void compute_loss(const Net& net, const std::int32_t* labels, int count, int batch_count,
                    double weight, const MixedLabels& mixed);
  // The training net that takes `count` images: train_net_, or for a short batch of a graph
  // with batch statistics (which must not see padding), one compiled for exactly `count`.
  Net& training_net(int count);
  // Compiles the training and inference nets for options_.threads.
  void build_nets();
  // build_nets() after release_memory().
  void ensure_nets();
  // How its nets are built: activations in bf16 for training.precision bf16, else f32; the own
  // kernels as the options say; dropout masks for training nets.
  NetSettings net_settings(bool training) const;
  // Adds the chunk's parameter gradients into summed_gradients_ (copies for the first chunk).
  void sum_gradients(bool first_chunk);
  // This step's gradient of `p`: its own, or the sum over the chunks.
  const float* step_gradient(const Parameter& p) const;
  // The factor clip_grad_norm scales this step's gradients by (1 without it); records the norm.
  float clip_gradients();
  void update_parameters();

  Graph graph_;
  CompileOptions options_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  ParamStore params_;
  int chunk_ = 0;  // the training net's batch: train_batch, or max_chunk where it may chunk
  std::unique_ptr<Net> train_net_, eval_net_;
  bool batch_statistics_ = false;                   // uses_batch_statistics(graph_)
  std::map<int, std::unique_ptr<Net>> short_nets_;  // by batch size, made when first needed
  std::int64_t mask_step_ = 0;                      // read by dropout masks (MaskSource)
  int mask_first_image_ = 0;
  ByteNormalizer normalizer_;
  Optimizer optimizer_;
  std::vector<float*> state_pointers_;                // scratch for the optimizer, sized once
  std::vector<std::vector<float>> summed_gradients_;  // per parameter, when the batch is chunked
  std::vector<float> normalized_batch_;               // mix_batch's unmixed images, normalised
  std::vector<float> mixed_input_;                    // a mixed batch, normalised (mix_batch)
  std::vector<std::int32_t> partner_labels_;          // its partners' labels
  LossSum loss_;
  bool eval_weights_stale_ = true;
};

}  // namespace runner::onednn
