// Step times per precision from throwaway programs.
#include "runner/run/precision_timing.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace runner {

std::vector<PrecisionStepTime> time_training_steps(Backend& backend, const Graph& graph,
                                                   CompileOptions options,
                                                   const std::vector<Precision>& precisions,
                                                   int steps) {
  const int batch = options.train_batch;
  std::vector<std::uint8_t> images(static_cast<std::size_t>(batch) * graph.input.elements(), 128);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(batch), 0);
  const TrainBatch train{images.data(), labels.data(), nullptr, batch, 0};
  std::vector<PrecisionStepTime> out;
  for (Precision precision : precisions) {
    options.precision = precision;
    std::unique_ptr<Program> program = backend.compile(graph, options);
    program->train_step(train);  // warm-up: first-touch memory, kernels' one-time set-up
    program->take_loss();        // the host sync point: the step has ended
    std::vector<double> seconds;
    for (int i = 0; i < steps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      program->train_step(train);
      program->take_loss();
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(seconds.begin(), seconds.begin() + steps / 2, seconds.end());
    out.push_back({precision, seconds[static_cast<std::size_t>(steps / 2)]});
  }
  return out;
}

std::vector<Precision> fastest_candidates(const DeviceInfo& device) {
  std::vector<Precision> candidates = {Precision::fp32};
  for (const auto& [precision, support] : device.precisions) {
    if (precision != Precision::fp32 && precision != Precision::fp16 &&
        support == PrecisionSupport::native) {
      candidates.push_back(precision);
    }
  }
  return candidates;
}

Precision fastest_of(const std::vector<PrecisionStepTime>& times) {
  const PrecisionStepTime* best = nullptr;
  for (const PrecisionStepTime& t : times) {
    const bool faster =
        !best || t.median_seconds < best->median_seconds ||
        (t.median_seconds == best->median_seconds && t.precision == Precision::fp32);
    if (faster) best = &t;
  }
  return best ? best->precision : Precision::fp32;
}

std::string precision_choice_line(const PrecisionChoice& choice) {
  if (choice.replayed) {
    return fmt::format("precision: fastest -> {} (the original run's choice, not timed again)",
                       precision_name(choice.chosen));
  }
  std::string times;
  for (const PrecisionStepTime& t : choice.times) {
    times += fmt::format("{}{} {:.2f} ms", times.empty() ? "" : ", ", precision_name(t.precision),
                         1e3 * t.median_seconds);
  }
  return fmt::format("precision: fastest -> {} (a training step: {})",
                     precision_name(choice.chosen), times);
}

std::string slower_precision_warning(Precision asked, const std::vector<PrecisionStepTime>& times,
                                     const std::string& device) {
  const auto time_of = [&](Precision p) -> const PrecisionStepTime* {
    auto it = std::find_if(times.begin(), times.end(),
                           [&](const PrecisionStepTime& t) { return t.precision == p; });
    return it == times.end() ? nullptr : &*it;
  };
  const PrecisionStepTime* mine = time_of(asked);
  const PrecisionStepTime* fp32 = time_of(Precision::fp32);
  if (!mine || !fp32 || asked == Precision::fp32 || mine->median_seconds <= fp32->median_seconds) {
    return "";
  }
  return fmt::format(
      "warning: training.precision {} is slower than fp32 on this {}: a training step took "
      "{:.1f} ms in {} and {:.1f} ms in fp32 ({:.2f}x); train in fp32 here",
      precision_name(asked), device, 1e3 * mine->median_seconds, precision_name(asked),
      1e3 * fp32->median_seconds, fp32->median_seconds / mine->median_seconds);
}

}  // namespace runner
