// Width and batch-size sweeps on the block-built architectures, as on LeNet: `runner sweep` over
// model.width x training.batch_size on the shipped ResNet-18, MobileNetV2 and ViT networks (their
// `make bench` configs: the shipped model on synthetic CIFAR-shaped images) completes every
// point, and a wider point has more parameters and FLOPs per image.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using nlohmann::json;

class ArchitectureSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(ArchitectureSweep, WidthAndBatchSizePointsAllCompleteAndScale) {
  TempDir tmp;
  const std::string config =
      (source_dir() / "configs" / "bench").string() + "/" + GetParam() + "_cifar_synthetic.yaml";
  // No plots (a Python that is not there): this test is about the points, not the drawing.
  auto result =
      run_command("RUNNER_PYTHON=/nonexistent/python3 " + std::string(RUNNER_BINARY) + " sweep " +
                  config + " --name s --output " + tmp.path().string() +
                  " --grid model.width=0.25,0.5 --grid training.batch_size=2,4 --mode benchmark"
                  " --warmup-steps 0 --steps 1 --quiet --set dataset.workers=0"
                  " --set dataset.synthetic.train_count=8 --set dataset.synthetic.test_count=4");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  json rows = read_json(tmp / "s" / "summary.json")["points"];
  ASSERT_EQ(rows.size(), 4u) << result.output;
  for (const json& row : rows) {
    EXPECT_EQ(row["status"], "completed") << row.dump();
    EXPECT_GT(row["images_per_second"].get<double>(), 0) << row.dump();
  }
  // Points in grid order: (0.25, 2), (0.25, 4), (0.5, 2), (0.5, 4).
  EXPECT_EQ(rows[1]["batch_size"], 4);
  EXPECT_EQ(rows[2]["width"], 0.5);
  EXPECT_EQ(rows[0]["flops_per_image"], rows[1]["flops_per_image"]) << "batch size leaves FLOPs";
  EXPECT_GT(rows[2]["flops_per_image"].get<double>(), 2 * rows[0]["flops_per_image"].get<double>())
      << "twice the width: about four times the FLOPs of the inner layers";
  auto parameters = [](const json& row) {
    return read_json(row["report"].get<std::string>())["model"]["parameters"].get<double>();
  };
  EXPECT_GT(parameters(rows[2]), 2 * parameters(rows[0]));
}

INSTANTIATE_TEST_SUITE_P(Shipped, ArchitectureSweep,
                         ::testing::Values("resnet18", "mobilenetv2", "vit_tiny"));

}  // namespace
}  // namespace runner::testing
