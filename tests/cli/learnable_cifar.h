// CIFAR-10 files of a learnable task, and a checkpoint trained on them scored by another
// implementation (PyTorch), for the tests that hold a shipped config against its peer.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace runner::testing {

// CIFAR-10's record files (a label byte, then 3x32x32 pixel bytes) holding `counts` records each
// (data_batch_1..5, test_batch) of a learnable task: an image's brightness per channel follows
// its label, plus noise.
void write_learnable_cifar10(const std::filesystem::path& root, const std::vector<int>& counts);

struct ScoredCheckpoint {
  nlohmann::json report;  // the run's
  nlohmann::json scored;  // what the scorer printed: {"test_accuracy": ..., "tensors": ...}
};

// Trains configs/`config` on the learnable files in `tmp`/cifar (with `sets`, more --set
// options) on the CPU, then runs `/usr/bin/python3 scripts/SCORER RESOLVED CHECKPOINT`, where
// SCORER is `scorer` (a script and its leading arguments) and RESOLVED the run's resolved config
// as a JSON file. Failures are gtest failures; check HasFatalFailure() after.
ScoredCheckpoint train_and_score(const TempDir& tmp, const std::string& config,
                                 const std::string& sets, const std::string& scorer);

}  // namespace runner::testing
