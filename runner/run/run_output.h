// Output shared by the commands that run a model: the tutorial's accuracy lines and the
// common head of every report.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/report/run_record.h"
#include "runner/run/session.h"
#include "runner/train/evaluation.h"

namespace runner {

// "Accuracy of the network on the 10000 test images: 54.00 %" and one line per class ("n/a"
// for a class without test images).
void print_evaluation(Console& console, const Evaluation& evaluation,
                      const std::vector<std::string>& class_names);

// "Accuracy of the network on the 1000 validation images: 55.10 % (loss 1.2345)".
void print_validation(Console& console, const Evaluation& validation);

// "throughput: 21992 images/s (median step), 20517 images/s (whole run)": the figure summaries
// use and the one that counts every stall, side by side; "" for a report without timed steps.
std::string throughput_line(const RunRecord& report);

// The fields every report starts with: mode, name, run id, resolved config and its hash, seed,
// device, backend, environment, model, start time.
RunRecord report_head(const Session& session, RunMode mode, const std::filesystem::path& run_dir,
                      const std::string& config_sha256, const std::string& started_at);

}  // namespace runner
