// Ctrl-C handling: the first SIGINT/SIGTERM asks the running job to stop at the next step
// boundary (so its report and checkpoint are still written); a second one ends the process.
#pragma once

#include <string>
#include <utility>

namespace runner {

void install_interrupt_handler();
bool interrupt_requested();
// Records an interrupt that arrived another way: a child process (the plot script) that died
// of SIGINT on its own (see child_process.h).
void request_interrupt();

// After a first Ctrl-C has stopped the work: lets the clean-up that follows run (a sweep's
// summary of the points that completed), so that only a second Ctrl-C interrupts it.
void begin_cleanup_after_interrupt();

// Thrown by long loops outside the training steps (listing, hashing, decoding, planning,
// summaries, plots, downloads) once Ctrl-C is pressed; `runner` prints what was interrupted and
// exits with 130. A stop request is not an error: it derives from no std::exception, so that a
// `catch (const std::exception&)` that tolerates a bad file (a plan that counts what it can)
// cannot swallow it and go on for minutes.
class Interrupted {
 public:
  explicit Interrupted(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept { return what_.c_str(); }

 private:
  std::string what_;
};

// Throws Interrupted("interrupted while <doing>") when an interrupt was requested.
void throw_if_interrupted(const char* doing);

// Sleeps `seconds` while polling something (a sweep, a Slurm job), waking every 0.1 s for Ctrl-C,
// which throws Interrupted(`stopped`), e.g. "stopped waiting; the sweep goes on".
void sleep_interruptibly(int seconds, const std::string& stopped);

}  // namespace runner
