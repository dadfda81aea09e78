// Image shape and class count from the dataset's format.
#include "runner/graph/dataset_geometry.h"

#include "runner/data/dataset_format.h"

namespace runner {

DatasetGeometry dataset_geometry(const DatasetSpec& spec) {
  const DatasetFormat& format = format_of(spec);
  const ImageShape image = format.image(spec);
  DatasetGeometry geometry;
  geometry.image = Shape{image.channels, image.height, image.width};
  geometry.class_names = format.class_names(spec);
  geometry.classes = static_cast<int>(geometry.class_names.size());
  if (format.classes_origin) geometry.classes_origin = format.classes_origin(spec);
  return geometry;
}

Graph build_graph(const ModelSpec& model, const DatasetGeometry& geometry) {
  return build_graph(model, geometry.image, geometry.classes, geometry.classes_origin);
}

}  // namespace runner
