// Text from users and files (class names, file names, paths in messages) made safe to print:
// a terminal obeys control characters, so a class name holding ESC ] 0;...BEL or ESC [2J would
// retitle or clear it. They are shown escaped instead, as `ls` shows odd file names.
#pragma once

#include <string>
#include <string_view>

namespace runner {

// `text` with every control character (C0, DEL, C1) and every byte that is not UTF-8 written as
// \xNN (\n, \t and \r as such), so one name stays on one line; printable UTF-8 as it is. A run
// of more than 1,000 characters without a space is shortened (with_long_words_shortened).
std::string terminal_safe(std::string_view text);

// As terminal_safe, but a message's own line breaks and tabs are kept, and its long words (a path
// of megabytes) shortened as with_long_words_shortened does.
std::string terminal_lines(std::string_view text);

}  // namespace runner
