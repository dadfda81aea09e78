// training.precision against the device a run got: refused where the device cannot run it, or
// only emulates it and the config does not allow that.
#pragma once

#include <string>

#include "backends/backend.h"
#include "runner/config/experiment.h"

namespace runner {

// Throws a UserError naming the config file and `training.precision`; returns a warning to show
// ("" when none) for an emulated precision that training.allow_emulation lets run.
std::string check_precision(const Experiment& experiment, const DeviceInfo& device);

// The device's precisions as text: "fp32, bf16", with "(emulated)" after those it emulates.
std::string precisions_text(const DeviceInfo& device);

}  // namespace runner
