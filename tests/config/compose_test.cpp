// Configs that include others (defaults:/include:): merge order, !replace, where errors point,
// and the problems a composition can have (missing file, cycle, not a mapping, depth).
#include "runner/config/compose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "runner/config/load_config.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::TempDir;

// The message of the UserError that `read_config` throws, or "" when it throws none.
std::string read_error(const std::filesystem::path& file,
                       const std::vector<std::string>& overrides = {}) {
  try {
    read_config(file, overrides);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Compose, IncludedFilesMergeInOrderAndTheIncludingFileWins) {
  TempDir tmp;
  tmp.write("base.yaml",
            "name: base\ntraining:\n  epochs: 2\n  batch_size: 4\n  optimizer: {type: sgd, lr: "
            "0.1}\nmodel: {layers: [1, 2, 3]}\n");
  tmp.write("more.yaml", "training:\n  epochs: 5\nmodel: {layers: [9]}\n");
  auto top = tmp.write("top.yaml",
                       "defaults: [base.yaml, more.yaml]\nname: top\ntraining:\n  optimizer: "
                       "{lr: 0.01}\n");
  ConfigDocument doc = read_config(top, {});
  EXPECT_EQ(doc.json["name"], "top");
  EXPECT_EQ(doc.json["training"]["epochs"], 5);      // more.yaml after base.yaml
  EXPECT_EQ(doc.json["training"]["batch_size"], 4);  // kept from base.yaml
  EXPECT_EQ(doc.json["training"]["optimizer"], nlohmann::json({{"type", "sgd"}, {"lr", 0.01}}));
  EXPECT_EQ(doc.json["model"]["layers"], nlohmann::json({9}));  // lists are replaced
  EXPECT_FALSE(doc.json.contains("defaults"));
}

TEST(Compose, IncludeTakesOnePathRelativeToTheIncludingFile) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "variants");
  tmp.write("base.yaml", "name: base\nseed: 3\n");
  auto top = tmp.write("variants/top.yaml", "include: ../base.yaml\nname: top\n");
  ConfigDocument doc = read_config(top, {});
  EXPECT_EQ(doc.json, nlohmann::json({{"name", "top"}, {"seed", 3}}));
}

TEST(Compose, ReplaceTagSwapsAWholeMapping) {
  TempDir tmp;
  tmp.write("base.yaml", "training:\n  optimizer: {type: sgd, lr: 0.1, momentum: 0.9}\n");
  auto top = tmp.write(
      "top.yaml", "defaults: [base.yaml]\ntraining:\n  optimizer: !replace {type: adam, lr: 1}\n");
  ConfigDocument doc = read_config(top, {});
  EXPECT_EQ(doc.json["training"]["optimizer"], nlohmann::json({{"type", "adam"}, {"lr", 1}}));
}

TEST(Compose, EveryFieldKeepsTheFileAndLineItCameFrom) {
  TempDir tmp;
  auto base = tmp.write("base.yaml", "name: base\ntraining:\n  epochs: 2\n  batch_size: 4\n");
  auto top = tmp.write("top.yaml", "defaults: [base.yaml]\ntraining:\n  epochs: 7\n");
  ConfigDocument doc = read_config(top, {});
  SourceLocation batch = doc.source_map.locate("training.batch_size");
  EXPECT_EQ(batch.file, base.string());
  EXPECT_EQ(batch.line, 4);
  SourceLocation epochs = doc.source_map.locate("training.epochs");
  EXPECT_EQ(epochs.file, top.string());
  EXPECT_EQ(epochs.line, 3);
}

TEST(Compose, ASchemaErrorInAnIncludedValueNamesTheIncludedFile) {
  TempDir tmp;
  auto base = tmp.write("base.yaml", std::string("name: x\ntraining:\n  batch_size: lots\n"));
  auto top = tmp.write("top.yaml", "defaults: [base.yaml]\nseed: 1\n");
  try {
    validate_config(read_config(top, {}));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(base.string() + ":3:"), std::string::npos) << message;
    EXPECT_NE(message.find("training.batch_size"), std::string::npos) << message;
  }
}

