// The config keys and split decoding the image-file formats share.
#include "runner/data/image_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runner/data/augmentation.h"
#include "runner/data/encoded_images.h"
#include "runner/util/digest.h"

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

// dataset.eval_transform: [{resize: {size: S | [h, w]}}, {center_crop: {}}], either or both in
// that order (the schema checked each step's shape).
ImageFit read_eval_transform(const SettingsReader& settings, const ImageShape& image) {
  ImageFit fit;
  if (!settings.has("eval_transform")) return fit;
  const nlohmann::json& steps = settings.raw("eval_transform");
  auto refuse = [&](std::size_t i, const std::string& problem) {
    SourceLocation where = settings.where("eval_transform");
    where.path += fmt::format("[{}]", i);
    throw_user_error(where, problem,
                     "expected [{resize: {size: S}}, {center_crop: {}}], either step or both in "
                     "that order");
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    // One key per step (the schema checked it): its kind and its options.
    const std::string kind = steps[i].begin().key();
    const nlohmann::json& options = steps[i].begin().value();
    if (kind == "resize") {
      if (i > 0) refuse(i, "a resize after another step");
      const nlohmann::json& size = options.at("size");
      if (size.is_number_integer()) {
        fit.shorter_side = size.get<int>();
      } else {
        fit.resize_height = size[0].get<int>();
        fit.resize_width = size[1].get<int>();
      }
    } else {  // center_crop: to the model's input size, the only size it may give
      if (fit.center_crop) refuse(i, "a second center_crop");
      if (options.contains("size")) {
        const nlohmann::json& size = options["size"];
        const bool same =
            size.is_number_integer()
                ? image.height == size.get<int>() && image.width == size.get<int>()
                : image.height == size[0].get<int>() && image.width == size[1].get<int>();
        if (!same) {
          refuse(i, fmt::format("center_crop of {}, but dataset.image_size is [{}, {}] (the "
                                "model's input: a crop of another size cannot feed it)",
                                size.dump(), image.height, image.width));
        }
      }
      fit.center_crop = true;
    }
  }
  return fit;
}

nlohmann::json eval_transform_json(const ImageFit& fit, const ImageShape& image) {
  nlohmann::json steps = nlohmann::json::array();
  if (fit.shorter_side > 0) steps.push_back({{"resize", {{"size", fit.shorter_side}}}});
  if (fit.resize_height > 0) {
    steps.push_back({{"resize", {{"size", {fit.resize_height, fit.resize_width}}}}});
  }
  if (fit.center_crop) {
    steps.push_back({{"center_crop", {{"size", {image.height, image.width}}}}});
  }
  return steps;
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
  f.max_image_bytes = settings.wide("max_image_bytes", kDefaultMaxImageBytes);
  f.eval_fit = read_eval_transform(settings, f.image);
  f.eval_fit.jpeg_draft = settings.flag("jpeg_draft", false);
  const std::string decode = settings.text("decode", "once");
  if (decode != "once" && decode != "per_epoch") settings.wrong("decode", "once or per_epoch");
  f.decode_per_epoch = decode == "per_epoch";
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
  out["max_image_bytes"] = f.max_image_bytes;
  // Only when given, so configs without it keep their hash.
  if (!f.eval_fit.is_default()) out["eval_transform"] = eval_transform_json(f.eval_fit, f.image);
  if (f.decode_per_epoch) out["decode"] = "per_epoch";  // as eval_transform: only when given
  if (f.eval_fit.jpeg_draft) out["jpeg_draft"] = true;  // likewise
}

DatasetFormat image_files_format_base() {
  DatasetFormat format;
  format.keys = {"image_size",     "channels",    "train",     "test",
                 "validation",     "on_bad_file", "cache",     "max_image_bytes",
                 "eval_transform", "decode",      "jpeg_draft"};
  format.write = write_image_files_settings;
  format.image = [](const DatasetSpec& spec) { return spec.files.image; };
  return format;
}

