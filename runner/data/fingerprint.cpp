// File fingerprints, their cache ($XDG_CACHE_HOME or ~/.cache, runner/data-fingerprints.json:
// the data folders themselves may be read-only, like /usr/share/datasets) and known datasets.
#include "runner/data/fingerprint.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "runner/data/dataset_format.h"
#include "runner/util/bounded_json.h"
#include "runner/util/cache_file.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/folders.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

fs::path cache_file() {
  const fs::path folder = runner_cache_folder();
  return folder.empty() ? folder : folder / "data-fingerprints.json";
}

// The cache: absolute path -> {bytes, mtime, sha256}. A cache that is missing is empty; so is
// one that is not a regular file (a FIFO, a link: never opened) or not a JSON object, which
// `problem` then says: rebuilt, never fatal.
nlohmann::json read_cache(const fs::path& file, std::string& problem) {
  constexpr std::size_t kMaxCacheBytes = std::size_t{1} << 30;
  const std::optional<std::string> text = read_cache_text(file, kMaxCacheBytes, problem);
  if (!text) return nlohmann::json::object();
  try {
    nlohmann::json cache = parse_bounded_json(*text, false);
    if (cache.is_object()) return cache;
  } catch (const std::exception&) {
  }
  problem = "not a JSON object";
  return nlohmann::json::object();
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

}  // namespace

std::vector<FileFingerprint> fingerprint_files(const std::vector<fs::path>& files,
                                               std::vector<std::string>& warnings) {
  static std::mutex mutex;  // sweep points in threads share the cache file
  std::lock_guard lock(mutex);
  const fs::path cache_path = cache_file();
  std::string problem;
  nlohmann::json cache =
      cache_path.empty() ? nlohmann::json::object() : read_cache(cache_path, problem);
  bool changed = !problem.empty();  // replaced by the cache
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
  if (changed && !cache_path.empty()) {  // failing (a read-only home): hash again next time
    const bool saved = write_pieces_atomically(
        cache_path, {cache.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), "\n"});
    if (!problem.empty()) warnings.push_back(cache_warning(cache_path, problem, saved));
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
  if (const DatasetFormat& format = format_of(spec); format.identity) {  // no files
    summary = format.identity(spec);
  } else {
    data["root"] = spec.root;
  }
  data["sha256"] = sha256_hex(summary);
  return data;
}

void check_known_dataset(const DatasetSpec& spec, const std::vector<FileFingerprint>& files) {
  const DatasetFormat& own = format_of(spec);
  for (const DatasetFormat& format : dataset_formats()) {
    if (&format == &own) continue;
    for (const auto& f : files) {
      const auto& known = format.known_sha256;
      if (std::find(known.begin(), known.end(), f.sha256) == known.end()) continue;
      throw UserError(fmt::format("{}: these are {}'s files, but dataset.name is {}", f.path,
                                  format.name, spec.name));
    }
  }
}

}  // namespace runner
