// How a sweep's points run: one interface, one file per way: one after another in this process
// (in_process_launcher.cpp), up to N at once as child processes of this runner
// (child_process_launcher.cpp, `--jobs N`), or as the tasks of one Slurm job array
// (slurm_launcher.cpp), each task running its point in process on its node. The CLI plans the
// sweep, picks the launcher and prints; ASHA's decisions are taken inside each point's run,
// wherever it runs, so no launcher needs to know of them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/sweep/point_run.h"
#include "runner/sweep/slurm_record.h"
#include "runner/sweep/slurm_settings.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/sweep/sweep_tally.h"
#include "runner/util/console.h"
#include "runner/util/folder_lock.h"

namespace runner {

struct LaunchRequest {
  const SweepSpec& spec;
  const std::vector<PlannedPoint>& plan;
  std::vector<std::size_t> todo;  // indices into plan, in order
  std::filesystem::path dir, base;
  bool fail_fast = false;
  // In this process: runs one point and writes its report (the experiment machinery the CLI has).
  std::function<PointRun(const PlannedPoint&)> run_point;
  // Child processes and Slurm tasks: this command line after `runner` (each adds --point K); how
  // many at once, the GPUs to hand out (empty: GPU points run as configured) and the sweep folder's
  // lock, lent to the children.
  std::vector<std::string> arguments;
  int jobs = 1;
  std::vector<int> gpus;
  const FolderLock* lock = nullptr;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  // Runs the points of `todo` (stopping early on Ctrl-C, or after the first failure with
  // fail_fast), prints a line per point and adds what they came to to `tally`.
  virtual void launch(const LaunchRequest& request, Console& console, SweepTally& tally) = 0;
};

std::unique_ptr<Launcher> in_process_launcher();
// Each point's output goes to <point>/point.log; its status comes from the report it wrote (or,
// when it died first, a `failed` report written here). Ctrl-C is passed on to every child.
std::unique_ptr<Launcher> child_process_launcher();
// Submits one array (of `settings`) whose task K runs `runner sweep <arguments> --point K`, and
// adds the job to `record`, written to <sweep>/slurm/job.json; a dry run prints the batch script
// instead. Nothing runs here: the tally is left as it is.
std::unique_ptr<Launcher> slurm_array_launcher(SlurmSettings settings, SlurmRecord record,
                                               bool dry_run);

}  // namespace runner
