// The warning for a top_k that cannot tell anything on the model: K at least its classes.
#include "runner/run/metrics_check.h"

#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/graph/dataset_geometry.h"
#include "test_support.h"

namespace runner {
namespace {

std::vector<std::string> warnings_for(const std::string& metrics) {
  const Experiment e = load_experiment(testing::source_dir() / "configs" / "tiny_synthetic.yaml",
                                       {"metrics=" + metrics});
  return metrics_warnings(e, build_graph(e.model, dataset_geometry(e.dataset)));
}

TEST(MetricsCheck, ATopKOfAtLeastTheClassesIsSaidToBeAlwaysFull) {
  // tiny_synthetic has 10 classes.
  EXPECT_TRUE(warnings_for("[{top_k: 9}, macro_f1]").empty());
  const std::vector<std::string> warnings = warnings_for("[macro_f1, {top_k: 10}, {top_k: 50}]");
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0],
            "metrics[1]: top_k 10 is at least the model's 10 classes: top10_accuracy is always "
            "100 %");
  EXPECT_NE(warnings[1].find("metrics[2]: top_k 50"), std::string::npos) << warnings[1];
}

}  // namespace
}  // namespace runner
