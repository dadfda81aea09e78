// The remembered command line.
#include "runner/util/command_line.h"

namespace runner {
namespace {

std::vector<std::string>& stored() {
  static std::vector<std::string> args;
  return args;
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  stored().assign(argv, argv + argc);
}

const std::vector<std::string>& command_line() {
  return stored();
}

std::string runner_program() {
  return stored().empty() || stored()[0].empty() ? "runner" : shell_quote(stored()[0]);
}

std::string shell_quote(const std::string& text) {
  bool safe = !text.empty() && text.find_first_not_of(
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                   "0123456789_./:=,+-@%") == std::string::npos;
  if (safe) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + shell_quote(word);
  return out;
}

}  // namespace runner
