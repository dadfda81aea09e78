// Random search (sweep.random): each distribution's draws (bounds, shape by a fixed-seed
// statistical check, determinism), trials as one more grid axis, and bad spaces named by field.
#include "runner/sweep/search_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "runner/sweep/sweep_plan.h"
#include "runner/sweep/sweep_points.h"
#include "runner/sweep/sweep_spec.h"
#include "runner/util/errors.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

constexpr int kDraws = 4000;

RandomSearch search_of(const std::string& space_json, int trials = kDraws, std::uint64_t seed = 7) {
  nlohmann::json block = {
      {"trials", trials}, {"seed", seed}, {"space", nlohmann::json::parse(space_json)}};
  return read_random_search(block, SourceMap("s.yaml"), "sweep.random");
}

std::vector<nlohmann::json> draws(const RandomSearch& search, std::size_t dimension = 0) {
  std::vector<nlohmann::json> out;
  for (int t = 0; t < search.trials; ++t) out.push_back(sample_trial(search, t)[dimension].second);
  return out;
}

double share(const std::vector<nlohmann::json>& values, double low, double high) {
  int inside = 0;
  for (const auto& v : values) inside += v.get<double>() >= low && v.get<double>() < high;
  return static_cast<double>(inside) / static_cast<double>(values.size());
}

// A share of kDraws within 5 binomial standard deviations of `expected`.
void expect_share(double measured, double expected, const std::string& what) {
  const double sd = std::sqrt(expected * (1 - expected) / kDraws);
  EXPECT_NEAR(measured, expected, 5 * sd) << what;
}

TEST(SearchSpace, UniformDrawsStayInBoundsAndSpreadEvenly) {
  auto values = draws(search_of(R"({"training.optimizer.momentum": {"uniform": [0.5, 0.99]}})"));
  for (const auto& v : values) {
    ASSERT_TRUE(v.is_number_float());
    EXPECT_GE(v.get<double>(), 0.5);
    EXPECT_LE(v.get<double>(), 0.99);
  }
  for (double q : {0.25, 0.5, 0.75}) {
    expect_share(share(values, 0.5, 0.5 + q * 0.49), q, "below quantile " + std::to_string(q));
  }
}

TEST(SearchSpace, LogUniformDrawsAreEvenPerDecade) {
  auto values = draws(search_of(R"({"lr": {"log_uniform": [1.0e-4, 0.1]}})"));
  for (const auto& v : values) {
    EXPECT_GE(v.get<double>(), 1e-4);
    EXPECT_LE(v.get<double>(), 0.1);
  }
  expect_share(share(values, 1e-4, 1e-3), 1.0 / 3, "1e-4..1e-3");
  expect_share(share(values, 1e-3, 1e-2), 1.0 / 3, "1e-3..1e-2");
  expect_share(share(values, 1e-2, 0.1 + 1e-12), 1.0 / 3, "1e-2..1e-1");
  // A uniform draw would put 90 % in the last decade.
}

TEST(SearchSpace, IntegerDistributionsGiveIntegersWithTheirShares) {
  auto values = draws(search_of(R"({"w": {"int_uniform": [1, 4]}})"));
  for (int k = 1; k <= 4; ++k) {
    expect_share(share(values, k, k + 1), 0.25, "int_uniform " + std::to_string(k));
  }
  for (const auto& v : values) ASSERT_TRUE(v.is_number_integer());
  values = draws(search_of(R"({"b": {"int_log_uniform": [1, 100]}})"));
  for (const auto& v : values) {
    ASSERT_TRUE(v.is_number_integer());
    EXPECT_GE(v.get<int>(), 1);
    EXPECT_LE(v.get<int>(), 100);
  }
  // log-uniform over [1, 101) floored: 1 takes log(2)/log(101) of the draws, 50..100 a sixth.
  expect_share(share(values, 1, 2), std::log(2.0) / std::log(101.0), "int_log_uniform 1");
  expect_share(share(values, 50, 101), std::log(101.0 / 50) / std::log(101.0), "50..100");
}

TEST(SearchSpace, ChoicesFollowTheirWeights) {
  auto values = draws(search_of(R"({"device": {"choice": ["cpu", "cuda"], "weights": [3, 1]}})"));
  int cpu = 0;
  for (const auto& v : values) {
    ASSERT_TRUE(v == "cpu" || v == "cuda") << v;
    cpu += v == "cpu";
  }
  expect_share(static_cast<double>(cpu) / kDraws, 0.75, "cpu");
  auto even = draws(search_of(R"({"k": {"choice": [[3, 3], [5, 5]]}})"));
  EXPECT_TRUE(even[0].is_array());
}