DatasetRecords image_files_records(const DatasetSpec& spec, CountSplit count) {
  const ImageShape image = spec.files.image;
  DatasetRecords records;
  records.image_bytes = std::int64_t{image.channels} * image.height * image.width;
  records.decoding_bytes = spec.files.max_image_bytes;
  auto counted = [&](const std::string& split) -> std::int64_t {
    try {  // the listing only; loading names any problem
      return count(split_path(spec, split));
    } catch (const std::exception&) {
      return 0;
    }
  };
  records.train = counted(spec.files.train);
  records.train_per_epoch = spec.files.decode_per_epoch;
  if (!spec.files.test_absent) records.test = counted(spec.files.test);
  return records;
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

std::size_t files_to_list(std::int64_t limit) {
  return limit > 0 ? static_cast<std::size_t>(limit) : std::numeric_limits<std::size_t>::max();
}

namespace {

// The least size a training JPEG decoded per epoch may be decoded at (dataset.jpeg_draft): what
// a first step made for any size resizes it to (none for a crop), else the model's input, to
// which it is resized first.
DraftSize per_epoch_draft(const DatasetSpec& spec) {
  if (!spec.files.eval_fit.jpeg_draft) return {};
  if (!spec.augment.empty() && spec.augment.front().op->takes_any_size()) {
    return spec.augment.front().op->jpeg_draft();
  }
  return {spec.files.image.height, spec.files.image.width};
}

ImageSetRequest image_set_request(const DatasetSpec& spec, const std::filesystem::path& root,
                                  std::vector<LabelledFile> files, const ImageFit& fit) {
  ImageSetRequest request;
  request.fit = fit;
  request.root = root;
  request.files = std::move(files);
  request.channels = spec.files.image.channels;
  request.height = spec.files.image.height;
  request.width = spec.files.image.width;
  request.workers = image_decoding_workers(spec);
  request.on_bad_file = spec.files.on_bad_file;
  request.cache_folder = spec.files.cache;
  request.max_image_bytes = spec.files.max_image_bytes;
  return request;
}

// Appends to `set` the images of `more` (decoded from `files`) until it holds `limit`: the files
// after the one that completes it were tried in vain, and are neither kept nor listed as skipped.
void append_images(ImageSet& set, ImageSet&& more, const std::vector<LabelledFile>& files,
                   std::size_t limit) {
  const std::size_t needed = limit - set.size();
  std::size_t kept = 0, skipped = 0;  // of `more`, in the order of `files`
  for (const LabelledFile& file : files) {
    if (kept == needed) break;
    const bool left_out = skipped < more.skipped.size() && more.skipped[skipped].path == file.path;
    left_out ? ++skipped : ++kept;
  }
  const std::size_t plane = static_cast<std::size_t>(set.channels) * set.height * set.width;
  set.images.insert(set.images.end(), more.images.begin(),
                    more.images.begin() + static_cast<std::ptrdiff_t>(kept * plane));
  set.labels.insert(set.labels.end(), more.labels.begin(),
                    more.labels.begin() + static_cast<std::ptrdiff_t>(kept));
  if (!more.files.empty()) {  // listed, not decoded
    set.files.insert(set.files.end(), more.files.begin(),
                     more.files.begin() + static_cast<std::ptrdiff_t>(kept));
  }
  set.skipped.insert(set.skipped.end(), more.skipped.begin(),
                     more.skipped.begin() + static_cast<std::ptrdiff_t>(skipped));
  set.warnings.insert(set.warnings.end(), more.warnings.begin(), more.warnings.end());
  set.from_cache = set.from_cache && more.from_cache;
}

// The images of a split: every file `list` gives, or with a limit the first `limit` that decode.
// Only on_bad_file skip can leave a limited round short; the files after it are then tried in
// rounds of at least as many as were tried before, so that a run of bad files costs few rounds
// (each one decoded set, cached, whose fingerprints the split's fingerprint covers).
ImageSet read_split_images(const DatasetSpec& spec,
                           const std::function<LabelledFiles(std::size_t)>& list, std::size_t limit,
                           const ImageFit& fit, bool list_only, std::filesystem::path& root) {
  const auto read = [&](std::vector<LabelledFile> files) {
    const ImageSetRequest request = image_set_request(spec, root, std::move(files), fit);
    return list_only ? list_image_set(request) : read_image_set(request);
  };
  std::size_t requested = files_to_list(static_cast<std::int64_t>(limit));
  LabelledFiles listed = list(requested);
  root = listed.root;
  ImageSet set = read(listed.files);
  std::string fingerprints = set.fingerprint;
  int rounds = 1;
  while (limit > 0 && set.size() < limit && listed.files.size() == requested) {
    const std::size_t tried = requested;
    requested = tried + std::max(limit - set.size(), tried);
    listed = list(requested);
    if (listed.files.size() <= tried) break;
    std::vector<LabelledFile> more(listed.files.begin() + static_cast<std::ptrdiff_t>(tried),
                                   listed.files.end());
    ImageSet next = read(more);
    fingerprints += "\n" + next.fingerprint;
    ++rounds;
    append_images(set, std::move(next), more, limit);
  }
  if (rounds > 1) set.fingerprint = sha256_hex(fingerprints);
  return set;
}

// Decodes a split's files (`list`, from `listed`, the split's folder or CSV; the first `limit`
// that decode, 0: all) into a split; skipped files become warnings and counts in `splits`.
Dataset decode_split(const DatasetSpec& spec, const std::filesystem::path& listed,
                     const std::function<LabelledFiles(std::size_t)>& list, std::size_t limit,
                     const std::vector<std::string>& class_names, const std::string& which,
                     DatasetSplits& splits) {
  std::filesystem::path root;
  // The held-out splits are fitted as dataset.eval_transform says, the training split resized.
  const bool training = which == std::string("train");
  ImageFit fit = training ? ImageFit{} : spec.files.eval_fit;
  fit.jpeg_draft = spec.files.eval_fit.jpeg_draft;
  // dataset.decode: per_epoch lists the training split; its batches decode it.
  const bool per_epoch = training && spec.files.decode_per_epoch;
  ImageSet set = read_split_images(spec, list, limit, fit, per_epoch, root);

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
  if (per_epoch) {
    auto encoded = std::make_shared<EncodedImages>();
    encoded->root = root;
    encoded->files = std::move(set.files);
    encoded->channels = set.channels;
    encoded->max_image_bytes = spec.files.max_image_bytes;
    encoded->draft = per_epoch_draft(spec);
    encoded->skip_bad_files = spec.files.on_bad_file == OnBadFile::skip;
    split.encoded = std::move(encoded);
  }
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
  splits.summary[which] = {
      {"folder", root.string()},   {"decode", per_epoch ? "per_epoch" : "once"},
      {"images", split.size()},    {"skipped", set.skipped.size()},
      {"sha256", set.fingerprint}, {"decoded_from_cache", set.from_cache},
      {"per_class", per_class}};
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
  auto split = [&](const std::string& name, const char* which, bool training, std::int64_t limit) {
    const std::filesystem::path listed = split_path(spec, name);
    return decode_split(
        spec, listed, [&](std::size_t max_files) { return list(listed, training, max_files); },
        static_cast<std::size_t>(limit), class_names, which, splits);
  };
  splits.train = split(spec.files.train, "train", true, spec.train_limit);
  if (!spec.files.validation.empty()) {
    splits.validation = split(spec.files.validation, "validation", false, 0);
  }
  splits.test = spec.files.test_absent ? empty_split(spec, class_names)
                                       : split(spec.files.test, "test", false, spec.test_limit);
  finish_image_splits(splits);
  return splits;
}

void list_image_splits(const DatasetSpec& spec, const ListSplit& list) {
  list(split_path(spec, spec.files.train), true, files_to_list(spec.train_limit));
  if (!spec.files.validation.empty()) {
    list(split_path(spec, spec.files.validation), false, files_to_list(0));
  }
  if (!spec.files.test_absent) {
    list(split_path(spec, spec.files.test), false, files_to_list(spec.test_limit));
  }
}

}  // namespace runner
