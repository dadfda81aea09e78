// Image-set fingerprints and the per-root cache of content hashes (the idea of
// runner/data/fingerprint.cpp, as a plain text file per root: an image folder holds thousands of
// files, and a line per file is read and written in milliseconds).
#include "runner/data/image_fingerprint.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <charconv>

#include "runner/util/cache_file.h"
#include "runner/util/digest.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view hash_cache_header = "runner file hashes v1";
constexpr std::size_t kMaxHashCacheBytes = std::size_t{1} << 30;

// "<sha256> <bytes> <modified_ns> <path>": the path last, so that it may hold spaces.
bool parse_line(std::string_view line, std::string& path, std::uintmax_t& bytes,
                std::int64_t& modified_ns, std::string& sha256) {
  if (line.size() < 64 + 6 || line[64] != ' ') return false;
  sha256.assign(line.substr(0, 64));
  const char* p = line.data() + 65;
  const char* end = line.data() + line.size();
  auto [after_bytes, e1] = std::from_chars(p, end, bytes);
  if (e1 != std::errc() || after_bytes == end || *after_bytes != ' ') return false;
  auto [after_time, e2] = std::from_chars(after_bytes + 1, end, modified_ns);
  if (e2 != std::errc() || after_time == end || *after_time != ' ') return false;
  path.assign(after_time + 1, end);
  return !path.empty();
}

}  // namespace

FileStamp stamp_file(const fs::path& root, const fs::path& path, std::int32_t label) {
  FileStamp stamp;
  stamp.path = path.generic_string();
  stamp.label = label;
  struct stat info {};
  if (::stat((root / path).c_str(), &info) == 0) {
    stamp.exists = true;
    stamp.bytes = static_cast<std::uintmax_t>(info.st_size);
    stamp.modified_ns = std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec;
  }
  return stamp;
}

std::string fingerprint_stamps(const std::vector<FileStamp>& stamps) {
  std::string text = "runner image set v1\n";
  text.reserve(stamps.size() * 120);
  std::map<std::int32_t, std::size_t> counts;
  for (const FileStamp& s : stamps) {
    // The path's length first: no path, however odd its characters, can fake a line break.
    fmt::format_to(std::back_inserter(text), "{} {} {} {}:{}\n", s.label, s.bytes,
                   s.exists && !s.sha256.empty() ? s.sha256 : "missing", s.path.size(), s.path);
    ++counts[s.label];
  }
  for (const auto& [label, count] : counts) {
    fmt::format_to(std::back_inserter(text), "class {} {}\n", label, count);
  }
  return sha256_hex(text);
}

FileHashCache::FileHashCache(const fs::path& cache_folder, const fs::path& root) {
  if (cache_folder.empty()) return;
  std::error_code error;
  const fs::path absolute = fs::absolute(root, error).lexically_normal();
  key_ = (error ? root : absolute).string();
  file_ = cache_folder / fmt::format("hashes-{}.txt", sha256_hex(key_).substr(0, 32));
  const std::optional<std::string> text = read_cache_text(file_, kMaxHashCacheBytes, problem_);
  if (text) read_entries(*text);
  changed_ = !problem_.empty();  // replaced by a cache when saved
}

void FileHashCache::read_entries(std::string_view text) {
  const std::string header = fmt::format("{} {}\n", hash_cache_header, key_);
  if (!text.starts_with(header)) {
    problem_ = "its first line is not this folder's";
    return;
  }
  text.remove_prefix(header.size());
  std::string path, sha256;
  Entry entry;
  for (int line = 2; !text.empty(); ++line) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos ||
        !parse_line(text.substr(0, end), path, entry.bytes, entry.modified_ns, sha256)) {
      problem_ = fmt::format("line {} does not parse", line);
      entries_.clear();
      return;
    }
    text.remove_prefix(end + 1);
    entry.sha256 = sha256;
    entries_[path] = entry;
  }
}

std::string FileHashCache::find(const FileStamp& stamp) const {
  auto it = entries_.find(stamp.path);
  if (it == entries_.end() || !stamp.exists) return "";
  const Entry& e = it->second;
  return e.bytes == stamp.bytes && e.modified_ns == stamp.modified_ns ? e.sha256 : "";
}

void FileHashCache::remember(const FileStamp& stamp) {
  if (file_.empty() || !stamp.exists || stamp.sha256.size() != 64) return;
  if (stamp.path.find('\n') != std::string::npos) return;  // cannot be a line; hashed each time
  Entry& entry = entries_[stamp.path];
  if (entry.bytes == stamp.bytes && entry.modified_ns == stamp.modified_ns &&
      entry.sha256 == stamp.sha256) {
    return;  // known already
  }
  entry = {stamp.bytes, stamp.modified_ns, stamp.sha256};
  changed_ = true;
}

bool FileHashCache::save() const {
  if (!changed_ || file_.empty()) return false;
  std::string text = fmt::format("{} {}\n", hash_cache_header, key_);
  for (const auto& [path, e] : entries_) {
    fmt::format_to(std::back_inserter(text), "{} {} {} {}\n", e.sha256, e.bytes, e.modified_ns,
                   path);
  }
  return write_pieces_atomically(file_, {text});
}

}  // namespace runner
