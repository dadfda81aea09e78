// Shortening long texts between whole UTF-8 characters.
#include "runner/util/long_text.h"

#include <fmt/format.h>

#include "runner/util/utf8.h"

namespace runner {
namespace {

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The byte offset after the first `characters` characters of `text` (its size when shorter).
std::size_t after_characters(std::string_view text, std::size_t characters) {
  std::size_t at = 0;
  for (std::size_t n = 0; at < text.size() && n < characters; ++n) {
    ++at;
    while (at < text.size() && is_continuation(text[at])) ++at;
  }
  return at;
}

// The byte offset where the last `characters` characters of `text` start (0 when shorter).
std::size_t before_last_characters(std::string_view text, std::size_t characters) {
  std::size_t at = text.size();
  for (std::size_t n = 0; at > 0 && n < characters; ++n) {
    --at;
    while (at > 0 && is_continuation(text[at])) --at;
  }
  return at;
}

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\t';
}

}  // namespace

std::string shortened(std::string_view text, std::size_t max_characters) {
  if (text.size() <= max_characters) return std::string(text);  // bytes >= characters
  const std::size_t characters = utf8_characters(text);
  if (characters <= max_characters) return std::string(text);
  const std::size_t head = after_characters(text, max_characters - max_characters / 3);
  const std::size_t tail = before_last_characters(text, max_characters / 3);
  return fmt::format("{}...({} characters)...{}", text.substr(0, head), characters,
                     text.substr(tail));
}

std::string with_long_words_shortened(std::string_view message) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = 0; at < message.size();) {
    if (is_space(message[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < message.size() && !is_space(message[end])) ++end;
    if (end - at > kLongestWord) {
      const std::string_view word = message.substr(at, end - at);
      if (utf8_characters(word) > kLongestWord) {
        out.append(message, copied, at - copied);
        out += shortened(word, kShortenedWord);
        copied = end;
      }
    }
    at = end;
  }
  if (copied == 0) return std::string(message);
  out.append(message, copied);
  return out;
}

}  // namespace runner
