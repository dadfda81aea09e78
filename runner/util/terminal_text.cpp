// Control characters (C0, DEL, C1 as U+0080..U+009F) and bytes that are not UTF-8 written as
// \xNN, the bidirectional controls as \uNNNN, the rest of the text byte for byte.
#include "runner/util/terminal_text.h"

#include <fmt/format.h>

#include <cstdint>

#include "runner/util/long_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

// The code point of the UTF-8 sequence of `length` bytes at `at` (a valid one).
char32_t code_point(std::string_view text, std::size_t at, std::size_t length) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t value = byte(0) & kLeadMask[length];
  for (std::size_t i = 1; i < length; ++i) value = value << 6 | (byte(i) & 0x3F);
  return value;
}

// The invisible characters that reorder what follows them (the "Trojan Source" ones): a name
// holding U+202E shows its end first, so `cat\u202egnp.exe` would look like `catexe.png`.
bool reorders_text(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

std::string escaped(std::string_view text, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const std::size_t length = utf8_sequence_length(text, at);
    // U+0080..U+009F (C1, CSI among them) is 0xC2 0x80..0x9F in UTF-8.
    const bool c1 = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0;
    if (length > 1 && !c1) {
      const char32_t c = code_point(text, at, length);
      if (reorders_text(c)) {
        out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
      } else {
        out.append(text, at, length);
      }
      at += length;
      continue;
    }
    const std::size_t bytes = c1 ? 2 : 1;
    for (std::size_t i = at; i < at + bytes; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (length == 1 && c >= 0x20 && c != 0x7F)
        out += static_cast<char>(c);
      else if (c == '\n')
        out += keep_lines ? "\n" : "\\n";
      else if (c == '\t')
        out += keep_lines ? "\t" : "\\t";
      else if (c == '\r')
        out += "\\r";
      else
        out += fmt::format("\\x{:02x}", c);
    }
    at += bytes;
  }
  return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  return escaped(with_long_words_shortened(text), false);
}

std::string terminal_lines(std::string_view text) {
  return escaped(with_long_words_shortened(text), true);
}

}  // namespace runner
