// The project's error types: user mistakes (exit code 2), library failures, out-of-memory.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// A mistake in the user's input (config, data, command line). `main` prints what() and exits 2.
// The message's long words (a 10 MB path, a 100,000-character value) are shortened here, once
// for every message, report and terminal line it reaches (runner/util/long_text.h).
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what);
};

// Where in an input file a problem sits; any part may be empty or zero when unknown.
struct SourceLocation {
  std::string file;
  std::string path;  // field path, e.g. model.layers[3].kernel
  int line = 0;      // 1-based, 0 when unknown
  int column = 0;
};

// Builds "file:line:col: path: found X, expected Y (hint)" and throws it as a UserError.
[[noreturn]] void throw_user_error(const SourceLocation& where, const std::string& problem,
                                   const std::string& hint = "");

// Formats the location prefix "file:line:col: path: " (parts omitted when unknown).
std::string format_location(const SourceLocation& where);

// A library call failed (oneDNN, CUDA, ...): statement, file:line and the library's message.
class LibraryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A device allocation failed; a sweep records the point and goes on.
class OutOfMemoryError : public std::runtime_error {
 public:
  OutOfMemoryError(const std::string& what, std::size_t requested, std::size_t available)
      : std::runtime_error(what), requested_bytes(requested), available_bytes(available) {}
  std::size_t requested_bytes;
  std::size_t available_bytes;
};

// The closest of `options` to `word` by edit distance, or "" when none is close enough.
std::string nearest_match(const std::string& word, const std::vector<std::string>& options);

}  // namespace runner
