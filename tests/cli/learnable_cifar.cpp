// Writes the learnable CIFAR-10 files.
#include "learnable_cifar.h"

#include <gtest/gtest.h>

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

ScoredCheckpoint train_and_score(const TempDir& tmp, const std::string& config,
                                 const std::string& sets, const std::string& scorer) {
  ScoredCheckpoint out;
  auto run = run_runner((source_dir() / "configs" / config).string() +
                        " --set device=cpu --set dataset.download=false --set dataset.root=" +
                        (tmp / "cifar").string() + " " + sets + " --quiet --output " +
                        (tmp / "out").string());
  EXPECT_EQ(run.exit_code, 0) << run.output;
  if (run.exit_code != 0) return out;
  out.report = nlohmann::json::parse(std::ifstream(report_path_in(run.output)));
  // The scorer reads the run's resolved config (JSON is YAML), overrides included.
  std::ofstream(tmp / "resolved.json") << out.report["config"].dump();
  auto scored = run_command("/usr/bin/python3 " + (source_dir() / "scripts").string() + "/" +
                            scorer + " " + (tmp / "resolved.json").string() + " " +
                            out.report["checkpoint"]["path"].get<std::string>());
  EXPECT_EQ(scored.exit_code, 0) << scored.output;
  if (scored.exit_code == 0) out.scored = nlohmann::json::parse(scored.output);
  return out;
}

}  // namespace runner::testing
