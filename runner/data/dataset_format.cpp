// The registry of dataset formats, listed from the RUNNER_DATASET_FORMAT lines of formats/.
#include "runner/data/dataset_format.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {

#define RUNNER_REGISTRY_ENTRY(name) RUNNER_DATASET_FORMAT(name);
#include "runner/data/dataset_formats.inc"
#undef RUNNER_REGISTRY_ENTRY

namespace {

std::vector<DatasetFormat> registered_formats() {
  std::vector<DatasetFormat> formats;
  auto add = [&formats](const char* name, DatasetFormat format) {
    format.name = name;
    if (!format.read) format.read = [](const SettingsReader&, DatasetSpec&) {};
    if (!format.write) format.write = [](const DatasetSpec&, nlohmann::json&) {};
    formats.push_back(std::move(format));
  };
#define RUNNER_REGISTRY_ENTRY(name) add(#name, dataset_format_##name());
#include "runner/data/dataset_formats.inc"
#undef RUNNER_REGISTRY_ENTRY
  return formats;
}

}  // namespace

const std::vector<DatasetFormat>& dataset_formats() {
  static const std::vector<DatasetFormat> formats = registered_formats();
  return formats;
}

const DatasetFormat* find_dataset_format(const std::string& name) {
  for (const DatasetFormat& format : dataset_formats()) {
    if (format.name == name) return &format;
  }
  return nullptr;
}

std::vector<std::string> dataset_format_names() {
  std::vector<std::string> names;
  for (const DatasetFormat& format : dataset_formats()) names.push_back(format.name);
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string>& common_dataset_keys() {
  static const std::vector<std::string> keys = {
      "name",    "root",        "download",   "normalize", "shuffle",         "sampler",
      "workers", "train_limit", "test_limit", "augment",   "validation_split"};
  return keys;
}

const DatasetFormat& format_of(const DatasetSpec& spec) {
  if (spec.format) return *spec.format;
  if (const DatasetFormat* format = find_dataset_format(spec.name)) return *format;
  const std::vector<std::string> known = dataset_format_names();
  std::string hint = fmt::format("known datasets: {}", fmt::join(known, ", "));
  if (auto near = nearest_match(spec.name, known); !near.empty()) {
    hint = fmt::format("did you mean {}? {}", near, hint);
  }
  throw UserError(fmt::format("dataset.name: unknown dataset '{}' ({})", spec.name, hint));
}

}  // namespace runner
