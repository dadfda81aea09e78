// YAML to JSON: scalar typing by the YAML 1.2 core schema, quoting, the source map and paths.
#include "runner/config/yaml_to_json.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runner/config/field_path.h"

namespace runner {
namespace {

TEST(PlainScalars, FollowTheYaml12CoreSchema) {
  struct Case {
    std::string text;
    nlohmann::json value;
  };
  for (const Case& c :
       {Case{"true", true}, Case{"True", true},    Case{"FALSE", false},   Case{"yes", "yes"},
        Case{"on", "on"},   Case{"~", nullptr},    Case{"null", nullptr},  Case{"", nullptr},
        Case{"12", 12},     Case{"-3", -3},        Case{"+7", 7},          Case{"007", 7},
        Case{"0x1F", 31},   Case{"0o17", 15},      Case{"1.5", 1.5},       Case{"1e-3", 0.001},
        Case{".5", 0.5},    Case{"-2.", -2.0},     Case{"1.2.3", "1.2.3"}, Case{"cuda:0", "cuda:0"},
        Case{"0x", "0x"},   Case{"12abc", "12abc"}}) {
    nlohmann::json value = plain_scalar_to_json(c.text);
    EXPECT_EQ(value, c.value) << "'" << c.text << "' became " << value.dump();
    EXPECT_EQ(value.type(), c.value.type()) << "'" << c.text << "'";
  }
  EXPECT_TRUE(std::isinf(plain_scalar_to_json(".inf").get<double>()));
  EXPECT_TRUE(std::isnan(plain_scalar_to_json(".NaN").get<double>()));
  EXPECT_TRUE(plain_scalar_to_json("18446744073709551615").is_number_unsigned());
  EXPECT_TRUE(plain_scalar_to_json("99999999999999999999999").is_number_float());
}

TEST(YamlToJson, QuotedAndTaggedScalarsStayStrings) {
  SourceMap map("q.yaml");
  nlohmann::json json =
      yaml_to_json("a: '5'\nb: \"true\"\nc: !!str 7\nd: 5\ne: |\n  12\nf:\n", "q.yaml", map);
  EXPECT_EQ(json["a"], "5");
  EXPECT_EQ(json["b"], "true");
  EXPECT_EQ(json["c"], "7");
  EXPECT_EQ(json["d"], 5);
  EXPECT_EQ(json["e"], "12\n");
  EXPECT_TRUE(json["f"].is_null());
}

TEST(YamlToJson, SourceMapHasEveryFieldWithLineAndColumn) {
  SourceMap map("m.yaml");
  nlohmann::json json = yaml_to_json(
      "model:\n"
      "  layers:\n"
      "    - {name: a, kernel: [3, 5]}\n"
      "    - name: b\n"
      "      kernel: 2\n",
      "m.yaml", map);
  ASSERT_EQ(json["model"]["layers"].size(), 2u);
  SourceLocation kernel = map.locate("model.layers[0].kernel[1]");
  EXPECT_EQ(kernel.file, "m.yaml");
  EXPECT_EQ(kernel.path, "model.layers[0].kernel[1]");
  EXPECT_EQ(kernel.line, 3);
  EXPECT_EQ(kernel.column, 29);
  SourceLocation second = map.locate("model.layers[1].kernel");
  EXPECT_EQ(second.line, 5);
  EXPECT_EQ(second.column, 15);
  SourceLocation key = map.locate("model.layers[1].kernel", true);
  EXPECT_EQ(key.line, 5);
  EXPECT_EQ(key.column, 7);
  // A field that is not there is placed at its nearest ancestor.
  SourceLocation absent = map.locate("model.layers[1].stride");
  EXPECT_EQ(absent.path, "model.layers[1].stride");
  EXPECT_EQ(absent.line, 4);
  EXPECT_EQ(absent.column, 7);
}

TEST(YamlToJson, MalformedYamlAndDuplicateKeysAreUserErrors) {
  SourceMap map("bad.yaml");
  try {
    yaml_to_json("a: [1, 2\nb: 3\n", "bad.yaml", map);
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "bad.yaml:2:2: malformed YAML: end of sequence flow not found");
  }
  try {
    yaml_to_json("a:\n  b: 1\n  b: 2\n", "bad.yaml", map);
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "bad.yaml:3:3: a.b: duplicate key 'b' (first given on line 2)");
  }
}

TEST(FieldPath, ParsesAndFormatsRoundTrip) {
  for (const std::string text :
       {"training.batch_size", "model.layers[3].kernel", "a[0][1].b", "x"}) {
    auto path = parse_path(text);
    ASSERT_TRUE(path.has_value()) << text;
    EXPECT_EQ(format_path(*path), text);
  }
  auto path = parse_path("model.layers[3].kernel");
  ASSERT_EQ(path->size(), 4u);
  EXPECT_EQ((*path)[2].index, 3u);
  for (const std::string bad : {"", ".", "a.", ".a", "a..b", "a[", "a[]", "a[x]", "a[-1]", "a[1"}) {
    EXPECT_FALSE(parse_path(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_EQ(parent_path("model.layers[3].kernel"), "model.layers[3]");
  EXPECT_EQ(parent_path("model.layers[3]"), "model.layers");
  EXPECT_EQ(parent_path("model"), "");
}

}  // namespace
}  // namespace runner
