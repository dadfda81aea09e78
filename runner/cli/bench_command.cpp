// `runner bench CONFIG` (like `caffe time`): warm-up, timed and profiled training steps, the
// per-layer table against the measured step time, and a benchmark report.
#include <fmt/format.h>

#include "runner/cli/bench_table.h"
#include "runner/cli/commands.h"
#include "runner/html/run_page.h"
#include "runner/run/experiment_run.h"

namespace runner {

int bench_command(const BenchOptions& options) {
  Console console(options.quiet);
  ExperimentRequest request;
  static_cast<SessionOptions&>(request) = options;
  request.mode = RunMode::benchmark;
  request.benchmark = options.benchmark;
  request.write_page = write_page_of_run;
  ExperimentResult result = run_experiment(request, console);
  if (result.status == RunStatus::completed) console.result(bench_table(result.report));
  console.result(fmt::format("report: {}", result.report_path.string()));
  return result.exit_code;
}

}  // namespace runner
