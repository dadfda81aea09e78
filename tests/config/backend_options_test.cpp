// The `backend` block: execution options (GPU, and the CPU's kernels) with defaults, settable
// with --set, closed to unknown keys.
#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

std::filesystem::path lenet() {
  return testing::source_dir() / "configs" / "lenet_cifar.yaml";
}

TEST(BackendOptions, DefaultToCudaGraphsAnyAlgorithmAndTheDatasetOnTheDevice) {
  Experiment e = load_experiment(lenet(), {});
  EXPECT_TRUE(e.backend.cuda_graph);
  EXPECT_FALSE(e.backend.deterministic);
  EXPECT_TRUE(e.backend.dataset_on_device);
  EXPECT_EQ(e.resolved["backend"]["cuda_graph"], true);
  EXPECT_EQ(e.resolved["backend"]["dataset_on_device"], true);
}

TEST(BackendOptions, OverridesTurnOnTheEagerDeterministicAndStreamedPaths) {
  Experiment e = load_experiment(lenet(), {"backend.cuda_graph=false", "backend.deterministic=true",
                                           "backend.dataset_on_device=false"});
  EXPECT_FALSE(e.backend.cuda_graph);
  EXPECT_TRUE(e.backend.deterministic);
  EXPECT_FALSE(e.backend.dataset_on_device);
  EXPECT_EQ(e.resolved["backend"]["deterministic"], true);
  EXPECT_EQ(e.resolved["backend"]["dataset_on_device"], false);
}

// backend.winograd (CPU): on by default and then absent from the resolved config, so configs keep
// their hash; off, it is there, and so a report's config reruns with it off.
TEST(BackendOptions, WinogradIsOnByDefaultAndRecordedWhenOff) {
  const Experiment plain = load_experiment(lenet(), {});
  EXPECT_TRUE(plain.backend.winograd);
  EXPECT_FALSE(plain.resolved["backend"].contains("winograd"));
  const Experiment direct = load_experiment(lenet(), {"backend.winograd=false"});
  EXPECT_FALSE(direct.backend.winograd);
  EXPECT_EQ(direct.resolved["backend"]["winograd"], false);
}

TEST(BackendOptions, UnknownKeysAndWrongTypesAreErrors) {
  try {
    load_experiment(lenet(), {"backend.cuda_grahp=false"});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'cuda_graph'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(load_experiment(lenet(), {"backend.deterministic=sometimes"}), UserError);
}

}  // namespace
}  // namespace runner
