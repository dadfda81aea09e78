// read_image_set: stamp the files (size, time, remembered hashes), read the decoded cache when
// every hash is known, otherwise read, hash, decode and resize each file into its slot of the
// output in parallel, then store both caches.
#include "runner/data/image_set.h"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "runner/data/image_cache.h"
#include "runner/data/image_decode.h"
#include "runner/data/image_fingerprint.h"
#include "runner/data/image_fit.h"
#include "runner/util/cache_file.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/folders.h"
#include "runner/util/interrupt.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Runs work(i) for every i in [0, n) on `workers` threads (the calling thread for 0 or 1), the
// indices handed out in order. work(i) returns false to stop: no index after the first that did
// is started, and every index before it is finished, so that index (returned; n when none) is
// the same for any number of workers. Ctrl-C stops it within a file: Interrupted("interrupted
// while <doing>").
std::size_t for_each_index(const char* doing, std::size_t n, int workers,
                           const std::function<bool(std::size_t)>& work) {
  std::atomic<std::size_t> next{0}, limit{n};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto run = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < limit.load();) {
        if (interrupt_requested()) {
          limit = 0;
          break;
        }
        if (work(i)) continue;
        std::size_t current = limit.load();
        while (i < current && !limit.compare_exchange_weak(current, i)) {
        }
      }
    } catch (...) {  // not a bad file (those are work's to report): out of memory, say
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      limit = 0;
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(workers, 1), n);
  if (threads <= 1) {
    run();
  } else {
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(run);
  }
  if (failure) std::rethrow_exception(failure);
  throw_if_interrupted(doing);
  return limit.load();
}

fs::path cache_folder_of(const ImageSetRequest& request) {
  if (!request.use_cache) return {};
  return request.cache_folder.empty() ? default_image_cache_folder() : request.cache_folder;
}

void check_request(const ImageSetRequest& request) {
  if ((request.channels != 1 && request.channels != 3) || request.height <= 0 ||
      request.width <= 0) {
    throw std::invalid_argument(fmt::format("read_image_set: {} channels of {}x{}",
                                            request.channels, request.height, request.width));
  }
}

// A worker's file buffer outlives the call in the calling thread: not with a huge file in it.
void release_if_large(std::vector<std::uint8_t>& bytes) {
  if (bytes.capacity() > (16u << 20)) std::vector<std::uint8_t>().swap(bytes);
}

// What decoding leaves: the decoded slots, and per file the reason it failed ("" when it did not).
struct Decoded {
  ImageSet set;
  std::vector<std::string> failures;
};

// Reads, hashes (when the hash is not known yet) and decodes every file into its slot.
Decoded decode_all(const ImageSetRequest& request, std::vector<FileStamp>& stamps) {
  const std::size_t n = request.files.size();
  const std::size_t plane =
      static_cast<std::size_t>(request.channels) * request.height * request.width;
  Decoded out{{request.channels, request.height, request.width, {}, {}, {}, "", false}, {}};
  out.set.images.resize(n * plane);
  out.failures.resize(n);
  const bool skip = request.on_bad_file == OnBadFile::skip;
  const std::size_t first_failure =
      for_each_index("reading and decoding the images", n, request.workers, [&](std::size_t i) {
        thread_local std::vector<std::uint8_t> bytes;
        const fs::path file = request.root / request.files[i].path;
        try {
          read_image_file(file, bytes);
          if (stamps[i].sha256.empty()) {
            stamps[i].sha256 =
                sha256_hex({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
          }
          const Image image = decode_image(bytes, request.channels, file, request.max_image_bytes,
                                           draft_size(request.fit, request.height, request.width));
          fit_image_into(image, request.fit, request.height, request.width,
                         {out.set.images.data() + i * plane, plane});
          release_if_large(bytes);
          return true;
        } catch (const ImageOutOfMemory&) {
          throw;  // not the file's fault: stops every worker, and the load
        } catch (const UserError& error) {
          out.failures[i] = error.what();
          release_if_large(bytes);
          return skip;
        }
      });
  if (first_failure < n) throw UserError(out.failures[first_failure]);
  return out;
}

// Moves the decoded images down over the slots of the files that failed; lists those.
void leave_out_failures(const ImageSetRequest& request, Decoded& decoded) {
  ImageSet& set = decoded.set;
  const std::size_t plane = static_cast<std::size_t>(set.channels) * set.height * set.width;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < request.files.size(); ++i) {
    if (!decoded.failures[i].empty()) {
      set.skipped.push_back({request.files[i].path, decoded.failures[i]});
      continue;
    }
    if (kept != i) {
      std::memmove(set.images.data() + kept * plane, set.images.data() + i * plane, plane);
    }
    set.labels.push_back(request.files[i].label);
    ++kept;
  }
  set.images.resize(kept * plane);
}

// The cached set, when the fingerprint is known without reading a file and a cache holds it;
// `problem` says what lies at the cache's path when it is not a cache.
std::optional<ImageSet> cached_set(const ImageSetRequest& request, const fs::path& folder,
                                   const std::vector<FileStamp>& stamps, std::string& problem) {
  for (const FileStamp& s : stamps) {
    if (s.exists && s.sha256.empty()) return std::nullopt;  // must be read: decode it meanwhile
  }
  const DecodedCacheKey key = decoded_cache_key(request, fingerprint_stamps(stamps));
  std::optional<ImageSet> set = read_decoded_cache(decoded_cache_file(folder, key), key, problem);
  if (set && request.on_bad_file == OnBadFile::error && !set->skipped.empty()) {
    throw UserError(set->skipped.front().reason);  // cached with skip, asked without
  }
  return set;
}

// Stores the hashes and the decoded set; a cache file that was not one (`decoded_problem`, the
// hash cache's own) becomes a warning of the set.
void store_caches(const ImageSetRequest& request, const fs::path& folder,
                  const std::vector<FileStamp>& stamps, FileHashCache& hashes,
                  const std::string& decoded_problem, ImageSet& set) {
  for (const FileStamp& s : stamps) hashes.remember(s);
  const bool hashes_saved = hashes.save();
  if (!hashes.problem().empty()) {
    set.warnings.push_back(cache_warning(hashes.file(), hashes.problem(), hashes_saved));
  }
  const fs::path file = decoded_cache_file(folder, decoded_cache_key(request, set.fingerprint));
  const bool decoded_saved = write_decoded_cache(file, set);
  if (!decoded_problem.empty()) {
    set.warnings.push_back(cache_warning(file, decoded_problem, decoded_saved));
  }
}

}  // namespace

