// Sweep points: grid and zip expansion, stable ids, overrides that read back, seeds, and the
// checks on axes and sweep files.
#include "runner/sweep/sweep_points.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "runner/util/errors.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

SweepSpec spec_with(std::vector<SweepAxis> grid, std::vector<SweepAxis> zip = {}) {
  SweepSpec spec;
  spec.name = "t";
  spec.grid = std::move(grid);
  spec.zip = std::move(zip);
  return spec;
}

TEST(SweepPoints, GridIsTheCartesianProductWithTheLastAxisFastest) {
  SweepSpec spec = spec_with({parse_axis("training.batch_size=8,16,32", "--grid"),
                              parse_axis("model.width=0.5,1", "--grid")});
  auto points = expand_points(spec, 0);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].id, "batch_size=8__width=0.5");
  EXPECT_EQ(points[1].id, "batch_size=8__width=1");
  EXPECT_EQ(points[5].id, "batch_size=32__width=1");
  EXPECT_EQ(points[5].index, 5);
  EXPECT_EQ(points[2].values_json(),
            (nlohmann::json{{"training.batch_size", 16}, {"model.width", 0.5}}));
  EXPECT_EQ(points[2].overrides[0], "training.batch_size=16");
  EXPECT_EQ(points[2].overrides[1], "model.width=0.5");
}

TEST(SweepPoints, ZipVariesTogetherAsOneMoreAxis) {
  SweepSpec spec = spec_with({parse_axis("device=cpu,cuda", "--grid")},
                             {parse_axis("training.batch_size=16,64", "--zip"),
                              parse_axis("training.optimizer.lr=0.01,0.04", "--zip")});
  auto points = expand_points(spec, 0);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].id, "device=cpu__batch_size=64__lr=0.04");
  EXPECT_EQ(points[2].id, "device=cuda__batch_size=16__lr=0.01");
}

TEST(SweepPoints, IdsAreStableAndUseTheFullPathWhenNamesClash) {
  SweepSpec spec = spec_with(
      {parse_axis("model.width=2", "--grid"), parse_axis("dataset.synthetic.width=8", "--grid")});
  EXPECT_EQ(expand_points(spec, 0)[0].id, "model.width=2__dataset.synthetic.width=8");
  EXPECT_EQ(expand_points(spec, 0)[0].id,
            expand_points(spec, 7)[0].id);  // the seed is not in the id
  SweepSpec lists = spec_with({parse_axis("model.layers[0].kernel=[3,3],[5, 5]", "--grid")});
  auto points = expand_points(lists, 0);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].values[0].second, nlohmann::json::array({5, 5}));
  EXPECT_EQ(points[1].id, "kernel=_5_5_");
}

// "a b" and "a_b" once made one folder name, refused as "points are the same": two values are
// two points, the value that shows as it is keeping its plain id.
TEST(SweepPoints, ValuesThatDifferOnlyWhereFolderNamesCannotShowItAreTwoPoints) {
  SweepSpec spec = spec_with({parse_axis("tags.note=a_b,\"a b\",\"a:b\",1,\"1\"", "--grid"),
                              parse_axis("model.layers[0].name=conv_1,\"conv 1\"", "--grid")});
  const std::vector<SweepPoint> points = expand_points(spec, 0);
  ASSERT_EQ(points.size(), 10u);
  std::set<std::string> ids;
  for (const SweepPoint& point : points) ids.insert(point.id);
  EXPECT_EQ(ids.size(), points.size()) << "every point its own folder";
  EXPECT_EQ(points[0].id, "note=a_b__name=conv_1");
  EXPECT_EQ(points[2].id.rfind("note=a_b-", 0), 0u) << points[2].id;  // "a b", told apart
  EXPECT_EQ(points[2].id.substr(points[2].id.find("__")), "__name=conv_1");
  EXPECT_EQ(points[3].id.substr(points[3].id.find("__")).rfind("__name=conv_1-", 0), 0u)
      << points[3].id;
  EXPECT_EQ(points[6].id, "note=1__name=conv_1");  // the number 1 and the text "1"
  EXPECT_EQ(points[8].id.rfind("note=1-", 0), 0u) << points[8].id;
  EXPECT_EQ(points[2].values_json()["tags.note"], "a b");
  EXPECT_EQ(expand_points(spec, 0)[2].id, points[2].id) << "stable";
  EXPECT_NE(points[0].overrides.back(), points[2].overrides.back()) << "seeds of their own";
  // The same value twice is still one point given twice.
  try {
    expand_points(spec_with({parse_axis("tags.note=a_b,a_b", "--grid")}), 0);
    ADD_FAILURE() << "a value given twice was accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "sweep: points 1 and 2 are the same (note=a_b); give each value of an axis once");
  }
}

