// image_folder: torchvision's ImageFolder layout, root/train/<class>/**/*.png and
// root/test/<class>/ (split names settable; test: null for none; validation: a folder of its own),
// class names and order the sorted folder names, images decoded, converted and resized to
// dataset.image_size.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/data/error_location.h"
#include "runner/data/image_dataset.h"
#include "runner/data/image_files.h"

namespace runner {
namespace {

std::vector<std::string> train_classes(const DatasetSpec& spec) {
  const std::filesystem::path folder = split_path(spec, spec.files.train);
  std::vector<std::string> classes = list_class_folders(folder);
  if (classes.empty()) {
    throw_user_error(at_file(folder), "found no class folders, expected one subfolder per class",
                     "put each class's images in a folder of its own: train/cat/1.png, "
                     "train/dog/2.png, ...");
  }
  return classes;
}

// The first `max_files` files of one split folder (class by class, as ImageFolder orders them),
// labelled by their class folder; its classes must be training's. Only the training split needs
// images of every class (a test class without images shows n/a).
LabelledFiles list_split(const std::filesystem::path& folder,
                         const std::vector<std::string>& classes, bool every_class,
                         std::size_t max_files) {
  const std::vector<std::string> found = list_class_folders(folder);
  if (found != classes) {
    throw_user_error(at_file(folder),
                     fmt::format("found class folders [{}], expected the training split's [{}]",
                                 fmt::join(found, ", "), fmt::join(classes, ", ")),
                     "every split needs the same class folders, in which a class may not be empty");
  }
  LabelledFiles out{folder, {}};
  for (std::size_t label = 0; label < classes.size(); ++label) {
    const std::vector<std::filesystem::path> images = list_image_files(folder / classes[label]);
    if (images.empty() && every_class) {
      throw_user_error(at_file(folder / classes[label]),
                       "found no image files (.png .jpg .jpeg .bmp .webp), expected at least one");
    }
    for (const auto& image : images) {
      if (out.files.size() == max_files) break;  // listed on, for the check above
      out.files.push_back({classes[label] / image, static_cast<std::int32_t>(label)});
    }
  }
  return out;
}

// list_split for the training split's classes.
ListSplit split_lister(std::vector<std::string> classes) {
  return [classes = std::move(classes)](const std::filesystem::path& split, bool training,
                                        std::size_t max_files) {
    return list_split(split, classes, training, max_files);
  };
}

std::int64_t count_images(const std::filesystem::path& folder) {
  std::int64_t count = 0;
  for (const std::string& name : list_class_folders(folder)) {
    count += static_cast<std::int64_t>(list_image_files(folder / name).size());
  }
  return count;
}

}  // namespace

RUNNER_DATASET_FORMAT(image_folder) {
  DatasetFormat format = image_files_format_base();
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    read_image_files_settings(settings, spec, "train", "test");
  };
  format.class_names = train_classes;
  format.planned_records = [](const DatasetSpec& spec) {
    return image_files_records(spec, count_images);
  };
  // validate: every split listed as loading lists it (class folders, links, pseudo file systems,
  // empty classes), without reading an image.
  format.check_files = [](const DatasetSpec& spec) {
    list_image_splits(spec, split_lister(train_classes(spec)));
    return std::vector<std::string>{};
  };
  format.training_labels = [](const DatasetSpec& spec) {
    return labels_of(list_split(split_path(spec, spec.files.train), train_classes(spec), true,
                                files_to_list(0)));
  };
  format.load = [](const DatasetSpec& spec) {
    const std::vector<std::string> classes = train_classes(spec);
    return load_image_splits(spec, classes, split_lister(classes));
  };
  return format;
}

}  // namespace runner
