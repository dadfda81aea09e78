#include "runner/util/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

TEST(ParallelFor, CallsTheBodyOnceForEveryIndex) {
  for (std::size_t count : {0, 1, 7, 10000}) {
    std::vector<std::atomic<int>> calls(count);
    parallel_for("testing", count, 16, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < count; ++i)
      EXPECT_EQ(calls[i], 1) << "index " << i << " of " << count;
  }
}

// The indices after the failing one take a millisecond each: without that, a thread that did not
// fail could finish all of them while the failing one is descheduled on a busy machine (a flake
// seen in CI), and the test would not tell whether hand-out stops.
void slow_after_ten(std::size_t i) {
  if (i > 10) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(ParallelFor, RethrowsTheFirstErrorAndStopsHandingOutWork) {
  std::atomic<int> calls{0};
  try {
    parallel_for("testing", 100000, 1, [&](std::size_t i) {
      ++calls;
      if (i == 10) throw UserError("index 10 is bad");
      slow_after_ten(i);
    });
    FAIL() << "no exception";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "index 10 is bad");
  }
  EXPECT_LT(calls, 100000);  // the rest was not handed out
}

// Ctrl-C mid-way: the rest is not handed out, and the caller is told (it once got a half-done
// result and went on with it).
TEST(ParallelFor, AnInterruptStopsItAndThrowsInterrupted) {
  std::atomic<int> calls{0};
  try {
    parallel_for("counting", 100000, 1, [&](std::size_t i) {
      ++calls;
      if (i == 10) request_interrupt();
      slow_after_ten(i);
    });
    begin_cleanup_after_interrupt();
    FAIL() << "returned after an interrupt";
  } catch (const Interrupted& stop) {
    begin_cleanup_after_interrupt();
    EXPECT_STREQ(stop.what(), "interrupted while counting");
  }
  EXPECT_LT(calls, 100000);
}

}  // namespace
}  // namespace runner