// A point's overrides name where each axis value was written, for the point's error.
TEST(SweepPoints, EachOverrideKnowsWhereItWasWritten) {
  SweepSpec spec = spec_with({parse_axis("name=3,ok", "--grid")});
  spec.overrides = {"training.epochs=1"};
  const std::vector<SweepPoint> points = expand_points(spec, 0);
  ASSERT_EQ(points[0].overrides.size(), 3u);  // the sweep's, the axis's, the seed
  EXPECT_EQ(points[0].origins, (std::vector<std::string>{"", "--grid name=3", ""}));
  EXPECT_EQ(points[1].origins[1], "--grid name=ok");
}

TEST(SweepPoints, OverridesReadBackAsTheSameValue) {
  EXPECT_EQ(override_text("device", "cpu"), "device=cpu");
  EXPECT_EQ(override_text("name", "1"), "name=\"1\"");  // a string that YAML would read as a number
  EXPECT_EQ(override_text("name", "yes"), "name=yes");  // YAML 1.2: still a string
  EXPECT_EQ(override_text("model.width", 0.5), "model.width=0.5");
  EXPECT_EQ(override_text("model.layers[0].kernel", nlohmann::json::array({3, 3})),
            "model.layers[0].kernel=[3,3]");
}

TEST(SweepPoints, EachPointHasItsOwnSeedUnlessTheSweepFixesOne) {
  SweepSpec spec = spec_with({parse_axis("training.batch_size=8,16", "--grid")});
  auto points = expand_points(spec, 0);
  ASSERT_EQ(points[0].overrides.size(), 2u);
  EXPECT_EQ(points[0].overrides[1].rfind("seed=", 0), 0u);
  EXPECT_NE(points[0].overrides[1], points[1].overrides[1]);
  EXPECT_EQ(points[0].overrides[1], expand_points(spec, 0)[0].overrides[1]);  // stable
  EXPECT_NE(points[0].overrides[1],
            expand_points(spec, 1)[0].overrides[1]);  // follows the base seed
  spec.seed = 3;
  EXPECT_EQ(expand_points(spec, 0)[1].overrides.back(), "seed=3");
  SweepSpec seeds = spec_with({parse_axis("seed=1,2", "--grid")});
  EXPECT_EQ(expand_points(seeds, 0)[1].overrides, std::vector<std::string>{"seed=2"});
}

TEST(SweepPoints, RepeatsRunEveryPointWithSeedsFromTheBaseSeedAsTheFastestAxis) {
  SweepSpec spec = spec_with({parse_axis("training.batch_size=8,16", "--grid")});
  spec.repeats = 3;
  const std::uint64_t config_seed = 40;
  auto points = expand_points(spec, config_seed);
  ASSERT_EQ(points.size(), 2u * 3u);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::uint64_t seed = config_seed + i % 3;
    const int batch = i < 3 ? 8 : 16;
    EXPECT_EQ(points[i].id, fmt::format("batch_size={}__seed={}", batch, seed));
    EXPECT_EQ(points[i].values_json(),
              (nlohmann::json{{"training.batch_size", batch}, {"seed", seed}}));
    EXPECT_EQ(points[i].overrides,
              (std::vector<std::string>{fmt::format("training.batch_size={}", batch),
                                        fmt::format("seed={}", seed)}))
        << "the repeat's seed is the point's only seed override";
  }
  spec.seed = 7;  // the sweep's seed is the first seed
  points = expand_points(spec, config_seed);
  EXPECT_EQ(points[0].id, "batch_size=8__seed=7");
  EXPECT_EQ(points[2].overrides.back(), "seed=9");
  spec.repeats = 4;  // more repeats keep the ids of the first ones: a resumed sweep skips them
  auto more = expand_points(spec, config_seed);
  EXPECT_EQ(more[0].id, points[0].id);
  EXPECT_EQ(more[2].id, points[2].id);
  EXPECT_EQ(more[3].id, "batch_size=8__seed=10");
  spec.repeats = 1;  // one run: the ids and seeds of a sweep without repeats
  EXPECT_EQ(expand_points(spec, config_seed)[0].id, "batch_size=8");
  EXPECT_EQ(expand_points(spec, config_seed)[0].overrides.back(), "seed=7");
}

