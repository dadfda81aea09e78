// The points one after another in this process.
#include <fmt/format.h>

#include "runner/sweep/launcher.h"
#include "runner/sweep/result_lines.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

class InProcessLauncher : public Launcher {
 public:
  void launch(const LaunchRequest& r, Console& console, SweepTally& tally) override {
    SweepResultLines lines(r.plan);
    for (std::size_t i : r.todo) {
      const PlannedPoint& planned = r.plan[i];
      if (interrupt_requested()) {
        tally.interrupted = true;
        return;
      }
      console.progress(fmt::format("[{}/{}] {}: running", i + 1, r.plan.size(), planned.point.id));
      PointRun run = r.run_point(planned);
      ++tally.ran;
      ++tally.counts[run.status];
      std::string line = lines.line(i, run);
      if (ended_as_planned(run.status)) {
        console.line(line);
      } else {
        console.warning(line);
      }
      kill_if_test_asks(tally.ran);
      if (run.status == RunStatus::interrupted || interrupt_requested()) {
        tally.interrupted = true;
        return;
      }
      if (r.fail_fast && !ended_as_planned(run.status)) {
        tally.stopped = true;
        return;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Launcher> in_process_launcher() {
  return std::make_unique<InProcessLauncher>();
}

}  // namespace runner