TEST(SearchSpace, NormalDrawsRespectTheirBounds) {
  auto values =
      draws(search_of(R"({"x": {"normal": {"mean": 0, "std": 1, "low": -1, "high": 2}}})"));
  for (const auto& v : values) {
    EXPECT_GE(v.get<double>(), -1);
    EXPECT_LE(v.get<double>(), 2);
  }
  // Truncated to [-1, 2]: P(x < 0) = (0.5 - Phi(-1)) / (Phi(2) - Phi(-1)).
  const double below = (0.5 - 0.158655) / (0.977250 - 0.158655);
  expect_share(share(values, -1, 0), below, "below the mean");
  // Bounds that hold next to none of the mass end with an error, not a long loop.
  EXPECT_THROW(
      draws(search_of(R"({"x": {"normal": {"mean": 0, "std": 1, "low": 50, "high": 51}}})", 1)),
      UserError);
}

TEST(SearchSpace, DrawsDependOnTheSeedTrialAndPathOnly) {
  const RandomSearch a = search_of(R"({"lr": {"log_uniform": [1e-4, 0.3]}})", 20, 7);
  const RandomSearch b = search_of(R"({"lr": {"log_uniform": [1e-4, 0.3]},
                                       "momentum": {"uniform": [0.5, 0.99]}})",
                                   20, 7);
  const RandomSearch c = search_of(R"({"lr": {"log_uniform": [1e-4, 0.3]}})", 20, 8);
  EXPECT_EQ(draws(a), draws(a));
  EXPECT_EQ(draws(a), draws(b, 0)) << "adding a dimension changed another's draws";
  EXPECT_NE(draws(a), draws(c));
  std::set<double> distinct;
  for (const auto& v : draws(a)) distinct.insert(v.get<double>());
  EXPECT_EQ(distinct.size(), 20u);
  // Pinned: the first draws of seed 7 (the README's example), which every machine must make
  // (splitmix64, no std:: distribution). A change here changes every recorded search's values.
  const RandomSearch readme = search_of(R"({"training.optimizer.lr": {"log_uniform": [1e-4, 0.3]},
                                            "training.optimizer.momentum": {"uniform": [0.5, 0.99]}})",
                                        1, 7);
  EXPECT_EQ(sample_trial(readme, 0)[0].second.dump(), "0.000188742");
  EXPECT_EQ(sample_trial(readme, 0)[1].second.dump(), "0.6418157");
}

TEST(SearchSpace, TrialsAreOneMoreAxisWithTheSameDrawsAtEveryGridPoint) {
  SweepSpec spec;
  spec.name = "s";
  spec.grid = {parse_axis("training.batch_size=16,32", "--grid")};
  spec.random = search_of(R"({"training.optimizer.lr": {"log_uniform": [1e-4, 0.3]}})", 12);
  auto points = expand_points(spec, 0);
  ASSERT_EQ(points.size(), 24u);
  EXPECT_EQ(points[0].id, "batch_size=16__trial=1");
  EXPECT_EQ(points[23].id, "batch_size=32__trial=12");
  for (int t = 0; t < 12; ++t) {
    const nlohmann::json drawn = sample_trial(*spec.random, t)[0].second;
    EXPECT_EQ(points[t].values_json()["training.optimizer.lr"], drawn);
    EXPECT_EQ(points[12 + t].values_json()["training.optimizer.lr"], drawn);
    EXPECT_EQ(points[t].overrides[1], "training.optimizer.lr=" + drawn.dump());
  }
  // More trials asked for later keep the ids and draws of those done (9, then 12): resuming
  // runs only the new ones.
  SweepSpec nine = spec, twelve = spec;
  nine.grid.clear();
  twelve.grid.clear();
  nine.random->trials = 9;
  const auto before = expand_points(nine, 0), after = expand_points(twelve, 0);
  for (int t = 0; t < 9; ++t) {
    EXPECT_EQ(before[t].id, after[t].id);
    EXPECT_EQ(before[t].overrides, after[t].overrides);
  }
  EXPECT_EQ(after[11].id, "trial=12");
  spec.grid = {parse_axis("training.optimizer.lr=0.1", "--grid")};
  EXPECT_THROW(check_axes(spec, "s.yaml"), UserError);  // searched and an axis
  spec.grid.clear();
  spec.random->trials = 100'001;
  EXPECT_THROW(check_axes(spec, "s.yaml"), UserError);  // beyond the points a sweep may have
}

