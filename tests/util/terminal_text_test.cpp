// Text for a terminal: control characters shown escaped, printable UTF-8 as it is.
#include "runner/util/terminal_text.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

TEST(TerminalText, ControlCharactersAreShownEscaped) {
  EXPECT_EQ(terminal_safe("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07") << "a new window title";
  EXPECT_EQ(terminal_safe("cat\x1b[2J"), "cat\\x1b[2J") << "the screen cleared";
  EXPECT_EQ(terminal_safe("a\nb\tc\rd"), "a\\nb\\tc\\rd") << "one name stays on one line";
  EXPECT_EQ(terminal_safe(std::string_view("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  EXPECT_EQ(terminal_safe("csi\xc2\x9b"
                          "2J"),
            "csi\\xc2\\x9b2J")
      << "a C1 control in UTF-8";
  EXPECT_EQ(terminal_safe("bad\xff\xc3"), "bad\\xff\\xc3") << "bytes that are not UTF-8";
}

// U+202E (right-to-left override) made "cat<U+202E>gnp.exe" show as "catexe.png".
TEST(TerminalText, BidirectionalControlsAreShownEscaped) {
  EXPECT_EQ(terminal_safe("cat\u202egnp.exe"), "cat\\u202egnp.exe");
  EXPECT_EQ(terminal_safe("a\u2066b\u2069c\u200f\u061c"), "a\\u2066b\\u2069c\\u200f\\u061c");
  EXPECT_EQ(terminal_lines("x\u202ay\n"), "x\\u202ay\n");
  EXPECT_EQ(terminal_safe("\u2065\u2070\u202f"), "\u2065\u2070\u202f") << "their neighbours print";
}

TEST(TerminalText, PrintableTextStaysAsItIs) {
  for (const char* text : {"class0", "T-shirt/top", "92.6 % ± µs", "猫 ☕ 🐈", "a\\x1b b"})
    EXPECT_EQ(terminal_safe(text), text);
}

TEST(TerminalText, MessagesKeepTheirLineBreaks) {
  EXPECT_EQ(terminal_lines("error: x\x1b[2J.yaml\n  hint: \ttab\r"),
            "error: x\\x1b[2J.yaml\n  hint: \ttab\\r");
}

}  // namespace
}  // namespace runner
