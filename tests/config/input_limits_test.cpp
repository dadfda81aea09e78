// Inputs that once crashed, hung or exhausted memory while a config was read (issue 11): each is
// a UserError naming the file or field, reached quickly and in bounded memory.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <fstream>

#include "runner/config/config_limits.h"
#include "runner/config/load_config.h"
#include "runner/config/yaml_to_json.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

// The message of the UserError that loading `file` throws ("" when none).
std::string load_error(const std::filesystem::path& file, std::vector<std::string> overrides = {}) {
  try {
    load_experiment(file, overrides);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

std::string convert_error(const std::string& yaml) {
  try {
    SourceMap map;
    yaml_to_json(yaml, "doc.yaml", map);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(PlainScalar, LongScalarsAreTypedWithoutDeepRecursion) {
  // std::regex recursed once per character: 100,000 digits overflowed the stack.
  std::string digits(100'000, '9');
  EXPECT_TRUE(std::isinf(plain_scalar_to_json(digits).get<double>()));
  std::string word(100'000, 'a');
  EXPECT_EQ(plain_scalar_to_json(word), word);
  EXPECT_EQ(plain_scalar_to_json("0x" + std::string(100'000, 'f')).get<double>(),
            INFINITY);  // out of range, refused by the reader
}

TEST(PlainScalar, CoreSchemaEdgesStayAsBefore) {
  EXPECT_EQ(plain_scalar_to_json("-.5e-3").get<double>(), -0.0005);
  EXPECT_EQ(plain_scalar_to_json("1.").get<double>(), 1.0);
  EXPECT_EQ(plain_scalar_to_json("."), ".");
  EXPECT_EQ(plain_scalar_to_json("1e"), "1e");
  EXPECT_EQ(plain_scalar_to_json("+"), "+");
  EXPECT_EQ(plain_scalar_to_json("0o17").get<int>(), 15);
  EXPECT_EQ(plain_scalar_to_json("0o18"), "0o18");
  EXPECT_EQ(plain_scalar_to_json("0x1F").get<int>(), 31);
  EXPECT_EQ(plain_scalar_to_json("-9223372036854775808").get<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(plain_scalar_to_json("+.inf").get<double>(), INFINITY);
  EXPECT_EQ(plain_scalar_to_json("inf"), "inf");  // not YAML's spelling: a string
}

TEST(ConfigLimits, AliasBombIsRefusedBeforeItExpands) {
  // Nine levels of ten aliases: 10^9 values from 300 bytes.
  std::string yaml = "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i < 9; ++i) {
    std::string p = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p;
    for (int k = 1; k < 10; ++k) yaml += ", " + p;
    yaml += "]\n";
  }
  std::string message = convert_error(yaml);
  EXPECT_NE(message.find("more than 100000 values"), std::string::npos) << message;
  EXPECT_NE(message.find("aliases"), std::string::npos) << message;
}

TEST(ConfigLimits, DeepNestingIsRefused) {
  std::string yaml = "a: " + std::string(40, '[') + std::string(40, ']') + "\n";
  std::string message = convert_error(yaml);
  EXPECT_NE(message.find("nested more than 32 levels"), std::string::npos) << message;
}

// Past yaml-cpp's own depth limit its message was "bad file" (issue 24).
TEST(ConfigLimits, NestingPastTheParsersLimitIsNamedAsNesting) {
  std::string yaml = "a: " + std::string(20000, '[') + std::string(20000, ']') + "\n";
  std::string message = convert_error(yaml);
  EXPECT_NE(message.find("nested more than 32 levels deep (the YAML parser stopped at"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("bad file"), std::string::npos) << message;
}

// Issue 24: memory that runs out while references expand is the config's doing; the message
// blamed training.batch_size. 60,000 references to a 4,000-character text expand to 240 MB, past
// an address space capped at 150 MB above what the process uses already.
TEST(ConfigLimits, RunningOutOfMemoryWhileResolvingBlamesTheConfig) {
  testing::TempDir tmp;
  std::string yaml = "text: " + std::string(4000, 'x') + "\nlist: [";
  for (int i = 0; i < 60'000; ++i) yaml += i ? ", '${text}'" : "'${text}'";
  auto file = tmp.write("c.yaml", yaml + "]\n");
  const ConfigDocument doc = compose_document(file);
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  const std::uint64_t limit = pages * 4096 + (150ull << 20);
  const int code = testing::exit_code_with_address_space(limit, [&] {
    try {
      apply_overrides(doc, {});
      return 3;  // it fitted: the test's sizes are wrong
    } catch (const UserError& error) {
      return std::string(error.what())
                         .find(file.string() + ": out of host memory while reading the config") == 0
                 ? 0
                 : 4;
    } catch (const std::bad_alloc&) {
      return 5;
    }
  });
  EXPECT_EQ(code, 0) << "3: no memory ran out, 4: another message, 5: a raw bad_alloc";
}

TEST(ConfigLimits, LongKeysAndTextsAreRefused) {
  EXPECT_NE(convert_error(std::string(300, 'k') + ": 1\n").find("a key of 300 characters"),
            std::string::npos);
  EXPECT_NE(
      convert_error("a: '" + std::string(5000, 'x') + "'\n").find("a text of 5000 characters"),
      std::string::npos);
}

TEST(ConfigLimits, InvalidUtf8IsNamedWithItsPosition) {
  std::string message = convert_error("name: x\nroot: caf\xe9\n");
  EXPECT_NE(message.find("doc.yaml:2:10"), std::string::npos) << message;
  EXPECT_NE(message.find("0xe9, which is not UTF-8"), std::string::npos) << message;
  EXPECT_EQ(convert_error("name: café ☕ 𝄞\n"), "");  // well-formed multi-byte text is fine
  EXPECT_NE(convert_error("a: \xed\xa0\x80\n").find("not UTF-8"), std::string::npos);  // surrogate
  EXPECT_NE(convert_error("a: \xc0\xaf\n").find("not UTF-8"), std::string::npos);      // overlong
}

// Issue 24: yaml-cpp read the first document and dropped the rest silently.
TEST(ConfigLimits, ASecondYamlDocumentIsRefused) {
  std::string message = convert_error("name: x\n---\nname: y\n");
  EXPECT_NE(
      message.find("doc.yaml:2:1: found a second YAML document (after a '---' or '...' line), "
                   "expected one"),
      std::string::npos)
      << message;
  EXPECT_NE(convert_error("name: x\n...\nname: y\n").find("found a second YAML document"),
            std::string::npos);
  EXPECT_EQ(convert_error("---\nname: x\n"), "");  // one document with its start marker
  testing::TempDir dir;
  auto file = dir.write("c.yaml", "name: x\n");
  message = load_error(file, {"name=a\n---\nb"});  // named by the option, not a file's line 2
  EXPECT_NE(message.find("--set name=a\\n---\\nb: name: found the YAML document marker '---' on "
                         "line 2 of the value, expected one value"),
            std::string::npos)
      << message;
}

// Found by the fuzzer: yaml-cpp 0.7's LoadAll parsed a ',' after '...' as endless empty
// documents, allocating until the memory ran out. The file is refused at once.
TEST(ConfigLimits, AStrayCommaAfterADocumentEndIsRefusedNotParsedForEver) {
  std::string message = convert_error("d---\nnstep a\n...\n,---\nname: b\n");
  EXPECT_NE(message.find("doc.yaml:4:1: malformed YAML: a document cannot start with ','"),
            std::string::npos)
      << message;
  message = convert_error(", 1, 1]\nname: x\n");
  EXPECT_NE(message.find("doc.yaml:1:1: malformed YAML: a document cannot start with ','"),
            std::string::npos)
      << message;
}

TEST(ConfigLimits, NulBytesAreRefused) {
  // Found by the fuzzer: leading NULs made yaml-cpp read the text as UTF-32, and the scalars it
  // decoded were not UTF-8 (a raw nlohmann type_error.316 escaped).
  std::string text("\0\0\0ff\0name: x\n", 15);
  std::string message = convert_error(text);
  EXPECT_NE(message.find("doc.yaml:1:1: found the byte 0x00, which is not UTF-8"),
            std::string::npos)
      << message;
}

TEST(ConfigLimits, OverrideThatIsNotUtf8IsRefused) {
  testing::TempDir dir;
  auto file = dir.write("c.yaml", "name: x\n");
  EXPECT_NE(load_error(file, {"name=a\xff"}).find("not UTF-8"), std::string::npos);
}

TEST(ConfigLimits, OversizedConfigIsRefusedUnread) {
  testing::TempDir dir;
  auto file = dir.write("big.yaml", "name: x\n#" + std::string(limits::max_config_bytes, 'x'));
  std::string message = load_error(file);
  EXPECT_NE(message.find("big.yaml: is 1048585 bytes, expected a YAML config file of at most"),
            std::string::npos)
      << message;
}

TEST(ConfigLimits, FifoAndDevicesAreRefusedWithoutBlocking) {
  testing::TempDir dir;
  auto fifo = dir / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(load_error(fifo).find("fifo.yaml: is not a regular file"), std::string::npos);
  EXPECT_NE(load_error("/dev/zero").find("/dev/zero: is not a regular file"), std::string::npos);
  EXPECT_NE(load_error(dir.path()).find("is a folder"), std::string::npos);
}

}  // namespace
}  // namespace runner
