// The loader's thread plan: a configured count is kept; auto runs no thread for a batch that is
// only a copy, and otherwise only on cores the compute threads leave free.
#include "runner/data/loader_threads.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

struct Case {
  LoaderDemand demand;
  int workers;
  LoaderReason reason;
};

TEST(LoaderThreads, FollowTheRule) {
  const Case cases[] = {
      // dataset.workers given: kept as it is, whatever the cores.
      {{2, false, 2, 2}, 2, LoaderReason::configured},
      {{0, true, 16, 1}, 0, LoaderReason::configured},
      {{5, true, 2, 2}, 5, LoaderReason::configured},
      // auto, nothing per batch but a copy: inline, even with cores to spare.
      {{std::nullopt, false, 2, 2}, 0, LoaderReason::copy_only},
      {{std::nullopt, false, 16, 1}, 0, LoaderReason::copy_only},
      // auto, augmenting: only on cores the compute threads leave free, at most two.
      {{std::nullopt, true, 2, 2}, 0, LoaderReason::no_free_core},
      {{std::nullopt, true, 2, 4}, 0, LoaderReason::no_free_core},
      {{std::nullopt, true, 2, 1}, 1, LoaderReason::free_cores},
      {{std::nullopt, true, 16, 8}, kMaxAutoLoaderWorkers, LoaderReason::free_cores},
  };
  for (const Case& c : cases) {
    const LoaderWorkers planned = plan_loader_workers(c.demand);
    const std::string text = loader_workers_text(c.demand, planned);
    EXPECT_EQ(planned.count, c.workers) << text;
    EXPECT_EQ(planned.reason, c.reason) << text;
  }
}

TEST(LoaderThreads, TheTextSaysHowManyAndWhy) {
  const LoaderDemand augmenting{std::nullopt, true, 2, 2};
  EXPECT_EQ(loader_workers_text(augmenting, plan_loader_workers(augmenting)),
            "0 loader workers (auto: augmenting inline, 2 compute threads on 2 cores)");
  const LoaderDemand configured{1, false, 2, 2};
  EXPECT_EQ(loader_workers_text(configured, plan_loader_workers(configured)),
            "1 loader worker (dataset.workers)");
}

}  // namespace
}  // namespace runner
