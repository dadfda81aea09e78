// Long texts in messages: shortened between whole characters, with their length; short ones kept.
#include "runner/util/long_text.h"

#include <gtest/gtest.h>

#include "runner/util/errors.h"
#include "runner/util/terminal_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

TEST(LongText, ShortTextsStayAsTheyAre) {
  EXPECT_EQ(shortened("data/x.png", 12), "data/x.png");
  EXPECT_EQ(shortened("ééééé", 5), "ééééé") << "10 bytes, 5 characters";
  const std::string message = "config.yaml:3:7: seed: found 'abc', expected an integer";
  EXPECT_EQ(with_long_words_shortened(message), message);
  const std::string word(kLongestWord, 'w');
  EXPECT_EQ(with_long_words_shortened("found " + word + " here"), "found " + word + " here");
}

TEST(LongText, ALongTextKeepsItsStartAndEndAndSaysItsLength) {
  EXPECT_EQ(shortened("abcdefghijklmnopqrstuvwxyz", 9), "abcdef...(26 characters)...xyz");
  // Cut between characters: no half of a two-byte 'é' or a four-byte emoji.
  const std::string text = "é" + std::string(20, 'x') + "🐈🐈🐈";
  const std::string cut = shortened(text, 6);
  EXPECT_EQ(cut, "éxxx...(24 characters)...🐈🐈");
  EXPECT_FALSE(first_invalid_utf8(cut)) << cut;
}

TEST(LongText, AMessageKeepsItsWordsButShortensAPathOfMegabytes) {
  const std::string path = "/data/" + std::string(10'000'000, 'a') + "/image.png";
  const std::string message =
      "train.csv: line 2: path '" + path + "' leads outside the dataset root /data/csv";
  const std::string shown = with_long_words_shortened(message);
  EXPECT_LT(shown.size(), 400u);
  EXPECT_EQ(shown.rfind("train.csv: line 2: path '/data/aaa", 0), 0u) << shown;
  EXPECT_NE(shown.find("aaa...(10000018 characters)...aaa"), std::string::npos) << shown;
  EXPECT_NE(shown.find("aaa/image.png' leads outside the dataset root /data/csv"),
            std::string::npos)
      << shown;
  // The one place messages go through: every UserError, and every line for the terminal.
  EXPECT_EQ(UserError(message).what(), shown);
  EXPECT_EQ(terminal_lines(message + "\nnext line"), shown + "\nnext line");
}

}  // namespace
}  // namespace runner
