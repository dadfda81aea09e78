// The registry entry CIFAR-10 and CIFAR-100 share, given how a spec picks its files and record
// layout: a 3x32x32 image, class names from the names file, record counts from the files' sizes,
// the reader of cifar_records, and dataset.url for the download.
#pragma once

#include "runner/data/cifar_records.h"
#include "runner/data/dataset_format.h"

namespace runner {

// kFilesOf: the spec's files and layout (a plain function, so the entry's functions need no
// state of their own).
template <const CifarFiles& (*kFilesOf)(const DatasetSpec&)>
DatasetFormat cifar_format_base() {
  DatasetFormat format;
  format.keys = {"url"};
  format.read = [](const SettingsReader& settings, DatasetSpec& spec) {
    spec.url = settings.text("url", "");
  };
  format.write = [](const DatasetSpec& spec, nlohmann::json& out) {
    if (!spec.url.empty()) out["url"] = spec.url;
  };
  format.image = [](const DatasetSpec&) { return ImageShape{3, 32, 32}; };
  format.class_names = [](const DatasetSpec& spec) {
    return read_cifar_class_names(kFilesOf(spec), spec.root).names;
  };
  format.classes_origin = [](const DatasetSpec& spec) {
    return read_cifar_class_names(kFilesOf(spec), spec.root).origin();
  };
  format.planned_records = [](const DatasetSpec& spec) {
    return planned_cifar_records(kFilesOf(spec), spec.root);
  };
  format.check_files = [](const DatasetSpec& spec) {
    return check_cifar_files(kFilesOf(spec), spec.root);
  };
  format.load = [](const DatasetSpec& spec) { return load_cifar(kFilesOf(spec), spec.root); };
  return format;
}

}  // namespace runner
