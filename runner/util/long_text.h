// Long user texts in messages, shortened: a 10 MB path from a CSV row or a 100,000-character
// expression is shown by its start, its end and its length, never whole and never cut inside
// a UTF-8 character.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace runner {

// `text` as it is when it has at most `max_characters` characters; else its first two thirds and
// last third of that many around "...(N characters)...", N being the whole text's length. Cut
// between whole UTF-8 characters.
std::string shortened(std::string_view text, std::size_t max_characters);

// A run of more characters than this without a space or line break (a path, a value) is no
// word a message needs whole.
inline constexpr std::size_t kLongestWord = 1000;
inline constexpr std::size_t kShortenedWord = 300;

// `message` with each run of more than kLongestWord characters without a space, tab or line
// break shortened to kShortenedWord: what every UserError and every line printed to the terminal
// go through, so that no message carries megabytes. Short texts are left as they are.
std::string with_long_words_shortened(std::string_view message);

}  // namespace runner
