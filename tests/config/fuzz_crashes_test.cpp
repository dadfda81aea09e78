// Every input under tests/fuzz/crashes-config (each crashed, hung, ran out of memory or let a raw
// library exception out of the config path once, when config_fuzzer found it) now goes through
// that path (tests/fuzz/config_path.h) to a valid config or a UserError, quickly and without a
// crash.
#include <gtest/gtest.h>

#include "config_path.h"
#include "crash_inputs.h"

namespace runner::fuzzing {
namespace {

constexpr const char* kFolder = "crashes-config";

class FuzzCrashInput : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzCrashInput, IsAValidConfigOrAUserError) {
  const std::string yaml = crash_input(kFolder, GetParam());
  EXPECT_EQ(outcome_in_child([&] { check_config_text(yaml, GetParam()); }), "") << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Crashes, FuzzCrashInput, ::testing::ValuesIn(crash_inputs(kFolder)),
                         crash_test_name);

TEST(FuzzCrashInputs, FolderIsNotEmpty) {
  // An empty list would silently test nothing (a moved folder, a wrong source dir).
  EXPECT_FALSE(crash_inputs(kFolder).empty()) << kFolder;
}

}  // namespace
}  // namespace runner::fuzzing
