// What every fuzz target (tests/fuzz/*_fuzzer.cpp) counts as a finding besides a crash, a
// sanitizer report, a timeout or running out of memory: an exception other than UserError
// escaping the path it fuzzes. The runner would print a raw library message (exit 1), not a clear
// exit-2 error naming the file and field.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

#include "runner/util/errors.h"

namespace runner::fuzzing {

// Runs `body`: "" when it returns or throws a UserError (the expected answer to a bad input),
// else what escaped ("N6nlohmann...type_errorE: [json.exception.type_error.302] ...").
template <typename Body>
std::string escaped_exception(Body&& body) {
  try {
    body();
  } catch (const UserError&) {
  } catch (const std::exception& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  } catch (...) {
    return "a non-std exception";
  }
  return "";
}

// A fuzz target's LLVMFuzzerTestOneInput body: aborts on a finding, printing what escaped
// `path`, so that libFuzzer reports it and keeps the input.
template <typename Body>
int run_fuzz_input(const char* target, const char* path, Body&& body) {
  std::string escaped = escaped_exception(body);
  if (escaped.empty()) return 0;
  std::fprintf(stderr, "%s: finding: %s escaped %s\n", target, escaped.c_str(), path);
  std::abort();
}

}  // namespace runner::fuzzing
