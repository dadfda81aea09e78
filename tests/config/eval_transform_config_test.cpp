// dataset.eval_transform as resolved: the fit it reads, the resolved JSON (the crop's size
// written out; nothing when absent), and errors naming the step.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/config/schema_check.h"
#include "runner/config/schema_file.h"
#include "test_support.h"

namespace runner {
namespace {

Experiment folder_with(const std::string& dataset_extra) {
  return load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml",
                         {"dataset={name: image_folder, root: /nonexistent, image_size: [12, 10]" +
                          dataset_extra + "}"});
}

std::string eval_transform_error(const std::string& dataset_extra) {
  try {
    return "no error; resolved: " + folder_with(dataset_extra).resolved.dump();
  } catch (const UserError& error) {
    return error.what();
  }
}

TEST(EvalTransformConfig, ReadsTorchvisionsRecipeAndWritesItOut) {
  const Experiment e = folder_with(", eval_transform: [{resize: {size: 14}}, {center_crop: {}}]");
  const ImageFit& fit = e.dataset.files.eval_fit;
  EXPECT_EQ(fit.shorter_side, 14);
  EXPECT_TRUE(fit.center_crop);
  EXPECT_EQ(
      e.resolved["dataset"]["eval_transform"],
      nlohmann::json::parse(R"([{"resize": {"size": 14}}, {"center_crop": {"size": [12, 10]}}])"));
  EXPECT_TRUE(schema_violations(load_schema("experiment.schema.json"), e.resolved).empty());
  const Experiment exact = folder_with(", eval_transform: [{resize: {size: [20, 16]}}]");
  EXPECT_EQ(exact.dataset.files.eval_fit.resize_height, 20);
  EXPECT_EQ(exact.dataset.files.eval_fit.resize_width, 16);
  EXPECT_FALSE(exact.dataset.files.eval_fit.center_crop);
  // Absent: the resolved config has no key (its hash stays what it was).
  EXPECT_FALSE(folder_with("").resolved["dataset"].contains("eval_transform"));
}

TEST(EvalTransformConfig, StepsThatCannotFeedTheModelAreRefusedNamingTheStep) {
  const std::string size =
      eval_transform_error(", eval_transform: [{resize: {size: 14}}, {center_crop: {size: 11}}]");
  EXPECT_NE(size.find("dataset.eval_transform[1]"), std::string::npos) << size;
  EXPECT_NE(size.find("image_size"), std::string::npos) << size;
  const std::string order =
      eval_transform_error(", eval_transform: [{center_crop: {}}, {resize: {size: 14}}]");
  EXPECT_NE(order.find("dataset.eval_transform[1]"), std::string::npos) << order;
  const std::string unknown = eval_transform_error(", eval_transform: [{pad: {}}]");
  EXPECT_NE(unknown.find("eval_transform"), std::string::npos) << unknown;
  // Formats whose images are stored at their size take no eval_transform.
  try {
    load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml",
                    {"dataset.eval_transform=[{center_crop: {}}]"});
    ADD_FAILURE() << "synthetic data took an eval_transform";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("eval_transform"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace runner
