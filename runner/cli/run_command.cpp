// `runner run CONFIG`: train, evaluate, checkpoint, reload and re-evaluate, write the report.
#include <fmt/format.h>

#include "runner/cli/commands.h"
#include "runner/html/run_page.h"
#include "runner/run/experiment_run.h"
#include "runner/run/run_output.h"

namespace runner {

int run_command(const RunOptions& options) {
  Console console(options.quiet);
  ExperimentRequest request;
  static_cast<SessionOptions&>(request) = options;
  request.resume = options.resume;
  request.resume_in_place = !options.output_given;
  request.write_page = write_page_of_run;
  ExperimentResult result = run_experiment(request, console);
  if (auto line = throughput_line(result.report); !line.empty()) console.line(line);
  console.result(fmt::format("report: {}", result.report_path.string()));
  if (!result.page_path.empty()) console.result(fmt::format("page: {}", result.page_path.string()));
  return result.exit_code;
}

}  // namespace runner
