// The runner executable.
#include "runner/cli/app.h"

int main(int argc, char** argv) {
  return runner::run_cli(argc, argv);
}
