// SIGINT/SIGTERM to a flag polled between training steps.
#include "runner/util/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

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

bool interrupt_requested() {
  return requested.load(std::memory_order_relaxed);
}
void request_interrupt() {
  requested = true;
}

void begin_cleanup_after_interrupt() {
  requested = false;
}

void throw_if_interrupted(const char* doing) {
  if (interrupt_requested()) throw Interrupted(std::string("interrupted while ") + doing);
}

void sleep_interruptibly(int seconds, const std::string& stopped) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (interrupt_requested()) throw Interrupted(stopped);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace runner
