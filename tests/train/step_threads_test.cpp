// The steps' compute threads: the fitting rule on given free cores, a fitted run following a
// scripted machine, and a replay making the recorded changes at their steps.
#include "runner/train/step_threads.h"

#include <gtest/gtest.h>

#include "forwarding_program.h"

namespace runner {
namespace {

using testing::ForwardingProgram;

TEST(ThreadFitRule, TheFirstWindowDecidesAloneThenFewerAfterTwoShortOnesMoreAfterFiveRoomyOnes) {
  ThreadFit fit{4};
  EXPECT_TRUE(fit_threads(fit, 4, 2.1));  // start-up: another run holds two of four cores
  EXPECT_EQ(fit.threads, 2);
  EXPECT_FALSE(fit_threads(fit, 4, 0.9));  // one short window: a blip
  EXPECT_FALSE(fit_threads(fit, 4, 2.0));  // and the count holds: the short ones start again
  EXPECT_FALSE(fit_threads(fit, 4, 0.9));
  EXPECT_TRUE(fit_threads(fit, 4, 0.7));  // two in a row
  EXPECT_EQ(fit.threads, 1);
  for (int window = 0; window < 4; ++window) EXPECT_FALSE(fit_threads(fit, 4, 3.9));
  EXPECT_TRUE(fit_threads(fit, 4, 3.9));  // the fifth with room
  EXPECT_EQ(fit.threads, 4);
}

TEST(ThreadFitRule, NeverBelowOneNorAboveTheMostAndAQuarterCoreOfSlackKeepsAThread) {
  ThreadFit fit{2};
  EXPECT_TRUE(fit_threads(fit, 2, 0.0));  // nothing free: still one
  EXPECT_EQ(fit.threads, 1);
  ThreadFit roomy{2};
  EXPECT_FALSE(fit_threads(roomy, 2, 7.5));  // a larger machine's free cores: at most `most`
  EXPECT_EQ(roomy.threads, 2);
  ThreadFit slack{2};
  EXPECT_FALSE(fit_threads(slack, 2, 1.8));  // a shell using a fifth of a core
  EXPECT_EQ(slack.threads, 2);
}

// A machine of two cores whose other processes use `others[i]` cores during window i.
struct ScriptedMachine {
  std::vector<double> others;
  double now = 0;
  CpuUse use{0, 0, 0, 2};
  std::size_t window = 0;

