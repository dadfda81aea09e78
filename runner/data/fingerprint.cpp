// File fingerprints, their cache ($XDG_CACHE_HOME or ~/.cache, runner/data-fingerprints.json:
// the data folders themselves may be read-only, like /usr/share/datasets) and known datasets.
#include "runner/data/fingerprint.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <mutex>

#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/folders.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

fs::path cache_file() {
  const fs::path folder = runner_cache_folder();
  return folder.empty() ? folder : folder / "data-fingerprints.json";
}

// The cache: absolute path -> {bytes, mtime, sha256}. Unreadable or foreign content is ignored.
nlohmann::json read_cache(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  nlohmann::json cache = nlohmann::json::parse(in, nullptr, false);
  return cache.is_object() ? cache : nlohmann::json::object();
}

std::string cache_key(const fs::path& file) {
  std::error_code error;
  fs::path absolute = fs::absolute(file, error);
  return (error ? file : absolute).lexically_normal().string();
}

std::int64_t modified_ns(const fs::path& file) {
  std::error_code error;
  auto time = fs::last_write_time(file, error);
  return error ? 0 : static_cast<std::int64_t>(time.time_since_epoch().count());
}

// Fashion-MNIST as Debian's dataset-fashion-mnist ships it (gzipped IDX), hashed here; a file
// not listed (MNIST's own, say) is not checked.
const std::map<std::string, std::string>& known_files() {
  static const std::map<std::string, std::string> known = {
      {"b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7", "fashion_mnist"},
      {"0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056", "fashion_mnist"},
      {"cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa", "fashion_mnist"},
      {"8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05", "fashion_mnist"},
      // The same four gunzipped (hashed here from Debian's files through gunzip).
      {"c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888", "fashion_mnist"},
      {"bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9", "fashion_mnist"},
      {"5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b", "fashion_mnist"},
      {"0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34", "fashion_mnist"},
  };
  return known;
}

}  // namespace

std::vector<FileFingerprint> fingerprint_files(const std::vector<fs::path>& files) {
  static std::mutex mutex;  // sweep points in threads share the cache file
  std::lock_guard lock(mutex);
  const fs::path cache_path = cache_file();
  nlohmann::json cache = cache_path.empty() ? nlohmann::json::object() : read_cache(cache_path);
  bool changed = false;
  std::vector<FileFingerprint> out;
  for (const fs::path& file : files) {
    FileFingerprint print;
    print.path = file.string();
    std::error_code error;
    print.bytes = fs::file_size(file, error);
    const std::string key = cache_key(file);
    const std::int64_t modified = modified_ns(file);
    const nlohmann::json& hit = cache.contains(key) ? cache[key] : nlohmann::json();
    if (hit.is_object() && hit.value("bytes", std::uintmax_t{0}) == print.bytes &&
        hit.value("modified_ns", std::int64_t{0}) == modified && hit.contains("sha256") &&
        hit["sha256"].is_string()) {
      print.sha256 = hit["sha256"].get<std::string>();
    } else {
      print.sha256 = sha256_hex_of_file(file);
      cache[key] = {{"bytes", print.bytes}, {"modified_ns", modified}, {"sha256", print.sha256}};
      changed = true;
    }
    out.push_back(std::move(print));
  }
  if (changed && !cache_path.empty()) {
    try {
      write_json_atomically(cache_path, cache);
    } catch (const std::exception&) {  // a read-only home: hash again next time
    }
  }
  return out;
}

nlohmann::json data_json(const DatasetSpec& spec, const std::vector<FileFingerprint>& files) {
  nlohmann::json list = nlohmann::json::array();
  std::string summary;
  for (const auto& f : files) {
    const std::string name = fs::path(f.path).filename().string();
    list.push_back({{"path", f.path}, {"bytes", f.bytes}, {"sha256", f.sha256}});
    summary += fmt::format("{} {} {}\n", name, f.bytes, f.sha256);
  }
  nlohmann::json data = {{"name", spec.name}, {"files", list}};
  if (spec.name == "synthetic") {  // no files: the generator's settings are the data
    const SyntheticSpec& s = spec.synthetic;
    summary = fmt::format("synthetic {} {} {} {} {} {}\n", s.channels, s.height, s.width, s.classes,
                          s.train_count, s.test_count);
  } else {
    data["root"] = spec.root;
  }
  data["sha256"] = sha256_hex(summary);
  return data;
}

void check_known_dataset(const DatasetSpec& spec, const std::vector<FileFingerprint>& files) {
  for (const auto& f : files) {
    auto it = known_files().find(f.sha256);
    if (it == known_files().end() || it->second == spec.name) continue;
    throw UserError(fmt::format("{}: these are {}'s files, but dataset.name is {}", f.path,
                                it->second, spec.name));
  }
}

}  // namespace runner
