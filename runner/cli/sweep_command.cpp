// `runner sweep SWEEP.yaml` or `runner sweep CONFIG --grid PATH=V1,V2 ...`: plan the points, run
// those not done yet with a launcher (one after another in this process, or --jobs N at once as
// child processes: runner/sweep/launcher.h), then summarise and plot.
#include <fmt/format.h>

#include <memory>

#include "runner/cli/commands.h"
#include "runner/cli/jobs_memory_check.h"
#include "runner/cli/report_folder.h"
#include "runner/cli/sweep_gpus.h"
#include "runner/cli/sweep_setup.h"
#include "runner/html/run_page.h"
#include "runner/report/machine_load.h"
#include "runner/sweep/asha_trial.h"
#include "runner/sweep/launcher.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/sweep/sweep_point_run.h"
#include "runner/sweep/sweep_tally.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/folder_lock.h"
#include "runner/util/interrupt.h"

namespace runner {

int sweep_command(const SweepOptions& options) {
  Console console(options.quiet);
  SweepSpec spec = sweep_spec(options);
  // A mistake in --gpus is said before anything is planned; without it, the GPUs are looked for
  // only when a point may need one.
  std::vector<int> given_gpus =
      options.gpus.empty() ? std::vector<int>{} : sweep_gpus(options.gpus);
  const std::filesystem::path dir = spec.output / spec.name;
  FolderLock lock(dir, "sweep");  // held until the sweep ends, summary included
  std::filesystem::path base = sweep_base_config(spec, dir);
  split_threads(spec, base, options.jobs);
  std::vector<PlannedPoint> plan = plan_sweep(spec, base);
  std::vector<PointState> states = point_states(plan, dir);
  std::vector<std::string> notes;
  SweepTally tally;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    notes.push_back(
        describe_state(states[i], dir / plan[i].point.id / "report.json", options.force));
    if (is_done(states[i]) && !options.force) {
      ++tally.skipped;
      ++tally.counts[states[i] == PointState::stopped_early ? RunStatus::stopped_early
                                                            : RunStatus::completed];
    } else {
      todo.push_back(i);
    }
  }
  console.line(fmt::format("sweep {}: {} points of {}, mode {}; results in {}", spec.name,
                           plan.size(), base.string(), mode_line(spec), dir.string()));
  if (std::string unused = unused_training_settings_warning(spec, options); !unused.empty()) {
    console.warning(unused);
  }
  if (spec.random) console.line(trials_table(*spec.random));
  if (spec.asha) console.line(asha_plan_line(*spec.asha, plan));
  console.line(plan_table(plan, notes));
  const MachineLoad load;
  if (auto busy = busy_warning(load.start(), load.cores()); !busy.empty())
    console.warning_once(kBusyWarningKey, busy);  // its points do not say it again
  if (options.jobs > 1) check_jobs_fit_host_memory(plan, todo, base, options.jobs);
  write_file_atomically(dir / kSweepManifest, plan_json_text(spec, plan));
  if (options.dry_run) return 0;

  auto run_point = [&](const PlannedPoint& planned) {
    return run_sweep_point(planned, spec, base, dir, options.verbose, write_page_of_run);
  };
  LaunchRequest request{spec,      plan, todo, dir, base,   options.fail_fast,
                        run_point, {},   1,    {},  nullptr};
  std::unique_ptr<Launcher> launcher = in_process_launcher();
  if (options.jobs > 1) {
    bool gpu_points = false;
    for (std::size_t i : todo)  // auto runs on a GPU where there is one
      gpu_points = gpu_points || plan[i].device.is_auto() || is_gpu_point(plan[i], false);
    request.arguments = options.arguments;
    request.jobs = options.jobs;
    request.gpus = !options.gpus.empty() ? given_gpus
                   : gpu_points          ? sweep_gpus("")
                                         : std::vector<int>{};
    request.lock = &lock;
    launcher = child_process_launcher();
  }
  launcher->launch(request, console, tally);
  if (tally.interrupted || interrupt_requested()) {
    // The summary of what completed is still written; a second Ctrl-C stops that too.
    tally.interrupted = true;
    begin_cleanup_after_interrupt();
    console.warning("interrupted: summarising the points that ran (Ctrl-C again to stop)");
  }
  report_folder(dir, console);
  console.result(tally_line(spec.name, tally));
  return sweep_exit_code(tally);
}

}  // namespace runner
