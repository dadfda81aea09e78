// LineReader: the file read in 64 KiB pieces; a line that spans pieces is moved to the front of
// the buffer, which so holds at most one line and one piece.
#include "runner/util/line_reader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/util/errors.h"
#include "runner/util/files.h"

namespace runner {

namespace {

constexpr std::size_t kReadPiece = std::size_t{1} << 16;

}  // namespace

LineReader::LineReader(const std::filesystem::path& path, std::size_t max_line_bytes,
                       const std::string& what)
    : path_(path), max_line_bytes_(max_line_bytes), fd_(open_regular_file(path, what)) {}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
  buffer_.erase(0, start_);
  start_ = 0;
  const std::size_t size = buffer_.size();
  buffer_.resize(size + kReadPiece);
  ssize_t n;
  while ((n = ::read(fd_, buffer_.data() + size, kReadPiece)) < 0 && errno == EINTR) {
  }
  if (n < 0) {
    throw UserError(fmt::format("{}: cannot read after line {}: {}", path_.string(), line_number_,
                                std::strerror(errno)));
  }
  buffer_.resize(size + static_cast<std::size_t>(n));
  return n > 0;
}

bool LineReader::next(std::string_view& line) {
  std::size_t searched = start_;  // no '\n' in [start_, searched)
  for (;;) {
    const std::size_t end = buffer_.find('\n', searched);
    std::size_t stop = end == std::string::npos ? buffer_.size() : end;
    if (stop - start_ > max_line_bytes_) {
      throw UserError(fmt::format("{}: line {} is longer than {} bytes, expected a row of a list",
                                  path_.string(), line_number_ + 1, max_line_bytes_));
    }
    if (end == std::string::npos) {
      const std::size_t unread = buffer_.size() - start_;
      if (fill()) {  // moved the unread part to the front, then appended
        searched = unread;
        continue;
      }
      if (buffer_.empty()) return false;  // the end of the file
      stop = buffer_.size();              // a last line without a '\n'
    }
    ++line_number_;
    line = std::string_view(buffer_).substr(start_, stop - start_);
    start_ = end == std::string::npos ? stop : end + 1;
    return true;
  }
}

}  // namespace runner
