// Reading a CSV of `path,label` rows as its author means it: a UTF-8 byte order mark dropped, a
// header told by its content, labels all class numbers or all class names, and no row that
// would be read as another (a NUL byte in a path, a negative class number) let through. The file
// is read a line at a time: a run that keeps the first N rows holds N rows, whatever the size.
#pragma once

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace runner {

struct CsvRow {
  std::string path, label;
  int line = 0;    // 1-based, in the file
  int number = 0;  // the class number, in a numbered file
};

struct CsvRows {
  std::vector<CsvRow> rows;  // the header left out; the first max_rows data rows
  bool numbered = false;     // every label a class number (0, 1, 2, ...; "01" is 1)
  std::size_t total = 0;     // the data rows of the whole file
  // The classes the whole file's labels name: the largest class number (numbered), or every
  // distinct class name, sorted.
  int largest_number = 0;
  std::vector<std::string> names;
};

// Class numbers go up to this (exclusive): a larger one is a typo, not 100,000 outputs.
inline constexpr int kMaxCsvClasses = 100'000;
// A row is a path and a label: a longer line is no row (a file of no line breaks, say).
inline constexpr std::size_t kMaxCsvLineBytes = std::size_t{16} << 20;

// The rows of `file`. The first row is a header when nothing shows it to be data: its label is
// no label of the rows below (not a class number, and no row below has it), and its path names
// no file and has no image extension. `path,label` and `filename,class` are headers; a first row
// of data is data, an image without an extension or a missing "x.png" included. A
// UserError naming the file and row for: a NUL byte, a row without two fields, a negative or
// too large class number, class numbers and names mixed, no rows at all, a line over
// kMaxCsvLineBytes. Every row is checked and counted; only the first `max_rows` are kept.
CsvRows read_csv_rows(const std::filesystem::path& file,
                      std::size_t max_rows = std::numeric_limits<std::size_t>::max());

}  // namespace runner