std::string sweep_file_error(const std::string& random_block) {
  TempDir tmp;
  auto file = tmp.write("s.yaml", "name: s\nbase: x.yaml\nsweep:\n  random:\n" + random_block);
  try {
    read_sweep_file(file);
  } catch (const UserError& error) {
    std::string message = error.what();
    const std::string prefix = file.string() + ":";
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
  }
  return "";
}

TEST(SearchSpace, BadSpacesAreNamedByFileLineAndField) {
  const std::string head = "    trials: 4\n    space:\n";
  const std::string reversed =
      sweep_file_error(head + "      training.optimizer.lr: {uniform: [0.3, 0.1]}\n");
  EXPECT_NE(reversed.find("7:40: sweep.random.space.training.optimizer.lr.uniform: the low bound "
                          "0.3 is not below the high bound 0.1"),
            std::string::npos)
      << reversed;
  EXPECT_NE(sweep_file_error(head + "      lr: {log_uniform: [0, 0.1]}\n")
                .find("a log distribution's low bound 0 is not positive"),
            std::string::npos);
  EXPECT_NE(
      sweep_file_error(head + "      w: {int_uniform: [1, 2.5]}\n").find("are not both integers"),
      std::string::npos);
  // Integers past 10^15 are integers still, refused for what they are (not "not both integers").
  const std::string wide =
      sweep_file_error(head + "      w: {int_uniform: [0, 4611686018427387904]}\n");
  EXPECT_NE(wide.find("[0, 4611686018427387904] reaches beyond 10^15"), std::string::npos) << wide;
  EXPECT_NE(sweep_file_error(head + "      d: {choice: [a, b], weights: [1]}\n")
                .find("1 weights for 2 choices"),
            std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {uniform: [0, 1], weights: [1]}\n")
                .find("weights belong to a choice"),
            std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {uniform: [0, 1], log_uniform: [1, 2]}\n")
                .find("more than one distribution is given"),
            std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {}\n").find("sweep.random.space"), std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {choice: []}\n").find("choice"), std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {gauss: [0, 1]}\n").find("gauss"), std::string::npos);
  EXPECT_NE(sweep_file_error("    trials: 0\n    space: {lr: {uniform: [0, 1]}}\n")
                .find("sweep.random.trials"),
            std::string::npos);
  EXPECT_NE(sweep_file_error("    trials: 3\n").find("space"), std::string::npos);
  EXPECT_NE(sweep_file_error(head + "      d: {normal: {mean: 0, std: 0}}\n").find("std"),
            std::string::npos);
}

TEST(SearchSpace, TheLinearScalingRuleFollowsABatchSizeAxis) {
  SweepSpec spec;
  spec.name = "scaling";
  spec.overrides = {"training.optimizer.lr=${expr:0.05 * training.batch_size / 64}"};
  spec.grid = {parse_axis("training.batch_size=16,64,256", "--grid")};
  auto plan = plan_sweep(spec, tiny_config());
  ASSERT_EQ(plan.size(), 3u);
  for (const PlannedPoint& point : plan) {
    ASSERT_TRUE(point.valid) << point.error;
    const nlohmann::json config = point.config();
    EXPECT_DOUBLE_EQ(config["training"]["optimizer"]["lr"].get<double>(),
                     0.05 * config["training"]["batch_size"].get<int>() / 64)
        << point.point.id;
  }
}

// The manifest of a large sweep is written point by point on every core: the text must be what
// one dump of the whole gives, invalid points, searched values and odd strings included.
TEST(SweepManifest, TheTextWrittenInPartsIsTheWholesDump) {
  SweepSpec spec;
  spec.name = "manifest";
  spec.overrides = {"name=caf\u00e9 \"quoted\"\\n"};
  spec.grid = {parse_axis("model.layers[3].kernel=3,9", "--grid")};  // 9 does not fit: invalid
  spec.random = search_of(R"({"training.optimizer.lr": {"log_uniform": [1e-4, 0.3]}})", 3);
  const auto plan = plan_sweep(spec, tiny_config());
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_FALSE(plan.back().valid);
  const nlohmann::json whole = plan_json(spec, plan);
  EXPECT_EQ(plan_json_text(spec, plan),
            whole.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  EXPECT_EQ(
      plan_json_text(spec, {}),
      plan_json(spec, {}).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace
}  // namespace runner::testing
