// CIFAR-10 files of a learnable task, for runs whose checkpoints another implementation scores.
#pragma once

#include <filesystem>
#include <vector>

namespace runner::testing {

// CIFAR-10's record files (a label byte, then 3x32x32 pixel bytes) holding `counts` records each
// (data_batch_1..5, test_batch) of a learnable task: an image's brightness per channel follows
// its label, plus noise.
void write_learnable_cifar10(const std::filesystem::path& root, const std::vector<int>& counts);

}  // namespace runner::testing
