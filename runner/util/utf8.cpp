// Well-formed UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, at most U+10FFFF.
#include "runner/util/utf8.h"

namespace runner {
namespace {

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The length of the sequence starting at `at`, or 0 when it is not well formed.
std::size_t sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if (!is_continuation(byte(at + i))) return 0;
  }
  unsigned char second = byte(at + 1);
  if (lead == 0xE0 && second < 0xA0) return 0;   // overlong
  if (lead == 0xED && second >= 0xA0) return 0;  // UTF-16 surrogates
  if (lead == 0xF0 && second < 0x90) return 0;   // overlong
  if (lead == 0xF4 && second >= 0x90) return 0;  // above U+10FFFF
  return length;
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  return at < text.size() ? sequence_length(text, at) : 0;
}

std::string escaped_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    if (const std::size_t length = sequence_length(text, at); length > 0) {
      out.append(text.substr(at, length));
      at += length;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(text[at++]);
      out += {'\\', 'x', kHex[byte >> 4], kHex[byte & 15]};
    }
  }
  return out;
}

std::size_t utf8_characters(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += !is_continuation(static_cast<unsigned char>(c));
  return n;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = sequence_length(text, at);
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

std::pair<int, int> line_and_column(std::string_view text, std::size_t offset) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if (!is_continuation(static_cast<unsigned char>(text[i]))) {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace runner
