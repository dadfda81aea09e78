// SIGINT/SIGTERM to a flag polled between training steps.
#include "runner/util/interrupt.h"

#include <csignal>
#include <unistd.h>

#include <atomic>

namespace runner {
namespace {

std::atomic<bool> requested{false};

extern "C" void on_signal(int signal) {
  if (requested.exchange(true)) _exit(128 + signal);  // the second signal: stop now
}

}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupt_requested() { return requested.load(std::memory_order_relaxed); }
void request_interrupt() { requested = true; }

}  // namespace runner