TEST(Compose, ProblemsInSeveralFilesAreListedFileByFile) {
  TempDir tmp;
  auto base = tmp.write("base.yaml", "name: x\nseed: -1\ntraining:\n  batch_size: lots\n");
  // top.yaml's line 3 falls between base.yaml's lines 2 and 4: ordered by line alone, the
  // problems of the two files would interleave.
  auto top = tmp.write("top.yaml", "defaults: [base.yaml]\nname: y\ndevice: 7\n");
  try {
    validate_config(read_config(top, {}));
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    std::string message = e.what();
    std::size_t seed = message.find(base.string() + ":2:");
    std::size_t batch = message.find(base.string() + ":4:");
    std::size_t device = message.find(top.string() + ":3:");
    ASSERT_NE(seed, std::string::npos) << message;
    ASSERT_NE(batch, std::string::npos) << message;
    ASSERT_NE(device, std::string::npos) << message;
    EXPECT_LT(seed, batch) << message;
    // Not interleaved by line number across the files.
    EXPECT_TRUE((device < seed && device < batch) || (device > seed && device > batch)) << message;
  }
}

TEST(Compose, AMissingFileNamesTheIncludingFileAndField) {
  TempDir tmp;
  auto top = tmp.write("top.yaml", "seed: 1\ndefaults:\n  - nowhere.yaml\n");
  std::string message = read_error(top);
  EXPECT_NE(message.find(top.string() + ":3:"), std::string::npos) << message;
  EXPECT_NE(message.find("defaults[0]"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot find the included file 'nowhere.yaml'"), std::string::npos)
      << message;
}

// /dev/stdin from a pipe is a link to "pipe:[N]", which has no canonical path (issue 24).
TEST(Compose, AnIncludedPipeIsRefusedAsNotARegularFile) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  TempDir tmp;
  auto top = tmp.write("top.yaml", "include: /proc/self/fd/" + std::to_string(fds[0]) + "\n");
  std::string message = read_error(top);
  close(fds[0]);
  close(fds[1]);
  EXPECT_NE(message.find(top.string() + ":1:"), std::string::npos) << message;
  EXPECT_NE(message.find("is not a regular file (a folder, a FIFO, a socket or a device)"),
            std::string::npos)
      << message;
}

TEST(Compose, ACycleIsAnErrorThatShowsTheChain) {
  TempDir tmp;
  tmp.write("a.yaml", "include: b.yaml\nseed: 1\n");
  tmp.write("b.yaml", "include: a.yaml\nseed: 2\n");
  std::string message = read_error(tmp / "a.yaml");
  EXPECT_NE(message.find("includes itself: a.yaml -> b.yaml -> a.yaml"), std::string::npos)
      << message;
  EXPECT_NE(message.find("b.yaml:1:"), std::string::npos) << message;
  tmp.write("self.yaml", "include: self.yaml\n");
  EXPECT_NE(read_error(tmp / "self.yaml").find("includes itself"), std::string::npos);
}

TEST(Compose, AnIncludeThatIsNotAMappingOrNotAPathIsAnError) {
  TempDir tmp;
  tmp.write("list.yaml", "- 1\n- 2\n");
  auto top = tmp.write("top.yaml", "include: [list.yaml]\n");
  std::string message = read_error(top);
  EXPECT_NE(message.find("include[0]"), std::string::npos) << message;
  EXPECT_NE(message.find("'list.yaml' holds a list, expected a mapping"), std::string::npos)
      << message;
  auto group = tmp.write("group.yaml", "defaults:\n  - optimizer: adam\n");
  message = read_error(group);
  EXPECT_NE(message.find("defaults[0]: found a mapping, expected the path of a YAML file"),
            std::string::npos)
      << message;
}

TEST(Compose, IncludesNestedTooDeepAreAnError) {
  TempDir tmp;
  for (int i = 0; i <= kMaxIncludeDepth + 1; ++i) {
    tmp.write(fmt::format("f{}.yaml", i), fmt::format("include: f{}.yaml\n", i + 1));
  }
  tmp.write(fmt::format("f{}.yaml", kMaxIncludeDepth + 2), "seed: 1\n");
  std::string message = read_error(tmp / "f0.yaml");
  EXPECT_NE(message.find(fmt::format("nested more than {} files deep", kMaxIncludeDepth)),
            std::string::npos)
      << message;
}

TEST(Compose, OverridesApplyAfterTheComposition) {
  TempDir tmp;
  tmp.write("base.yaml", "training: {epochs: 2}\n");
  auto top = tmp.write("top.yaml", "include: base.yaml\n");
  ConfigDocument doc = read_config(top, {"training.epochs=9"});
  EXPECT_EQ(doc.json["training"]["epochs"], 9);
}

}  // namespace
}  // namespace runner
