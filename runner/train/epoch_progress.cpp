// The training epoch's progress bar.
#include "runner/train/epoch_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

constexpr int kBarWidth = 20;

// "0:42", "12:05", "1:02:03"
std::string clock_time(double seconds) {
  auto total = static_cast<std::int64_t>(std::llround(std::max(0.0, seconds)));
  std::int64_t hours = total / 3600, minutes = total / 60 % 60, rest = total % 60;
  if (hours > 0) return fmt::format("{}:{:02d}:{:02d}", hours, minutes, rest);
  return fmt::format("{}:{:02d}", minutes, rest);
}

}  // namespace

std::string format_epoch_progress(const EpochProgressState& s) {
  double done = s.steps > 0 ? std::clamp(double(s.step) / double(s.steps), 0.0, 1.0) : 0.0;
  int filled = static_cast<int>(done * kBarWidth);
  std::string text = fmt::format("epoch {}/{} [{}{}] {:>{}}/{}", s.epoch, s.epochs,
                                 std::string(filled, '#'), std::string(kBarWidth - filled, '-'),
                                 s.step, fmt::formatted_size("{}", s.steps), s.steps);
  text += fmt::format("  {:.0f} images/s", s.images_per_second);
  text += "  ETA " + (s.eta_seconds >= 0 ? clock_time(s.eta_seconds) : std::string("?"));
  if (s.loss >= 0) text += fmt::format("  loss {:.3f}", s.loss);
  if (s.val_accuracy >= 0) text += fmt::format("  val acc {:.2f} %", 100 * s.val_accuracy);
  return text;
}

EpochProgress::EpochProgress(Console& console, int epochs, std::int64_t steps_per_epoch)
    : console_(console) {
  state_.epochs = epochs;
  state_.steps = steps_per_epoch;
}

void EpochProgress::start_epoch(int epoch) {
  state_.epoch = epoch + 1;
  mark_step_ = -1;
  if (console_.shows_progress()) epoch_start_ = SteadyClock::now();
}

void EpochProgress::step(std::int64_t step, std::int64_t images_in_epoch) {
  if (!console_.progress_due()) return;
  auto now = SteadyClock::now();
  state_.step = step;
  state_.loss = loss_;
  if (mark_step_ < 0 || step <= mark_step_) {  // the first redraw: the epoch so far, no ETA yet
    double seconds = std::chrono::duration<double>(now - epoch_start_).count();
    state_.images_per_second = seconds > 0 ? images_in_epoch / seconds : 0.0;
    state_.eta_seconds = -1;
    mark_ = now;
    mark_step_ = step;
    mark_images_ = images_in_epoch;
  } else {
    double seconds = std::chrono::duration<double>(now - mark_).count();
    state_.images_per_second = seconds > 0 ? (images_in_epoch - mark_images_) / seconds : 0.0;
    state_.eta_seconds = seconds / double(step - mark_step_) * double(state_.steps - step);
  }
  console_.progress(format_epoch_progress(state_));
}

}  // namespace runner
