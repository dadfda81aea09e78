// Image shape and class count per dataset kind.
#include "runner/data/dataset_geometry.h"

#include "runner/config/dataset_image.h"
#include "runner/util/errors.h"

namespace runner {

DatasetGeometry dataset_geometry(const DatasetSpec& spec) {
  const std::optional<ImageShape> image = dataset_image(spec);
  if (!image) throw UserError("dataset.name: unknown dataset '" + spec.name + "'");
  const int classes = spec.name == "synthetic" ? spec.synthetic.classes : 10;
  return {{image->channels, image->height, image->width}, classes};
}

}  // namespace runner
