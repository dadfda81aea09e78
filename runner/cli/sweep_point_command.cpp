// `runner sweep SWEEP.yaml --point K`: plans the sweep as a whole sweep would, runs point K alone
// into the sweep's folder and exits with its status. Many such processes (a Slurm array, the
// children of `--jobs N`) run side by side: each holds the sweep folder's lock shared and its
// point's folder exclusively, so a whole sweep and a second run of the same point wait out.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>

#include "runner/cli/commands.h"
#include "runner/cli/sweep_setup.h"
#include "runner/html/run_page.h"
#include "runner/sweep/sweep_folder_lock.h"
#include "runner/sweep/sweep_point_run.h"
#include "runner/util/errors.h"
#include "runner/util/folder_lock.h"

namespace runner {
namespace {

const PlannedPoint& chosen_point(const std::vector<PlannedPoint>& plan, int k) {
  if (k < 1 || static_cast<std::size_t>(k) > plan.size()) {
    throw UserError(fmt::format(
        "--point: found {}, expected a point from 1 to {} (the # column of the plan; --dry-run "
        "prints it)",
        k, plan.size()));
  }
  return plan[static_cast<std::size_t>(k - 1)];
}

// Test hook: RUNNER_TEST_KILL_POINT=K kills this process (SIGKILL) before it runs point K, as a
// node that dies or the kernel's out-of-memory killer would.
void maybe_kill_for_test(int point) {
  const char* text = std::getenv("RUNNER_TEST_KILL_POINT");
  if (text && std::atoi(text) == point) std::raise(SIGKILL);
}

}  // namespace

int sweep_point_command(const SweepOptions& options) {
  Console console(options.quiet);
  SweepSpec spec = sweep_spec(options);
  const std::filesystem::path dir = spec.output / spec.name;
  SweepFolderLock sweep_lock(dir);
  std::filesystem::path base = sweep_base_config(spec, dir);
  split_threads(spec, base, options.jobs);
  std::vector<PlannedPoint> plan = plan_sweep(spec, base);
  const PlannedPoint& planned = chosen_point(plan, options.point);
  const std::string& id = planned.point.id;
  FolderLock point_lock(dir / id, "run of this sweep point");
  if (!write_json_unless_other(dir / kSweepManifest, plan_json(spec, plan))) {
    console.warning(fmt::format(
        "warning: {} describes another plan (the sweep's settings changed?): left as it is; a "
        "whole run of the sweep rewrites it",
        (dir / kSweepManifest).string()));
  }
  const std::string tag = fmt::format("[{}/{}] {}", options.point, plan.size(), id);
  console.line(fmt::format("sweep {}: point {} of {} ({}), mode {}; results in {}", spec.name,
                           options.point, plan.size(), id, mode_line(spec), (dir / id).string()));
  PointState state = point_state(dir / id / "report.json", planned);
  if (is_done(state) && !options.force) {
    console.result(fmt::format("{}: done: skipped (--force reruns it)", tag));
    return 0;
  }
  if (options.dry_run) {
    console.result(
        fmt::format("{}: {}", tag, describe_state(state, dir / id / "report.json", options.force)));
    return 0;
  }
  maybe_kill_for_test(options.point);
  PointRun run = run_sweep_point(planned, spec, base, dir, options.verbose, write_page_of_run);
  const std::string line = fmt::format("{}: {}", tag, result_line(run));
  if (ended_as_planned(run.status)) {
    console.result(line);
  } else {
    console.warning(line);
  }
  return point_exit_code(run.status);
}

}  // namespace runner
