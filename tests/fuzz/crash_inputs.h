// The inputs a fuzz target once failed on (tests/fuzz/crashes-NAME/), for the tests that run each
// through the target's path again (config_tests, sweep_tests): in a child process, so that a
// crash or a hang fails that input alone.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace runner::fuzzing {

// The names of the files in tests/fuzz/`folder`, sorted.
std::vector<std::string> crash_inputs(const std::string& folder);

// The bytes of tests/fuzz/`folder`/`name`.
std::string crash_input(const std::string& folder, const std::string& name);

// Runs `body` in a child process (4 GiB of address space, where no sanitizer needs more): "" when
// it returns or throws a UserError within `seconds`, else what happened (an exception escaped, an
// exit status, a signal, still running).
std::string outcome_in_child(const std::function<void()>& body, unsigned seconds = 30);

// A test's name for an input file: its stem, '_' for what is not a letter or a digit.
std::string crash_test_name(const ::testing::TestParamInfo<std::string>& info);

}  // namespace runner::fuzzing
