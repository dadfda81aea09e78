// `runner validate`, `runner describe` and `runner devices`: look without training.
#include <unistd.h>

#include <thread>

#include <fmt/format.h>

#include "backends/onednn/onednn_backend.h"
#include "runner/cli/commands.h"
#include "runner/cli/layer_table.h"

namespace runner {

int validate_command(const SessionOptions& options) {
  Console console(options.quiet);
  Session session = Session::prepare(options, console);
  console.result(fmt::format("{}: valid ({} layers, {} parameters)", options.config.string(),
                             session.graph.nodes.size(), session.graph.parameter_count()));
  return 0;
}

int describe_command(const SessionOptions& options) {
  Console console(options.quiet);
  Session session = Session::prepare(options, console);
  console.result(layer_table(session.graph));
  return 0;
}

int devices_command() {
  Console console;
  onednn::OnednnBackend cpu;
  DeviceInfo info = cpu.info();
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  console.result(fmt::format("cpu: {}, {:.1f} GiB memory", info.name,
                             static_cast<double>(pages) * page_size / (1u << 30)));
  console.result(fmt::format("  cores: {}, oneDNN {} (ISA {}), default threads {}", info.details["cores"],
                             info.details["onednn_version"], info.details["isa"],
                             resolve_threads(0)));
  console.result("cuda: not available: this runner was built without the cuDNN GPU backend");
  return 0;
}

}  // namespace runner
