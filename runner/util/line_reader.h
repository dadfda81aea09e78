// Reading a text file a line at a time, holding one line and a read buffer, never the whole file:
// a list of data files may hold millions of rows of which a run keeps a few.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace runner {

class LineReader {
 public:
  // Opens `path` when it is a regular file (open_regular_file's checks and messages; `what` says
  // what was expected).
  LineReader(const std::filesystem::path& path, std::size_t max_line_bytes,
             const std::string& what);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n' (a last line without one included), valid until the next
  // call; false at the end of the file. A line longer than max_line_bytes, or a read that
  // fails, is a UserError naming the file and the line's number.
  bool next(std::string_view& line);
  // The 1-based number of the line next() returned last.
  long long line_number() const { return line_number_; }

 private:
  // Reads more of the file after the unread part of the buffer; false at its end.
  bool fill();

  std::filesystem::path path_;
  std::size_t max_line_bytes_;
  int fd_ = -1;
  std::string buffer_;
  std::size_t start_ = 0;  // where the unread part of buffer_ begins
  long long line_number_ = 0;
};

}  // namespace runner
