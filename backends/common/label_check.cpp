// The one label check both backends run.
#include "backends/common/label_check.h"

#include <fmt/format.h>

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

}  // namespace runner
