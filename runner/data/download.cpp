// CIFAR-10 and CIFAR-100 download: libcurl to a temporary file, MD5 check, libarchive
// unpacking to a temporary folder, then rename() into place.
#include "runner/data/download.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>

#include "runner/data/cifar10.h"
#include "runner/data/cifar100.h"
#include "runner/data/error_location.h"
#include "runner/util/digest.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/interrupt.h"
#include "runner/util/terminal_text.h"

namespace runner {
namespace {

// Removes the temporary download and extraction folder however the download ends.
class Temporaries {
 public:
  Temporaries(std::filesystem::path archive, std::filesystem::path folder)
      : archive_(std::move(archive)), folder_(std::move(folder)) {}
  ~Temporaries() {
    std::error_code ignored;
    std::filesystem::remove(archive_, ignored);
    std::filesystem::remove_all(folder_, ignored);
  }
  const std::filesystem::path& archive() const { return archive_; }
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path archive_, folder_;
};

// Ctrl-C stops a download (the archive is 170 MB: minutes on a slow line); curl then ends with
// CURLE_ABORTED_BY_CALLBACK.
int stop_on_interrupt(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return interrupt_requested() ? 1 : 0;
}

// Writes what curl receives, up to a limit: a URL that never ends (file:///dev/zero, a wrong
// server) filled the disk at a gigabyte a second.
struct BoundedFile {
  FILE* file = nullptr;
  std::size_t written = 0, limit = 0;
  bool over = false;

