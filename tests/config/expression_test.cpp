// ${expr:...}: arithmetic of numbers and config fields (the linear-scaling rule), its types, and
// the errors that name the field holding it.
#include "runner/config/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "runner/config/interpolate.h"
#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

nlohmann::json evaluated(const std::string& text) {
  const std::map<std::string, nlohmann::json> fields = {{"training.batch_size", 256},
                                                        {"training.lr", 0.1},
                                                        {"name", "x"},
                                                        {"model.layers[1].n", 3},
                                                        {"größe", 2},
                                                        {"training.big", 9007199254740993ULL},
                                                        {"project", true},
                                                        {"order", 5}};
  return evaluate_expression(text, [&](const std::string& path) {
    auto found = fields.find(path);
    if (found == fields.end()) throw UserError("no field " + path);
    return found->second;
  });
}

std::string error_of(const std::string& text) {
  try {
    evaluated(text);
  } catch (const ExpressionError& error) {
    return error.what();
  }
  return "";
}

TEST(Expression, FollowsArithmeticPrecedence) {
  EXPECT_EQ(evaluated("1 + 2 * 3"), 7);
  EXPECT_EQ(evaluated("(1 + 2) * 3"), 9);
  EXPECT_EQ(evaluated("10 - 4 - 3"), 3);  // left to right
  EXPECT_DOUBLE_EQ(evaluated("8 / 4 / 2").get<double>(), 1.0);
  EXPECT_EQ(evaluated("-2 * -3"), 6);
  EXPECT_DOUBLE_EQ(evaluated("1.5e-3 * 2").get<double>(), 3e-3);
}

