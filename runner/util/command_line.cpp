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

}  // namespace runner
