// Making pages to test: a tiny run, a tiny sweep and a comparison, by the runner binary.
#pragma once

#include <filesystem>
#include <string>

#include "test_support.h"

namespace runner::testing {

// `runner run` of the tiny synthetic config (2 epochs, a validation split) with `extra`
// arguments, into `output`; the report's path ("" when the run failed: see `log`).
std::filesystem::path tiny_run(const std::filesystem::path& output, const std::string& extra,
                               std::string* log = nullptr);

// A sweep of the tiny config over model.width [0.5, 1] and device [cpu, cuda] (the cuda points
// fail on a machine without a GPU), run once for all the tests that read it (shared_output: read
// it, never write into it); its folder, and in `log` what the sweep printed.
std::filesystem::path tiny_sweep(std::string* log = nullptr);

}  // namespace runner::testing
