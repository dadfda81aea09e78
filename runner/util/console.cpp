// Console output with an optional live progress line.
#include "runner/util/console.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <set>

#include "runner/util/terminal_text.h"

namespace runner {

Console::Console(bool quiet) : quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1) {}

void Console::line(const std::string& text) {
  if (quiet_) return;
  end_progress();
  std::fprintf(stdout, "%s\n", terminal_lines(text).c_str());
  std::fflush(stdout);
}

void Console::warning(const std::string& text) {
  end_progress();
  std::fprintf(stderr, "%s\n", terminal_lines(text).c_str());
}

void Console::warning_once(const std::string& key, const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> shown;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!shown.insert(key).second) return;
  }
  warning(text);
}

void Console::result(const std::string& text) {
  end_progress();
  std::fprintf(stdout, "%s\n", terminal_lines(text).c_str());
  std::fflush(stdout);
}

namespace {
constexpr auto kProgressInterval = std::chrono::milliseconds(200);
}

bool Console::progress_due() const {
  if (!shows_progress()) return false;
  return !progress_shown_ || std::chrono::steady_clock::now() - last_progress_ >= kProgressInterval;
}

void Console::progress(const std::string& text) {
  if (!shows_progress()) return;
  auto now = std::chrono::steady_clock::now();
  if (progress_shown_ && now - last_progress_ < kProgressInterval) return;
  last_progress_ = now;
  std::fprintf(stderr, "\r\033[K%s", terminal_safe(text).c_str());
  std::fflush(stderr);
  progress_shown_ = true;
}

void Console::end_progress() {
  if (!progress_shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  progress_shown_ = false;
}

std::string human_bytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace runner