  // The next window passes: ours use what the others leave.
  void pass(double seconds) {
    const double others_now = window < others.size() ? others[window] : 0.0;
    ++window;
    now += seconds;
    use.wall_seconds = now;
    use.busy_seconds += seconds * 2;  // every core busy
    use.own_seconds += seconds * (2 - others_now);
  }
};

TEST(StepThreads, AFittedRunFollowsWhatTheOthersLeaveAndRecordsEachChangeAtItsStep) {
  ScriptedMachine machine{{0.1, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0}};
  StepThreads threads = StepThreads::fitted(
      2, machine.use, [&] { return machine.use; }, [&] { return machine.now; }, 0.25);
  ForwardingProgram program(nullptr);
  std::int64_t step = 0;
  threads.before_step(step++, program);  // no window has passed: nothing read
  for (std::size_t w = 0; w < machine.others.size(); ++w) {
    machine.pass(0.3);
    threads.before_step(step++, program);
    threads.before_step(step++, program);  // within the next window: no decision
  }
  // Start-up idle: 2 kept; two busy windows: 1 from step 5; five idle ones: 2 again.
  ASSERT_EQ(threads.changes().size(), 2u);
  EXPECT_EQ(threads.changes()[0].step, 5);
  EXPECT_EQ(threads.changes()[0].threads, 1);
  EXPECT_NEAR(threads.changes()[0].free_cores, 1.0, 1e-9);
  EXPECT_EQ(threads.changes()[1].step, 17);
  EXPECT_EQ(threads.changes()[1].threads, 2);
  EXPECT_EQ(program.thread_counts, (std::vector<int>{1, 2}));
  EXPECT_EQ(threads.policy(), ThreadPolicy::fitted);
  EXPECT_EQ(threads.first(), 2);
}

// A start-up that filled a window on a busy machine decides the first count before the program is
// compiled: compiled once for 1 thread (the change recorded at step 0), not compiled for 2 and
// again at the first step. A start-up shorter than a window leaves the decision to the steps.
TEST(StepThreads, ABusyStartUpDecidesTheCountBeforeTheProgramIsCompiled) {
  ScriptedMachine machine{{1.2}};
  StepThreads threads = StepThreads::fitted(
      2, machine.use, [&] { return machine.use; }, [&] { return machine.now; }, 0.25);
  machine.pass(0.4);  // the config, the data
  EXPECT_EQ(threads.before_compile(), 1);
  ASSERT_EQ(threads.changes().size(), 1u);
  EXPECT_EQ(threads.changes()[0].step, 0);
  EXPECT_EQ(threads.changes()[0].threads, 1);
  ForwardingProgram program(nullptr);
  threads.before_step(0, program);
  EXPECT_TRUE(program.thread_counts.empty()) << "no recompilation at the first step";

  ScriptedMachine quick{{1.2}};
  StepThreads later = StepThreads::fitted(
      2, quick.use, [&] { return quick.use; }, [&] { return quick.now; }, 0.25);
  quick.pass(0.1);
  EXPECT_EQ(later.before_compile(), 2);
  EXPECT_TRUE(later.changes().empty());
}

// A replay makes the changes recorded at step 0 before compiling, the others at their steps.
TEST(StepThreads, AReplayCompilesForTheCountRecordedAtStepZero) {
  StepThreads threads = StepThreads::replayed(2, {{0, 1, 0.6}, {4, 2, 1.9}});
  EXPECT_EQ(threads.before_compile(), 1);
  ForwardingProgram program(nullptr);
  for (std::int64_t step = 0; step < 6; ++step) threads.before_step(step, program);
  EXPECT_EQ(program.thread_counts, (std::vector<int>{2}));
  ASSERT_EQ(threads.changes().size(), 2u);
  EXPECT_EQ(threads.changes()[0].step, 0);
  EXPECT_EQ(threads.changes()[1].step, 4);
}

TEST(StepThreads, AReplayMakesTheRecordedChangesAtTheirStepsWhateverTheMachineDoes) {
  StepThreads threads = StepThreads::replayed(2, {{7, 2, 1.9}, {3, 1, 0.8}});  // out of order
  ForwardingProgram program(nullptr);
  for (std::int64_t step = 0; step < 10; ++step) {
    threads.before_step(step, program);
    EXPECT_EQ(threads.current(), step < 3 ? 2 : step < 7 ? 1 : 2) << "step " << step;
  }
  EXPECT_EQ(program.thread_counts, (std::vector<int>{1, 2}));
  ASSERT_EQ(threads.changes().size(), 2u);
  EXPECT_EQ(threads.changes()[0].step, 3);
  EXPECT_EQ(threads.changes()[1].step, 7);
  EXPECT_EQ(threads.policy(), ThreadPolicy::replayed);
}

TEST(StepThreads, AReplayNeverGoesAboveTheFirstCount) {
  StepThreads threads = StepThreads::replayed(2, {{1, 100000, 0}, {2, 0, 0}});  // an edited report
  ForwardingProgram program(nullptr);
  for (std::int64_t step = 0; step < 4; ++step) threads.before_step(step, program);
  EXPECT_EQ(program.thread_counts, (std::vector<int>{2}));  // capped; a count of 0 is skipped
}

TEST(StepThreads, FixedThreadsNeverChange) {
  StepThreads threads = StepThreads::fixed(3);
  ForwardingProgram program(nullptr);
  for (std::int64_t step = 0; step < 5; ++step) threads.before_step(step, program);
  EXPECT_TRUE(program.thread_counts.empty());
  EXPECT_EQ(threads.current(), 3);
}

TEST(CpuUse, CountsTheCpusOfTheAffinityMaskAndThisProcessesTime) {
  const CpuUse before = read_cpu_use();
  volatile double sink = 0;
  for (int i = 0; i < 20'000'000; ++i) sink = sink + i * 1e-9;
  const CpuUse after = read_cpu_use();
  EXPECT_GE(before.cpus, 1);
  EXPECT_EQ(before.cpus, after.cpus);
  EXPECT_GT(after.own_seconds, before.own_seconds);
  EXPECT_GE(after.busy_seconds, before.busy_seconds);
  EXPECT_GT(after.wall_seconds, before.wall_seconds);
}

}  // namespace
}  // namespace runner
