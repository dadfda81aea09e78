// Running a sweep point and turning what stopped it into its status.
#include "runner/sweep/sweep_point_run.h"

#include <new>

#include "runner/report/environment.h"
#include "runner/report/event_file.h"
#include "runner/run/experiment_run.h"
#include "runner/sweep/asha_trial.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"

namespace runner {

PointRun run_sweep_point(const PlannedPoint& planned, const SweepSpec& spec,
                         const std::filesystem::path& base_config,
                         const std::filesystem::path& sweep_dir, bool verbose,
                         const PageWriter& write_page) {
  const SweepPoint& point = planned.point;
  const std::string started_at = timestamp_now();
  auto record = [&](RunStatus status, const std::string& error) {
    return record_point(planned, spec, base_config, sweep_dir, status, error, started_at);
  };
  if (!planned.valid) return record(RunStatus::invalid, planned.error);

  ExperimentRequest request;
  request.config = base_config;
  request.overrides = point.overrides;
  request.tags = spec.tags;
  request.quiet = !verbose;
  request.mode = spec.mode;
  request.benchmark = spec.benchmark;
  request.run_dir = {sweep_dir, point.id};
  request.sweep_point = sweep_point_record(planned, spec);
  request.print_layers = verbose;
  request.write_page = write_page;
  // Beside the other points' (`tensorboard --logdir SWEEP_DIR` compares them), not in the point's
  // own folder.
  request.tensorboard_dir = {sweep_dir, std::filesystem::path("tensorboard") / point.id};
  // A point that runs again replaces its report, and its curves with it: TensorBoard would draw
  // the superseded run's event file beside the new one.
  remove_event_files(request.tensorboard_dir);
  if (spec.asha) {
    request.stop_after_epoch = asha_gate(*spec.asha, sweep_dir, planned);
    request.asha = asha_report_block(*spec.asha, planned);
  }
  Console console(!verbose);
  try {
    ExperimentResult result = run_experiment(request, console);
    return {result.status, result.report};
  } catch (const OutOfMemoryError& error) {
    return record(RunStatus::out_of_memory, error.what());
  } catch (const std::bad_alloc&) {
    return record(RunStatus::out_of_memory, "the host ran out of memory (std::bad_alloc)");
  } catch (const Interrupted& error) {  // Ctrl-C while its data was loaded or downloaded
    return record(RunStatus::interrupted, error.what());
  } catch (const std::exception& error) {
    // The config was valid when planned: a UserError now is the device (no GPU backend) or the
    // data.
    return record(RunStatus::failed, error.what());
  }
}

}  // namespace runner
