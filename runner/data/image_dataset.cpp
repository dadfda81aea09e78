// The config keys and split decoding the image-file formats share.
#include "runner/data/image_dataset.h"

#include <fmt/format.h>

#include "runner/util/digest.h"
#include "runner/util/threads.h"

namespace runner {
namespace {

// image_size: a side (square) or [height, width]; required, since images arrive in any size.
void read_image_size(const SettingsReader& settings, ImageShape& image) {
  const nlohmann::json& size = settings.raw("image_size");
  const char* expected =
      "[height, width] (or one side for a square) that every image is resized to";
  if (!settings.has("image_size")) {
    throw_user_error(settings.where("image_size"), fmt::format("missing, expected {}", expected),
                     "images come in any size; the model takes one, e.g. image_size: [32, 32]");
  }
  if (size.is_number_integer()) {
    image.height = image.width = size.get<int>();
  } else if (size.is_array() && size.size() == 2 && size[0].is_number_integer() &&
             size[1].is_number_integer()) {
    image.height = size[0].get<int>();
    image.width = size[1].get<int>();
  } else {
    settings.wrong("image_size", expected);
  }
  if (image.height < 1 || image.width < 1 || image.height > 4096 || image.width > 4096) {
    settings.wrong("image_size", "sides from 1 to 4096");
  }
}

}  // namespace

void read_image_files_settings(const SettingsReader& settings, DatasetSpec& spec,
                               const std::string& train, const std::string& test) {
  ImageFilesSpec& f = spec.files;
  read_image_size(settings, f.image);
  f.image.channels = settings.integer("channels", 3);
  if (f.image.channels != 1 && f.image.channels != 3) {
    settings.wrong("channels", "1 (grayscale) or 3 (RGB)");
  }
  f.train = settings.text("train", train);
  f.test_absent = settings.has("test") && settings.raw("test").is_null();
  f.test = f.test_absent ? "" : settings.text("test", test);
  f.validation = settings.text("validation", "");
  const std::string on_bad_file = settings.text("on_bad_file", "error");
  if (on_bad_file != "error" && on_bad_file != "skip")
    settings.wrong("on_bad_file", "error or skip");
  f.on_bad_file = on_bad_file == "skip" ? OnBadFile::skip : OnBadFile::error;
  f.cache = settings.text("cache", "");
}

void write_image_files_settings(const DatasetSpec& spec, nlohmann::json& out) {
  const ImageFilesSpec& f = spec.files;
  out["image_size"] = {f.image.height, f.image.width};
  out["channels"] = f.image.channels;
  out["train"] = f.train;
  out["test"] = f.test_absent ? nlohmann::json(nullptr) : nlohmann::json(f.test);
  if (!f.validation.empty()) out["validation"] = f.validation;
  out["on_bad_file"] = f.on_bad_file == OnBadFile::skip ? "skip" : "error";
  if (!f.cache.empty()) out["cache"] = f.cache;
}

DatasetFormat image_files_format_base() {
  DatasetFormat format;
  format.keys = {"image_size", "channels", "train", "test", "validation", "on_bad_file", "cache"};
  format.write = write_image_files_settings;
  format.image = [](const DatasetSpec& spec) { return spec.files.image; };
  return format;
}

std::filesystem::path split_path(const DatasetSpec& spec, const std::string& split) {
  const std::filesystem::path path = split;
  return path.is_absolute() ? path : std::filesystem::path(spec.root) / path;
}

std::vector<std::int32_t> labels_of(const LabelledFiles& files) {
  std::vector<std::int32_t> labels;
  for (const LabelledFile& file : files.files) labels.push_back(file.label);
  return labels;
}

namespace {

// Decodes `files` (listed from `listed`, the split's folder or CSV) into a split; skipped files
// become warnings and counts in `splits`.
Dataset decode_split(const DatasetSpec& spec, const std::filesystem::path& listed,
                     const LabelledFiles& files, const std::vector<std::string>& class_names,
                     const std::string& which, DatasetSplits& splits) {
  ImageSetRequest request;
  request.root = files.root;
  request.files = files.files;
  request.channels = spec.files.image.channels;
  request.height = spec.files.image.height;
  request.width = spec.files.image.width;
  // Decoding runs before training, with no compute threads to share the cores with.
  request.workers = spec.workers.value_or(available_cores());
  request.on_bad_file = spec.files.on_bad_file;
  request.cache_folder = spec.files.cache;
  ImageSet set = read_image_set(request);

  Dataset split;
  split.name = spec.name;
  split.source = listed.string();
  split.setting = "dataset." + which;
  split.channels = set.channels;
  split.height = set.height;
  split.width = set.width;
  split.class_names = class_names;
  split.images = std::move(set.images);
  split.labels = std::move(set.labels);
  for (const SkippedFile& skipped : set.skipped) {
    splits.warnings.push_back(fmt::format("warning: skipped {}", skipped.reason));
  }
  splits.warnings.insert(splits.warnings.end(), set.warnings.begin(), set.warnings.end());
  nlohmann::json per_class = nlohmann::json::object();
  for (const std::string& name : class_names) per_class[name] = 0;
  for (std::int32_t label : split.labels) {
    per_class[class_names.at(static_cast<std::size_t>(label))] =
        per_class[class_names[static_cast<std::size_t>(label)]].get<int>() + 1;
  }
  if (!splits.summary.is_object()) splits.summary = nlohmann::json::object();
  splits.summary[which] = {{"folder", files.root.string()},        {"images", split.size()},
                           {"skipped", set.skipped.size()},        {"sha256", set.fingerprint},
                           {"decoded_from_cache", set.from_cache}, {"per_class", per_class}};
  return split;
}

// A split without images (test: null), of the spec's image and `class_names`.
Dataset empty_split(const DatasetSpec& spec, const std::vector<std::string>& class_names) {
  const ImageShape image = spec.files.image;
  return Dataset{spec.name,      "",           "dataset.test",
                 image.channels, image.height, image.width,
                 class_names,    {},           {}};
}

// One digest over the splits' fingerprints (the report's data.sha256).
void finish_image_splits(DatasetSplits& splits) {
  std::string all;
  for (const char* which : {"train", "validation", "test"}) {
    if (splits.summary.contains(which)) {
      all += fmt::format("{} {}\n", which, splits.summary[which]["sha256"].get<std::string>());
    }
  }
  splits.digest = sha256_hex(all);
}

}  // namespace

DatasetSplits load_image_splits(const DatasetSpec& spec,
                                const std::vector<std::string>& class_names,
                                const ListSplit& list) {
  DatasetSplits splits;
  auto split = [&](const std::string& name, const char* which, bool training) {
    const std::filesystem::path listed = split_path(spec, name);
    return decode_split(spec, listed, list(listed, training), class_names, which, splits);
  };
  splits.train = split(spec.files.train, "train", true);
  if (!spec.files.validation.empty()) {
    splits.validation = split(spec.files.validation, "validation", false);
  }
  splits.test = spec.files.test_absent ? empty_split(spec, class_names)
                                       : split(spec.files.test, "test", false);
  finish_image_splits(splits);
  return splits;
}

void list_image_splits(const DatasetSpec& spec, const ListSplit& list) {
  list(split_path(spec, spec.files.train), true);
  if (!spec.files.validation.empty()) list(split_path(spec, spec.files.validation), false);
  if (!spec.files.test_absent) list(split_path(spec, spec.files.test), false);
}

}  // namespace runner
