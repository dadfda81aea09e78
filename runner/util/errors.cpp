// Formatting of user errors and the "did you mean" helper.
#include "runner/util/errors.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/util/long_text.h"

namespace runner {

UserError::UserError(const std::string& what)
    : std::runtime_error(with_long_words_shortened(what)) {}

std::string format_location(const SourceLocation& where) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) out += fmt::format(":{}", where.line);
    if (where.line > 0 && where.column > 0) out += fmt::format(":{}", where.column);
    out += ": ";
  }
  if (!where.path.empty()) out += where.path + ": ";
  return out;
}

void throw_user_error(const SourceLocation& where, const std::string& problem,
                      const std::string& hint) {
  std::string message = format_location(where) + problem;
  if (!hint.empty()) message += " (" + hint + ")";
  throw UserError(message);
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string nearest_match(const std::string& word, const std::vector<std::string>& options) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& option : options) {
    std::size_t d = edit_distance(word, option);
    if (d < best_distance) {
      best_distance = d;
      best = option;
    }
  }
  return best;
}

}  // namespace runner
