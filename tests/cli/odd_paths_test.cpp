// Paths that are legal on Linux but not UTF-8 still give a report (issue 11: the report's JSON
// could not be written and the finished run was lost with a raw library message).
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.h"

namespace runner::testing {
namespace {

TEST(OddPaths, ConfigNamedWithNonUtf8BytesStillWritesItsReport) {
  TempDir tmp;
  std::ifstream in(source_dir() / "configs" / "tiny_synthetic.yaml");
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto file = tmp.write("caf\xe9.yaml", config);
  auto result = run_runner("run '" + file.string() + "' --quiet --set training.epochs=1 --output " +
                           (tmp / "out").string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("report: "), std::string::npos) << result.output;
  EXPECT_TRUE(std::filesystem::exists(tmp / "out" / "tiny_synthetic"));
}

}  // namespace
}  // namespace runner::testing
