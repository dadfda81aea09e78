// SourceMap's subtree operations: a subtree is a path and the fields below it, never a sibling
// whose name merely starts the same way (layers[1] is not layers[10], `lr` is not `lr_min`).
#include "runner/config/source_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace runner {
namespace {

SourceOrigin at_line(int line) {
  SourceOrigin origin;
  origin.line = line;
  origin.column = 1;
  return origin;
}

const std::vector<std::string> kPaths = {
    "model",
    "model.layers",
    "model.layers[1]",
    "model.layers[1].kernel",
    "model.layers[10]",
    "model.layers[10].kernel",
    "model.layers[2]",
    "training.lr",
    "training.lr_min",
};

SourceMap numbered_map() {
  SourceMap map("x.yaml");
  for (std::size_t i = 0; i < kPaths.size(); ++i) map.add(kPaths[i], at_line(int(i) + 1));
  return map;
}

std::vector<std::string> recorded(const SourceMap& map) {
  std::vector<std::string> out;
  for (const auto& path : kPaths) {
    if (map.find(path)) out.push_back(path);
  }
  return out;
}

TEST(SourceMapSubtree, ErasingALayerKeepsTheLayersWhoseIndexStartsTheSame) {
  SourceMap map = numbered_map();
  map.erase_subtree("model.layers[1]");
  EXPECT_EQ(recorded(map), (std::vector<std::string>{"model", "model.layers", "model.layers[10]",
                                                     "model.layers[10].kernel", "model.layers[2]",
                                                     "training.lr", "training.lr_min"}));
  map.erase_subtree("training.lr");
  EXPECT_NE(map.find("training.lr_min"), nullptr);
  EXPECT_EQ(map.find("training.lr"), nullptr);
}

TEST(SourceMapSubtree, ErasingTheTopLevelForgetsEverything) {
  SourceMap map = numbered_map();
  map.erase_subtree("");
  EXPECT_TRUE(recorded(map).empty());
}

TEST(SourceMapSubtree, CopyingALayerCopiesItsFieldsOnlyAndReplacesWhatWasThere) {
  SourceMap from = numbered_map();
  SourceMap to("y.yaml");
  to.add("model.layers[7].stride", at_line(99));
  to.copy_subtree_to(from, "model.layers[1]", "model.layers[7]");
  ASSERT_NE(to.find("model.layers[7].kernel"), nullptr);
  EXPECT_EQ(to.find("model.layers[7].kernel")->line, 4);
  EXPECT_EQ(to.find("model.layers[7].kernel")->file, "x.yaml");
  EXPECT_EQ(to.find("model.layers[7]")->line, 3);
  EXPECT_EQ(to.find("model.layers[7].stride"), nullptr);
  EXPECT_EQ(to.find("model.layers[70]"), nullptr);
  EXPECT_EQ(to.find("model.layers[70].kernel"), nullptr);
  EXPECT_EQ(to.locate("model.layers[7].kernel").line, 4);
}

}  // namespace
}  // namespace runner
