// Writes the learnable CIFAR-10 files.
#include "learnable_cifar.h"

#include <fstream>
#include <random>

namespace runner::testing {

void write_learnable_cifar10(const std::filesystem::path& root, const std::vector<int>& counts) {
  std::filesystem::create_directories(root);
  const char* files[] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                         "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"};
  std::mt19937 rng(11);
  for (std::size_t f = 0; f < counts.size(); ++f) {
    std::ofstream out(root / files[f], std::ios::binary);
    for (int r = 0; r < counts[f]; ++r) {
      const int label = static_cast<int>(rng() % 10);
      out.put(static_cast<char>(label));
      for (int c = 0; c < 3; ++c) {
        for (int p = 0; p < 32 * 32; ++p) {
          out.put(static_cast<char>(label * 24 + c * 5 + static_cast<int>(rng() % 16)));
        }
      }
    }
  }
}

}  // namespace runner::testing
