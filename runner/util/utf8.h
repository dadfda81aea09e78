// UTF-8 checks for text that ends up in JSON (configs, overrides, paths in reports).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace runner {

// The offset of the first byte that does not belong to well-formed UTF-8, or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// The length of the well-formed UTF-8 sequence starting at byte `at`, or 0 when none starts
// there (a stray byte, an overlong form, a surrogate, a cut sequence).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// `text` with each byte that is not part of well-formed UTF-8 written as "\xNN": a file name
// that is not UTF-8 can go into JSON (which holds only UTF-8) and still say which file it is.
std::string escaped_invalid_utf8(std::string_view text);

// The characters of `text` as a terminal counts columns: bytes that are not a continuation
// ("±" and "…" are one each).
std::size_t utf8_characters(std::string_view text);

// The 1-based line and column of byte `offset` in `text`.
std::pair<int, int> line_and_column(std::string_view text, std::size_t offset);

}  // namespace runner