ImageSet list_image_set(const ImageSetRequest& request) {
  check_request(request);
  const fs::path folder = cache_folder_of(request);
  FileHashCache hashes(folder, request.root);
  const std::size_t n = request.files.size();
  std::vector<FileStamp> stamps(n);
  std::vector<std::string> failures(n);
  const bool skip = request.on_bad_file == OnBadFile::skip;
  const std::size_t first_failure =
      for_each_index("reading the image files", n, request.workers, [&](std::size_t i) {
        stamps[i] = stamp_file(request.root, request.files[i].path, request.files[i].label);
        stamps[i].sha256 = hashes.find(stamps[i]);
        if (!stamps[i].sha256.empty()) return true;  // read and checked by an earlier run
        thread_local std::vector<std::uint8_t> bytes;
        const fs::path file = request.root / request.files[i].path;
        try {
          read_image_file(file, bytes);
          stamps[i].sha256 =
              sha256_hex({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
          if (!sniff_image_format(bytes)) {
            stamps[i].sha256.clear();  // not remembered: checked again next time
            throw UserError(fmt::format("{}: not a PNG, JPEG, WebP or BMP image", file.string()));
          }
          release_if_large(bytes);
          return true;
        } catch (const UserError& error) {
          failures[i] = error.what();
          release_if_large(bytes);
          return skip;
        }
      });
  if (first_failure < n) throw UserError(failures[first_failure]);
  ImageSet set{request.channels, request.height, request.width, {}, {}, {}, "", false, {}, {}};
  for (std::size_t i = 0; i < n; ++i) {
    if (!failures[i].empty()) {
      set.skipped.push_back({request.files[i].path, failures[i]});
      continue;
    }
    set.files.push_back(request.files[i].path);
    set.labels.push_back(request.files[i].label);
  }
  set.fingerprint = fingerprint_stamps(stamps);
  for (const FileStamp& s : stamps) {
    if (!s.sha256.empty()) hashes.remember(s);
  }
  hashes.save();
  return set;
}

ImageSet read_image_set(const ImageSetRequest& request) {
  check_request(request);
  const fs::path folder = cache_folder_of(request);
  FileHashCache hashes(folder, request.root);
  std::vector<FileStamp> stamps(request.files.size());
  for_each_index("looking at the image files", stamps.size(), request.workers, [&](std::size_t i) {
    stamps[i] = stamp_file(request.root, request.files[i].path, request.files[i].label);
    stamps[i].sha256 = hashes.find(stamps[i]);
    return true;
  });
  std::string decoded_problem;
  if (!folder.empty()) {
    if (std::optional<ImageSet> set = cached_set(request, folder, stamps, decoded_problem)) {
      return std::move(*set);
    }
  }
  Decoded decoded = decode_all(request, stamps);
  leave_out_failures(request, decoded);
  decoded.set.fingerprint = fingerprint_stamps(stamps);
  if (!folder.empty()) store_caches(request, folder, stamps, hashes, decoded_problem, decoded.set);
  return std::move(decoded.set);
}

fs::path default_image_cache_folder() {
  const fs::path folder = runner_cache_folder();
  return folder.empty() ? folder : folder / "images";
}

}  // namespace runner
