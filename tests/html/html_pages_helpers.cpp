#include "html_pages_helpers.h"

#include <fstream>

#include "runner/util/files.h"

namespace runner::testing {

std::filesystem::path tiny_run(const std::filesystem::path& output, const std::string& extra,
                               std::string* log) {
  const auto config = source_dir() / "configs" / "tiny_synthetic.yaml";
  CommandResult r =
      run_runner("run '" + config.string() + "' --set dataset.validation_split=0.1 --output '" +
                 output.string() + "' " + extra);
  if (log) *log = r.output;
  return r.exit_code == 0 ? std::filesystem::path(report_path_in(r.output)) : "";
}

std::filesystem::path tiny_sweep(std::string* log) {
  const auto folder = shared_output("pages-sweep", [](const std::filesystem::path& root) {
    const auto config = source_dir() / "configs" / "tiny_synthetic.yaml";
    const auto sweep = root / "pages.yaml";
    std::ofstream(sweep) << "name: pages\nbase: " << config.string()
                         << "\nmode: train\nset: [training.epochs=2, "
                            "dataset.validation_split=0.1]\nsweep:\n  grid:\n"
                            "    model.width: [0.5, 1]\n"
                            "    device: [cpu, cuda]\n";
    CommandResult r =
        run_runner("sweep '" + sweep.string() + "' --output '" + (root / "sweeps").string() + "'");
    std::ofstream(root / "sweep.log") << r.output;
    return std::filesystem::exists(root / "sweeps" / "pages" / "report.html");
  });
  if (log) *log = read_file(folder / "sweep.log");
  return folder / "sweeps" / "pages";
}

}  // namespace runner::testing
