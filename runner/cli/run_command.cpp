// `runner run CONFIG`: train, evaluate, checkpoint, reload and re-evaluate, write the report.
#include <fmt/format.h>

#include "runner/cli/commands.h"
#include "runner/cli/experiment_run.h"
#include "runner/cli/run_output.h"

namespace runner {

int run_command(const RunOptions& options) {
  Console console(options.quiet);
  ExperimentRequest request;
  static_cast<SessionOptions&>(request) = options;
  request.resume = options.resume;
  ExperimentResult result = run_experiment(request, console);
  if (auto line = throughput_line(result.report); !line.empty()) console.line(line);
  console.result(fmt::format("report: {}", result.report_path.string()));
  if (!result.page_path.empty()) console.result(fmt::format("page: {}", result.page_path.string()));
  return result.exit_code;
}

}  // namespace runner