  static std::size_t write(char* data, std::size_t size, std::size_t count, void* self) {
    auto& to = *static_cast<BoundedFile*>(self);
    const std::size_t bytes = size * count;
    if (to.written + bytes > to.limit) {
      to.over = true;
      return 0;  // curl stops with CURLE_WRITE_ERROR
    }
    to.written += bytes;
    return std::fwrite(data, 1, bytes, to.file);
  }
};

void fetch(const CifarFiles& files, const std::string& url,
           const std::filesystem::path& destination, const std::filesystem::path& root) {
  static std::once_flag curl_initialised;
  std::call_once(curl_initialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  const int fd = create_new_file(destination);  // never through a planted link
  std::unique_ptr<FILE, decltype(&std::fclose)> out(fd >= 0 ? ::fdopen(fd, "wb") : nullptr,
                                                    std::fclose);
  if (!curl || !out) {
    throw_user_error(at_file(destination), "cannot create the download file",
                     cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  BoundedFile sink{out.get(), 0, files.max_archive_bytes};
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &BoundedFile::write);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl.get(), CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(files.max_archive_bytes));  // a stated size past it
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);  // an HTTP 404 is a failure, not data
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1024L);  // give up below 1 KB/s ...
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);     // ... for a minute
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, stop_on_interrupt);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  CURLcode result = curl_easy_perform(curl.get());
  throw_if_interrupted(("downloading " + files.title).c_str());
  const bool written = std::fflush(out.get()) == 0 && !std::ferror(out.get());
  if (sink.over || result == CURLE_FILESIZE_EXCEEDED) {
    throw_user_error(
        at_file(url),
        fmt::format("dataset.download is set, but the download was stopped past {} MB: the {} "
                    "binary archive is smaller, so this is not it",
                    files.max_archive_bytes >> 20, files.title),
        cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
  if (result != CURLE_OK) {
    throw_user_error(at_file(url),
                     fmt::format("dataset.download is set, but the download failed: {}{}{}",
                                 curl_easy_strerror(result), error[0] ? ": " : "", error),
                     cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
  if (!written) {
    throw_user_error(at_file(destination), "writing the download failed (disk full?)",
                     cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
}

// Unpacks regular files and folders only, refusing absolute paths and "..": an archive cannot
// write outside `destination`.
void extract(const CifarFiles& files, const std::filesystem::path& archive_path,
             const std::filesystem::path& destination, const std::string& url) {
  std::unique_ptr<archive, decltype(&archive_read_free)> in(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(in.get());
  archive_read_support_format_all(in.get());
  auto fail = [&](const std::string& problem) {
    throw_user_error(at_file(url), problem,
                     fmt::format("expected the {} binary archive (.tar.gz)", files.title));
  };
  if (archive_read_open_filename(in.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fail(fmt::format("cannot read the archive: {}", archive_error_string(in.get())));
  }
  std::filesystem::create_directories(destination);
  archive_entry* entry = nullptr;
  std::vector<char> buffer(1 << 16);
  const std::string unpacking = "unpacking " + files.title;
  for (;;) {
    throw_if_interrupted(unpacking.c_str());
    int status = archive_read_next_header(in.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN)
      fail(fmt::format("corrupt archive: {}", archive_error_string(in.get())));
    const std::filesystem::path name =
        std::filesystem::path(archive_entry_pathname(entry)).lexically_normal();
    if (name.is_absolute() || name.empty() || *name.begin() == "..") {
      fail(fmt::format("archive entry '{}' points outside the folder", name.string()));
    }
    const auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      std::filesystem::create_directories(destination / name);
    } else if (type == AE_IFREG) {
      std::filesystem::create_directories((destination / name).parent_path());
      std::ofstream out(destination / name, std::ios::binary);
      la_ssize_t n = 0;
      while ((n = archive_read_data(in.get(), buffer.data(), buffer.size())) > 0) {
        out.write(buffer.data(), n);
      }
      if (n < 0) fail(fmt::format("corrupt archive: {}", archive_error_string(in.get())));
      if (!out.flush()) {
        throw_user_error(at_file(destination / name), "write failed (disk full?)");
      }
    }  // links and special files are not part of CIFAR: skipped
  }
}

// rename() the unpacked folder to `root` when root is absent or empty; else moves in, one
// rename() each, the files root lacks (a user may have made the folder or put some files).
void move_into_place(const std::filesystem::path& unpacked, const std::filesystem::path& root) {
  std::error_code ignored;
  if (std::filesystem::is_directory(root, ignored) && std::filesystem::is_empty(root, ignored)) {
    std::filesystem::remove(root, ignored);
  }
  if (!std::filesystem::exists(root, ignored)) {
    std::filesystem::rename(unpacked, root);
    return;
  }
  for (const auto& file : std::filesystem::directory_iterator(unpacked)) {
    const auto target = root / file.path().filename();
    if (!std::filesystem::exists(target, ignored)) std::filesystem::rename(file.path(), target);
  }
}

// `root` without a trailing separator, so that its file name is the folder's name.
std::filesystem::path folder_path(const std::filesystem::path& root) {
  std::filesystem::path folder = root.lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  return folder;
}

}  // namespace

void download_cifar_archive(const CifarFiles& files, const std::string& url,
                            const std::filesystem::path& root_in, const std::string& expected_md5) {
  const std::filesystem::path root = folder_path(root_in);
  const std::filesystem::path parent = root.has_parent_path() ? root.parent_path() : ".";
  std::filesystem::create_directories(parent);
  const std::string stem = fmt::format(".{}.download-{}", root.filename().string(), ::getpid());
  Temporaries temporaries(parent / (stem + ".tar.gz"), parent / (stem + ".d"));

  fmt::print(stderr, "downloading {} from {} into {} ...\n", files.title, terminal_safe(url),
             terminal_safe(root.string()));
  fetch(files, url, temporaries.archive(), root);
  const std::string found_md5 = md5_hex_of_file(temporaries.archive());
  if (found_md5 != expected_md5) {
    throw_user_error(at_file(url),
                     fmt::format("MD5 of the download is {}, expected {}", found_md5, expected_md5),
                     "a corrupt or different file; try again, or " +
                         cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
  extract(files, temporaries.archive(), temporaries.folder(), url);
  const auto unpacked = temporaries.folder() / files.archive_folder;
  std::error_code ignored;
  if (!std::filesystem::is_directory(unpacked, ignored)) {
    throw_user_error(at_file(url),
                     fmt::format("the archive holds no {} folder", files.archive_folder),
                     fmt::format("expected the {} binary archive; ", files.title) +
                         cifar_by_hand_hint(files, root, /*offer_download=*/false));
  }
  const auto megabytes =
      static_cast<double>(std::filesystem::file_size(temporaries.archive())) / 1e6;
  move_into_place(unpacked, root);
  fmt::print(stderr, "downloaded {} ({:.1f} MB, MD5 ok) into {}\n", files.title, megabytes,
             terminal_safe(root.string()));
}

void download_cifar10_archive(const std::string& url, const std::filesystem::path& root,
                              const std::string& expected_md5) {
  download_cifar_archive(cifar10_files(), url, root, expected_md5);
}

void download_cifar10(const DatasetSpec& spec) {
  if (missing_cifar10_files(spec.root).empty()) return;
  download_cifar10_archive(spec.url.empty() ? kCifar10Url : spec.url, spec.root, kCifar10Md5);
}

void download_cifar100(const DatasetSpec& spec) {
  const CifarFiles& files = cifar100_files(spec.label);
  if (missing_cifar_files(files, spec.root).empty()) return;
  download_cifar_archive(files, spec.url.empty() ? files.url : spec.url, spec.root, kCifar100Md5);
}

}  // namespace runner