TEST(SweepPoints, RepeatsAloneVaryOnlyTheSeed) {
  SweepSpec spec = spec_with({});
  spec.repeats = 2;
  check_axes(spec, "cmd");  // no axis but the repeats': accepted
  auto points = expand_points(spec, 5);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].id, "seed=6");
}

TEST(SweepPoints, RepeatsAndASeedAxisAreRefusedAndCountTowardsTheGridSize) {
  SweepSpec spec = spec_with({parse_axis("seed=1,2", "--grid")});
  spec.repeats = 2;
  try {
    check_axes(spec, "s.yaml");
    ADD_FAILURE() << "repeats and a seed axis were accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml: repeats: 2 and a seed axis both vary the seed"),
              std::string::npos)
        << e.what();
  }
  SweepSpec big = spec_with({parse_axis("training.batch_size=1,2,3,4,5,6,7,8,9,10", "--grid")});
  big.repeats = static_cast<int>(kMaxSweepPoints / 10);
  check_grid_size(big, "s.yaml");
  big.repeats += 1;
  EXPECT_THROW(check_grid_size(big, "s.yaml"), UserError);
}

TEST(SweepFile, RepeatsAreReadAndCheckedByTheSchema) {
  TempDir tmp;
  auto file = tmp.write("r.yaml",
                        "name: r\nbase: x.yaml\nrepeats: 3\nseed: 2\nsweep: {grid: "
                        "{training.batch_size: [8]}}\n");
  SweepSpec spec = read_sweep_file(file);
  EXPECT_EQ(spec.repeats, 3);
  EXPECT_EQ(expand_points(spec, 0).back().id, "batch_size=8__seed=4");
  auto zero = tmp.write("z.yaml",
                        "name: r\nbase: x.yaml\nrepeats: 0\nsweep: {grid: {training.batch_size: "
                        "[8]}}\n");
  try {
    read_sweep_file(zero);
    ADD_FAILURE() << "repeats: 0 was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("z.yaml:3:10: repeats:"), std::string::npos) << e.what();
  }
}

TEST(SweepPoints, BadAxesAreUserErrors) {
  EXPECT_THROW(parse_axis("training.batch_size", "--grid"), UserError);
  EXPECT_THROW(parse_axis("training.batch_size=8,,16", "--grid"), UserError);
  SweepSpec uneven = spec_with(
      {}, {parse_axis("training.batch_size=8,16", "--zip"), parse_axis("model.width=1", "--zip")});
  try {
    check_axes(uneven, "cmd");
    ADD_FAILURE() << "zip lists of different lengths were accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("model.width has 1 values but training.batch_size has 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_axes(spec_with({}), "cmd"), UserError);
  EXPECT_THROW(expand_points(spec_with({parse_axis("training.batch_size=8,8", "--grid")}), 0),
               UserError);
}

TEST(SweepFile, ReadsTheShippedSweepsAndResolvesTheBaseAgainstTheFile) {
  int read = 0;  // every file of configs/sweeps/, listed so that a new one is read too
  for (const auto& entry :
       std::filesystem::directory_iterator(source_dir() / "configs" / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    const auto& file = entry.path();
    const std::string name = file.stem().string();
    ++read;
    SweepSpec spec = read_sweep_file(file);
    EXPECT_EQ(spec.name, name);
    EXPECT_TRUE(std::filesystem::exists(spec.base_config)) << spec.base_config;
    EXPECT_GE(expand_points(spec, 0).size(), 4u) << name;
  }
  EXPECT_GE(read, 3) << "batch_size, width and cpu_vs_gpu at least";
}

TEST(SweepFile, SchemaErrorsNameTheFileLineAndField) {
  TempDir tmp;
  auto file = tmp.write(
      "s.yaml",
      "name: s\nbase: x.yaml\nmode: benchmark\nsweeep:\n  grid: {training.batch_size: [1]}\n");
  ASSERT_TRUE(is_sweep_file(file));
  try {
    read_sweep_file(file);
    ADD_FAILURE() << "a misspelt key was accepted";
  } catch (const UserError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("s.yaml:4:1: sweeep: unknown key (did you mean 'sweep'?"),
              std::string::npos)
        << message;
  }
  auto bad_mode =
      tmp.write("m.yaml", "name: s\nbase: x.yaml\nmode: fast\nsweep: {grid: {seed: [1]}}\n");
  try {
    read_sweep_file(bad_mode);
    ADD_FAILURE() << "an unknown mode was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "m.yaml:3:7: mode: found \"fast\", expected one of benchmark, train"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(is_sweep_file(tiny_config()));
}

}  // namespace
}  // namespace runner::testing
