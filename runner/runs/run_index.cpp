// Walking folders for reports, with a cache of their rows.
#include "runner/runs/run_index.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runner/report/read_report.h"
#include "runner/util/digest.h"
#include "runner/util/files.h"
#include "runner/util/folders.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Version 2: field names once, each row as [name index, value] pairs.
constexpr int kCacheVersion = 2;

// What identifies a report's version on disk.
struct Stamp {
  std::int64_t size = 0, modified = 0;  // bytes; nanoseconds since the clock's epoch
  bool operator==(const Stamp&) const = default;
};

// One stat() per report (std::filesystem would take two).
std::optional<Stamp> stamp_of(const fs::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return std::nullopt;
  return Stamp{
      static_cast<std::int64_t>(info.st_size),
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

// Every report.json below `folder`, sorted; folders that cannot be read are passed over.
std::vector<fs::path> reports_below(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code error;
  if (fs::is_regular_file(folder / "report.json", error)) found.push_back(folder / "report.json");
  for (fs::recursive_directory_iterator
           it(folder, fs::directory_options::skip_permission_denied, error),
       end;
       !error && it != end; it.increment(error)) {
    if (it.depth() == 0 && it->path().filename() == "report.json") continue;  // added above
    if (it->path().filename() == "report.json" && it->is_regular_file(error)) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The cache of one folder: each report's stamp and row, by the report's path.
struct CachedRow {
  Stamp stamp;
  RunRow row;
};
using CacheEntries = std::map<std::string, CachedRow>;

fs::path cache_file_of(const fs::path& cache_folder, const fs::path& folder) {
  std::error_code error;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(folder), error);
  return cache_folder / (sha256_hex(absolute.string()).substr(0, 24) + ".msgpack");
}

// {"version", "fields": [names], "entries": {path: [size, modified, [[field, value], ...]]}};
// a cache that does not parse, or is another version's, is rebuilt: it only saves time.
CacheEntries read_cache(const fs::path& file) {
  CacheEntries entries;
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return entries;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  nlohmann::json cache = nlohmann::json::from_msgpack(bytes, true, false);
  if (!cache.is_object() || cache.value("version", 0) != kCacheVersion ||
      !cache.contains("fields") || !cache["fields"].is_array() || !cache.contains("entries") ||
      !cache["entries"].is_object()) {
    return entries;
  }
  const std::vector<std::string> fields = cache["fields"].get<std::vector<std::string>>();
  for (auto& [path, entry] : cache["entries"].items()) {
    CachedRow& cached = entries[path];
    cached.stamp = {entry.at(0).get<std::int64_t>(), entry.at(1).get<std::int64_t>()};
    for (auto& pair : entry.at(2)) {
      // Fields are numbered in name order: each lands at the map's end.
      cached.row.emplace_hint(cached.row.end(), fields.at(pair.at(0).get<std::size_t>()),
                              std::move(pair.at(1)));
    }
  }
  return entries;
}

// The rows of one folder's reports with their paths and stamps, in `rows` from `first` on.
struct Stamped {
  std::string path;
  Stamp stamp;
};

void write_cache(const fs::path& file, const std::vector<Stamped>& stamps,
                 const std::vector<RunRow>& rows, std::size_t first) {
  std::map<std::string, std::size_t> numbers;
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    for (const auto& [field, value] : rows[first + i]) numbers.emplace(field, 0);
  }
  nlohmann::json fields = nlohmann::json::array();
  for (auto& [field, number] : numbers) {
    number = fields.size();
    fields.push_back(field);
  }
  nlohmann::json entries = nlohmann::json::object();
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [field, value] : rows[first + i]) pairs.push_back({numbers[field], value});
    entries[stamps[i].path] = {stamps[i].stamp.size, stamps[i].stamp.modified, std::move(pairs)};
  }
  const nlohmann::json cache = {
      {"version", kCacheVersion}, {"fields", std::move(fields)}, {"entries", std::move(entries)}};
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(cache);
  try {
    write_file_atomically(file, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
  } catch (const std::exception&) {
    // A read-only or full cache folder: the next query reads the reports again.
  }
}

// The report at `file` parsed, or a problem for the warning.
std::optional<nlohmann::json> parse_report(const fs::path& file, std::string& problem) {
  std::error_code error;
  if (fs::file_size(file, error) > kMaxReportBytes) {
    problem = "larger than any report";
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json report = nlohmann::json::parse(text.str(), nullptr, false);
  if (!report.is_object()) {
    problem = "not a JSON object";
    return std::nullopt;
  }
  return report;
}

// The run's name in the table: its folder below the one queried, written from there.
std::string run_name(const fs::path& folder, const fs::path& report) {
  const fs::path relative = report.parent_path().lexically_relative(folder);
  return relative.empty() || relative == "." ? folder.generic_string()
                                             : (folder / relative).generic_string();
}

}  // namespace

fs::path default_runs_cache_folder() {
  const fs::path folder = runner_cache_folder();
  return folder.empty() ? folder : folder / "runs";
}

FoundRuns find_runs(const std::vector<fs::path>& folders, const fs::path& cache_folder) {
  FoundRuns found;
  for (const fs::path& folder : folders) {
    const fs::path cache_file =
        cache_folder.empty() ? fs::path() : cache_file_of(cache_folder, folder);
    CacheEntries cached;
    if (!cache_file.empty()) {
      try {
        cached = read_cache(cache_file);
      } catch (const std::exception&) {
        cached.clear();
      }
    }
    std::vector<Stamped> stamps;  // of this folder's rows, which start at `first`
    const std::size_t first = found.rows.size();
    bool changed = false;
    for (const fs::path& report : reports_below(folder)) {
      const std::string key = report.string();
      const std::optional<Stamp> stamp = stamp_of(report);
      if (!stamp) {
        found.warnings.push_back(fmt::format("warning: {}: {}", key, std::strerror(errno)));
        continue;
      }
      const std::string name = run_name(folder, report);
      if (auto it = cached.find(key); it != cached.end() && it->second.stamp == *stamp) {
        RunRow& row = found.rows.emplace_back(std::move(it->second.row));
        row["run"] = name;  // the folder as written in this query
        stamps.push_back({key, *stamp});
        ++found.cached;
        continue;
      }
      std::string problem;
      const std::optional<nlohmann::json> parsed = parse_report(report, problem);
      if (!parsed) {
        found.warnings.push_back(fmt::format("warning: {}: {}, left out", key, problem));
        continue;
      }
      found.rows.push_back(run_row(*parsed, name));
      stamps.push_back({key, *stamp});
      ++found.read;
      changed = true;
    }
    if (!cache_file.empty() && (changed || stamps.size() != cached.size())) {
      write_cache(cache_file, stamps, found.rows, first);
    }
  }
  return found;
}

}  // namespace runner
