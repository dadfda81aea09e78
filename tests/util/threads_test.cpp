// Compute threads from training.threads and OMP_NUM_THREADS: bounded, and refused with a message
// naming where the count came from when the process cannot start them (issue 24).
#include "runner/util/threads.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

// Sets OMP_NUM_THREADS for one test and restores it.
class OmpNumThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* was = std::getenv("OMP_NUM_THREADS")) saved_ = was;
  }
  void TearDown() override {
    if (saved_.empty()) {
      ::unsetenv("OMP_NUM_THREADS");
    } else {
      ::setenv("OMP_NUM_THREADS", saved_.c_str(), 1);
    }
  }
  std::string saved_;
};

TEST_F(OmpNumThreads, ConfiguredThreadsWinOverTheEnvironment) {
  ::setenv("OMP_NUM_THREADS", "100000", 1);
  EXPECT_EQ(resolve_threads(3), 3);
}

TEST_F(OmpNumThreads, TheEnvironmentCountsWhenTheConfigSaysZero) {
  ::setenv("OMP_NUM_THREADS", "5", 1);
  EXPECT_EQ(resolve_threads(0), 5);
  ::setenv("OMP_NUM_THREADS", "4,2", 1);  // nested levels: the outer one
  EXPECT_EQ(resolve_threads(0), 4);
  ::setenv("OMP_NUM_THREADS", "many", 1);  // not a number: the cores, as libgomp ignores it
  EXPECT_EQ(resolve_threads(0), available_cores());
}

TEST_F(OmpNumThreads, AHugeCountFromTheEnvironmentIsRefusedNamingIt) {
  for (const char* value : {"100000", "99999999999999999999999"}) {
    ::setenv("OMP_NUM_THREADS", value, 1);
    try {
      resolve_threads(0);
      ADD_FAILURE() << value << " was accepted";
    } catch (const UserError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::string("OMP_NUM_THREADS=") + value +
                             " (from the environment, as training.threads is 0): expected a "
                             "whole number from 1 to 4096"),
                std::string::npos)
          << message;
    }
  }
}

TEST(ComputeThreads, ThreadsThatCanStartPass) {
  EXPECT_NO_THROW(check_threads_can_start(8, 8));
}

// libgomp ended the process ("Thread creation failed") when training.threads asked for more
// threads than a memory limit allows. In a child process whose address space is too small for
// 1000 thread stacks, the check must be a UserError naming the field.
TEST(ComputeThreads, ThreadsThatCannotStartAreAUserErrorNamingTheField) {
  // 1 GiB: about a hundred 8 MiB stacks.
  const int code = runner::testing::exit_code_with_address_space(1ull << 30, [] {
    try {
      check_threads_can_start(1000, 1000);
      return 3;  // every thread started: the limit did not bite
    } catch (const UserError& error) {
      const std::string message = error.what();
      return message.find(
                 "training.threads: 1000 compute threads, but this process could start "
                 "only") == 0
                 ? 0
                 : 4;
    }
  });
  EXPECT_EQ(code, 0) << "3: all threads started, 4: the message differs, -1: a signal";
}

}  // namespace
}  // namespace runner
