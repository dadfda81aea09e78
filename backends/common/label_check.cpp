// The one label check both backends run.
#include "backends/common/label_check.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runner/util/errors.h"

namespace runner {

void check_labels(const std::int32_t* labels, std::int64_t count, int classes,
                  const std::string& what) {
  for (std::int64_t i = 0; i < count; ++i) {
    if (labels[i] >= 0 && labels[i] < classes) continue;
    throw UserError(fmt::format("the label of {} is {}, outside 0..{}: the model has {} outputs",
                                fmt::format(fmt::runtime(what), i), labels[i], classes - 1,
                                classes));
  }
}

void check_batch_mix(const batch_mix::BatchMix& mix, int height, int width, bool weighted_loss) {
  if (!batch_mix::active(mix)) return;
  if (!(mix.lam >= 0 && mix.lam <= 1)) {
    throw std::logic_error(fmt::format("a batch mixed with lam {}, outside [0, 1]", mix.lam));
  }
  if (weighted_loss) {
    throw std::logic_error("mixup and cutmix take the plain cross-entropy (no class weights)");
  }
  const bool box_inside = 0 <= mix.top && mix.top <= mix.bottom && mix.bottom <= height &&
                          0 <= mix.left && mix.left <= mix.right && mix.right <= width;
  if (mix.cut && !box_inside) {
    throw std::logic_error(fmt::format("a cutmix box [{}, {}) x [{}, {}) outside a {}x{} image",
                                       mix.top, mix.bottom, mix.left, mix.right, height, width));
  }
}

}  // namespace runner
