// Image shape and class count per dataset kind.
#include "runner/data/dataset_geometry.h"

#include "runner/util/errors.h"

namespace runner {

DatasetGeometry dataset_geometry(const DatasetSpec& spec) {
  if (spec.name == "cifar10") return {{3, 32, 32}, 10};
  if (spec.name == "mnist" || spec.name == "fashion_mnist") return {{1, 28, 28}, 10};
  if (spec.name == "synthetic") {
    const SyntheticSpec& s = spec.synthetic;
    return {{s.channels, s.height, s.width}, s.classes};
  }
  throw UserError("dataset.name: unknown dataset '" + spec.name + "'");
}

}  // namespace runner
