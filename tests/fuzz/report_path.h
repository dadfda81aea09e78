// Every reader of a report.json, from the report's text: what the report fuzz target and the
// crash-input test run.
#pragma once

#include <filesystem>
#include <string>

namespace runner::fuzzing {

// Writes `text` as the report of a sweep point, `folder`/point/report.json (`folder`: one the
// caller owns), then reads it as each reader does: read_report_file (reproduce, predict, compare,
// report), point_state and describe_state (resuming a sweep) and summarize_folder (a summary's
// row, groups and context, then summary.md), and once more with `text` as the sweep's plan
// (`folder`/sweep.json: the rows, the search's best point). A UserError from any of them is its
// answer to a file that is not a report; anything else escaping (another exception, a crash) is
// a defect.
void check_report_text(const std::string& text, const std::filesystem::path& folder);

// The same text as the sweep folder's other inputs: ASHA's records (asha.json, read by the
// summaries and before each new record), a plot embedded in the sweep's page (plots/*.svg), a
// csv dataset's rows and the image caches (cache_path.h). Called by check_report_text.
void check_sweep_folder_files(const std::string& text, const std::filesystem::path& folder);

}  // namespace runner::fuzzing
