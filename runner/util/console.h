// Console output: results and log lines on stdout, a live progress line on stderr when it is
// a terminal; --quiet keeps only warnings and the final `report:` line. Every text is printed
// with its control characters escaped (terminal_lines): names and paths in it come from files.
#pragma once

#include <chrono>
#include <string>

namespace runner {

class Console {
 public:
  explicit Console(bool quiet = false);
  void line(const std::string& text);     // normal output (suppressed when quiet)
  void warning(const std::string& text);  // always shown, on stderr
  // A warning the same for every run of a sweep (the machine is busy, a device's limits): shown
  // the first time `key` is given in this process, then no more.
  void warning_once(const std::string& key, const std::string& text);
  void result(const std::string& text);  // always shown (the final report line)
  // Redraws the progress line at most a few times a second; a no-op unless stderr is a TTY.
  void progress(const std::string& text);
  // Whether a progress line is shown at all (a terminal, not quiet), and whether progress()
  // would redraw now: callers skip formatting a line that would not be drawn.
  bool shows_progress() const { return terminal_ && !quiet_; }
  bool progress_due() const;
  void end_progress();
  bool quiet() const { return quiet_; }

 private:
  bool quiet_;
  bool terminal_;
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_{};
};

// "1.5 GiB" style sizes for tables.
std::string human_bytes(double bytes);

}  // namespace runner