TEST(Expression, TheLinearScalingRuleReadsFields) {
  nlohmann::json lr = evaluated("0.1 * training.batch_size / 128");
  ASSERT_TRUE(lr.is_number_float());
  EXPECT_DOUBLE_EQ(lr.get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(evaluated("training.lr * sqrt(training.batch_size / 64)").get<double>(), 0.2);
  EXPECT_EQ(evaluated("model.layers[1].n * 2"), 6);
}

TEST(Expression, IntegersStayIntegersUntilDivisionOrSqrt) {
  EXPECT_TRUE(evaluated("training.batch_size * 2").is_number_integer());
  EXPECT_TRUE(evaluated("max(training.batch_size, 64) - 1").is_number_integer());
  EXPECT_TRUE(evaluated("round(training.batch_size / 3)").is_number_integer());
  EXPECT_EQ(evaluated("round(training.batch_size / 3)"), 85);
  EXPECT_TRUE(evaluated("4 / 2").is_number_float());
  EXPECT_TRUE(evaluated("2.0 * 3").is_number_float());
  EXPECT_EQ(evaluated("min(3, 2)"), 2);
}

// Integers past 2^53 would become their neighbours as doubles (a seed of 9007199254740993 ran as
// ...992): refused naming the limit, whether written, read from a field or computed.
TEST(Expression, IntegersPastTwoToThe53AreRefusedNotRounded) {
  EXPECT_EQ(evaluated("9007199254740992"), 9007199254740992LL) << "2^53 itself is exact";
  for (const char* text : {"9007199254740993", "99999999999999999999999", "2 * 9007199254740992",
                           "-9007199254740993 + 1"}) {
    const std::string message = error_of(text);
    EXPECT_NE(message.find("beyond 2^53 (9007199254740992)"), std::string::npos)
        << text << ": " << message;
  }
  EXPECT_NE(error_of("training.big + 1").find("training.big (9007199254740993) is beyond 2^53"),
            std::string::npos)
      << error_of("training.big + 1");
  EXPECT_DOUBLE_EQ(evaluated("1e20").get<double>(), 1e20) << "a written double stays a double";
}

TEST(Expression, MistakesAreSaidWithWhereTheyAre) {
  EXPECT_NE(error_of("1 / (2 - 2)").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("sqrt(-1)").find("sqrt of a negative number"), std::string::npos);
  EXPECT_NE(error_of("log(2)").find("unknown function 'log'"), std::string::npos);
  EXPECT_NE(error_of("(1 + 2").find("expected ')' at the end"), std::string::npos);
  EXPECT_NE(error_of("1 + ").find("expected a number, a field or '(' at the end"),
            std::string::npos);
  EXPECT_NE(error_of("1 2").find("unexpected '2' at character 3 of '1 2'"), std::string::npos);
  EXPECT_NE(error_of("name * 2").find("name is \"x\", not a number or true/false"),
            std::string::npos);
  EXPECT_NE(error_of("min(1)").find("expected ','"), std::string::npos);
  EXPECT_NE(error_of("1e999").find("malformed number"), std::string::npos);
  EXPECT_NE(error_of("2 $ 3").find("unexpected '$'"), std::string::npos);
}

// A block's `enabled: ${expr:stride == 1 and in == out}`: comparisons and logic give true/false.
TEST(Expression, ComparisonsAndLogicGiveTrueOrFalse) {
  EXPECT_EQ(evaluated("training.batch_size == 256"), true);
  EXPECT_EQ(evaluated("training.batch_size != 256"), false);
  EXPECT_EQ(evaluated("1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 4"), false);
  EXPECT_EQ(evaluated("1 > 2 or not (2 > 3)"), true);
  EXPECT_EQ(evaluated("not project"), false);
  EXPECT_EQ(evaluated("2 * 3 == 6 and model.layers[1].n == 3"), true);  // arithmetic binds first
  EXPECT_EQ(evaluated("order > 4"), true);  // "order" is a field, not "or" and "der"
  EXPECT_TRUE(evaluated("1 == 1").is_boolean());
  EXPECT_NE(error_of("(1 < 2) + 1").find("true or false used as a number"), std::string::npos);
  EXPECT_NE(error_of("1 and 1 < 2").find("'and' needs true or false, found the number 1"),
            std::string::npos);
  EXPECT_NE(error_of("project < 2").find("true or false used as a number"), std::string::npos);
  EXPECT_NE(error_of("not 3").find("'not' needs true or false"), std::string::npos);
}

// A message once quoted the first byte of 'é' alone and counted bytes as characters.
TEST(Expression, MistakesPointAtWholeCharacters) {
  EXPECT_EQ(error_of("1 + 2é"), "unexpected 'é' at character 6 of '1 + 2é'");
  EXPECT_EQ(error_of("(1 + 2 €"), "expected ')', found '€' at character 8 of '(1 + 2 €'");
  EXPECT_EQ(error_of("1 + 2 🐈"), "unexpected '🐈' at character 7 of '1 + 2 🐈'");
  EXPECT_EQ(error_of("größe $ 1"), "unexpected '$' at character 7 of 'größe $ 1'");
  EXPECT_EQ(error_of("größe / 0"), "division by zero at character 10 of 'größe / 0'");
  try {  // a name is looked up whole, not as "training.b" and a stray byte
    evaluated("2 * training.bätch");
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "no field training.bätch");
  }
}

TEST(Expression, DeepNestingIsRefusedNotRecursedInto) {
  const std::string deep = std::string(100'000, '(') + "1" + std::string(100'000, ')');
  EXPECT_NE(error_of(deep).find("nested more than 64 levels deep"), std::string::npos);
  EXPECT_NE(error_of(std::string(100'000, '-') + "1").find("nested more than"), std::string::npos);
  EXPECT_EQ(evaluated(std::string(60, '(') + "1" + std::string(60, ')')), 1);
}

TEST(Expression, ABatchSizeSweepScalesTheLearningRateThroughTheConfig) {
  testing::TempDir tmp;
  auto file =
      tmp.write("c.yaml",
                "name: x\ntraining:\n  batch_size: 128\n"
                "  eval_batch_size: ${expr:training.batch_size * 4}\n"
                "  optimizer: {type: sgd, lr: '${expr:0.1 * training.batch_size / 128}'}\n");
  ConfigDocument doc = read_config(file, {"training.batch_size=512"});
  EXPECT_DOUBLE_EQ(doc.json["training"]["optimizer"]["lr"].get<double>(), 0.4);
  EXPECT_EQ(doc.json["training"]["eval_batch_size"], 2048);
  auto bad = tmp.write("bad.yaml", "name: x\ntraining:\n  optimizer: {lr: '${expr:0.1 / nope}'}\n");
  try {
    read_config(bad, {});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find(bad.string() + ":3:"), std::string::npos) << message;
    EXPECT_NE(message.find("training.optimizer.lr: ${nope} refers to nope"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace runner
