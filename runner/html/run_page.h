// One run's page (`runner report RUN_DIR --html`, `runner run --html`, every sweep point's
// page): what ran, its data, model, curves, per-epoch metrics, per-class results, throughput,
// memory, checkpoint and how to reproduce it, from its report.json alone (read as a RunRecord).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/report/run_record.h"

namespace runner {

struct RunPageLinks {
  std::string up;       // a relative link to the page above (a sweep's), "" for none
  std::string up_text;  // its text ("sweep lenet_width")
};

// The page for `record`, read from `report_file` (named in the reproduce command).
std::string run_page(const RunRecord& record, const std::filesystem::path& report_file,
                     const RunPageLinks& links = {});

// Writes run_page() as report.html beside `report_file`; returns its path.
std::filesystem::path write_run_page(const RunRecord& record,
                                     const std::filesystem::path& report_file,
                                     const RunPageLinks& links = {});

// write_run_page with no links: what a run hands its caller's PageWriter (a run's own page).
std::filesystem::path write_page_of_run(const RunRecord& report,
                                        const std::filesystem::path& report_file);

}  // namespace runner
