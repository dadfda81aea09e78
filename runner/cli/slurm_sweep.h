// `runner sweep SWEEP.yaml --launcher slurm` (or a sweep file with `launcher: {type: slurm}`):
// plans the sweep here, submits one job array whose task K runs `runner sweep ... --point K`
// for each point not completed (nor already queued), and records the job in the sweep folder.
#pragma once

#include "runner/cli/commands.h"

namespace runner {

// True when the points go to Slurm: --launcher slurm, or the sweep file's launcher: block says
// slurm and --launcher does not say local. Never for `--point K` (a task runs its point here).
bool launches_on_slurm(const SweepOptions& options);

// Exit code 0 when submitted (or nothing was left to submit); with --wait, that of the wait.
int slurm_sweep_command(const SweepOptions& options);

}  // namespace runner
