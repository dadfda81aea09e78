// Refusing a precision a device lacks, with what the device has instead.
#include "runner/run/precision_check.h"

#include <fmt/format.h>

namespace runner {
namespace {

std::string device_text(const Experiment& experiment, const DeviceInfo& device) {
  std::string text = fmt::format("{} ({}", device.device, device.name);
  if (device.details.contains("isa")) text += ", oneDNN ISA " + device.details.at("isa");
  text += ")";
  if (experiment.device.is_auto()) text += ", the device `device: auto` chose,";
  return text;
}

std::string unsupported_hint(Precision wanted, const DeviceInfo& device) {
  if (device.backend == "onednn") {
    if (wanted == Precision::tf32 || wanted == Precision::fp16) {
      return "tf32 and fp16 are GPU precisions; on a CPU use fp32, or bf16 on one with "
             "AVX512-BF16 or AMX";
    }
    return "bf16 needs an AVX-512 CPU (natively with AVX512-BF16 or AMX); use fp32 here";
  }
  if (wanted == Precision::fp16) {
    return "fp16 needs compute capability 7.0 or newer; use fp32 there";
  }
  return "tf32 and bf16 need compute capability 8.0 or newer; use fp16 (from 7.0) or fp32 there";
}

}  // namespace

std::string precisions_text(const DeviceInfo& device) {
  std::string text;
  for (const auto& [precision, support] : device.precisions) {
    if (!text.empty()) text += ", ";
    text += precision_name(precision);
    if (support == PrecisionSupport::emulated) text += " (emulated)";
  }
  return text;
}

std::string check_precision(const Experiment& experiment, const DeviceInfo& device) {
  const Precision wanted = experiment.training.precision;
  const SourceLocation where{experiment.source_file, "training.precision"};
  const std::string name(precision_name(wanted));
  const auto found = device.precisions.find(wanted);
  if (found == device.precisions.end()) {
    throw_user_error(where,
                     fmt::format("found {}, but {} cannot run it: it runs {}", name,
                                 device_text(experiment, device), precisions_text(device)),
                     unsupported_hint(wanted, device));
  }
  if (found->second == PrecisionSupport::native) return "";
  const std::string why = fmt::format(
      "{} has no {} arithmetic (AVX512-BF16 or AMX): oneDNN would emulate it, slower "
      "than fp32",
      device_text(experiment, device), name);
  if (!experiment.training.allow_emulation) {
    throw_user_error(where, fmt::format("found {}, but {}", name, why),
                     "expected fp32, or training.allow_emulation: true to run it emulated anyway");
  }
  return fmt::format("warning: training.precision {}: {} (training.allow_emulation is set)", name,
                     why);
}

}  // namespace runner
