// A Program that passes every call to another (a real CPU program) and records the learning
// rates, momenta and thread counts it is given (without another, only those); tests derive from it
// to observe or change the calls they care about.
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.h"

namespace runner::testing {

class ForwardingProgram : public Program {
 public:
  explicit ForwardingProgram(std::unique_ptr<Program> inner) : inner_(std::move(inner)) {}

  void train_step(const TrainBatch& batch) override { inner_->train_step(batch); }
  void profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) override {
    inner_->profile_train_step(batch, timings);
  }
  LossSum take_loss() override { return inner_->take_loss(); }
  void set_learning_rate(double lr) override {
    learning_rates.push_back(lr);
    inner_->set_learning_rate(lr);
  }
  void set_momentum(double momentum) override {
    momenta.push_back(momentum);
    inner_->set_momentum(momentum);
  }
  void set_threads(int threads) override {
    thread_counts.push_back(threads);
    if (inner_) inner_->set_threads(threads);
  }
  void predict(const std::uint8_t* images, int count, float* logits) override {
    inner_->predict(images, count, logits);
  }
  std::vector<HostTensor> parameters() const override { return inner_->parameters(); }
  void load_parameters(const std::vector<HostTensor>& t) override { inner_->load_parameters(t); }
  std::vector<HostTensor> optimizer_state() const override { return inner_->optimizer_state(); }
  void load_optimizer_state(const std::vector<HostTensor>& t) override {
    inner_->load_optimizer_state(t);
  }

  std::vector<double> learning_rates;  // each set_learning_rate, in order
  std::vector<double> momenta;         // each set_momentum, in order
  std::vector<int> thread_counts;      // each set_threads, in order

 protected:
  std::unique_ptr<Program> inner_;
};

}  // namespace runner::testing
