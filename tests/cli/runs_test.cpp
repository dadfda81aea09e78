// `runner runs`: the --where language on rows, and the command on folders of reports: the rows
// it finds, filters, sorts and limits, its three formats, the index that answers a second query
// (and is read again where a report changed), and that it writes nothing where it reads.
#include <gtest/gtest.h>

#include <fstream>

#include "runner/runs/run_query.h"
#include "runner/runs/run_rows.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

using testing::CommandResult;
using testing::run_runner;
using testing::TempDir;

RunRow row_of(const std::string& json) {
  return nlohmann::json::parse(json).get<RunRow>();
}

bool where(const std::string& query, const RunRow& row) {
  return RunQuery(query).matches(row);
}

TEST(RunQuery, ComparesFieldsAsNumbersOrText) {
  const RunRow row = row_of(R"({"training.optimizer.lr": 0.005, "status": "completed",
      "val_accuracy": 0.91, "tags.team": "vision", "name": "lenet", "seed": 2})");
  EXPECT_TRUE(where("training.optimizer.lr < 0.01", row));
  EXPECT_FALSE(where("training.optimizer.lr >= 0.01", row));
  EXPECT_TRUE(where("config.training.optimizer.lr == 0.005", row));  // the config's own path
  EXPECT_TRUE(where("status == completed", row));
  EXPECT_TRUE(where("tags.team == 'vision'", row));
  EXPECT_TRUE(where("tags.team != \"audio\"", row));
  EXPECT_TRUE(where("seed == 2 and val_accuracy > 0.9", row));
  EXPECT_TRUE(where("val_accuracy>0.9", row));              // no spaces needed
  EXPECT_TRUE(where("1e-3 < training.optimizer.lr", row));  // either side may be the field
  EXPECT_TRUE(where("'completed' == status", row));
  // A field the run lacks makes its comparison false, != included.
  EXPECT_FALSE(where("test_accuracy > 0", row));
  EXPECT_FALSE(where("test_accuracy != 0", row));
  EXPECT_TRUE(where("not test_accuracy > 0", row));
}

TEST(RunQuery, AndBindsTighterThanOrAndParenthesesGroup) {
  const RunRow row = row_of(R"({"a": 1, "b": 2, "c": 3})");
  EXPECT_TRUE(where("a == 1 or b == 0 and c == 0", row));  // a or (b and c)
  EXPECT_FALSE(where("(a == 1 or b == 0) and c == 0", row));
  EXPECT_TRUE(where("not (a == 2) and not not c == 3", row));
  // A bare word names a field where the run has one: b < c compares 2 and 3.
  EXPECT_TRUE(where("b < c", row));
}

TEST(RunQuery, AnExpressionThatDoesNotParseSaysWhere) {
  for (const auto& [text, column] : std::vector<std::pair<std::string, std::string>>{
           {"status ==", "column 10"},
           {"lr < 0.1 and", "column 13"},
           {"(lr < 0.1", "column 10"},
           {"lr = 0.1", "column 4"},
           {"lr < 'open", "column 6"},
           {"lr < 0.1 lr", "column 10"},
           {std::string(300, '(') + "lr < 1" + std::string(300, ')'), "nested levels"},
           {std::string(300 * 4, ' ') + "x", "column 1202"}}) {
    try {
      RunQuery query(text);
      ADD_FAILURE() << "parsed: " << text;
    } catch (const UserError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("--where"), std::string::npos) << message;
      EXPECT_NE(message.find(column), std::string::npos) << text << ": " << message;
    }
  }
}

TEST(RunRows, FlattenTheConfigFiguresTagsAndFacts) {
  const nlohmann::json report = nlohmann::json::parse(R"({
      "name": "x", "status": "completed", "seed": 3, "device": "cpu",
      "config": {"training": {"optimizer": {"lr": 0.1}, "batch_size": 8},
                 "model": {"layers": [{"name": "fc", "type": "linear"}], "width": 2}},
      "epochs": [{"epoch": 1}, {"epoch": 2}],
      "metrics": {"test_accuracy": 0.5, "per_class_accuracy": {"a": 1}},
      "tags": {"team": "vision"},
      "throughput": {"train_images_per_second": 900},
      "wall_time": {"total_seconds": 12.5}})");
  const RunRow row = run_row(report, "results/x/1");
  EXPECT_EQ(row.at("training.optimizer.lr"), 0.1);
  EXPECT_EQ(row.at("model.width"), 2);
  EXPECT_FALSE(row.count("model.layers"));  // a table, not a field
  EXPECT_EQ(row.at("epochs"), 2);
  EXPECT_EQ(row.at("test_accuracy"), 0.5);
  EXPECT_FALSE(row.count("per_class_accuracy"));
  EXPECT_EQ(row.at("tags.team"), "vision");
  EXPECT_EQ(row.at("images_per_second"), 900);
  EXPECT_EQ(row.at("wall_seconds"), 12.5);
  EXPECT_EQ(row.at("run"), "results/x/1");
}

// Every file below `folder` with its size and modification time.
std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> listing(
    const std::filesystem::path& folder) {
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    files[entry.path().string()] = {entry.file_size(),
                                    entry.last_write_time().time_since_epoch().count()};
  }
  return files;
}

void write_report(const std::filesystem::path& folder, const nlohmann::json& report) {
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "report.json") << report.dump();
}

TEST(RunsCommand, FiltersSortsLimitsAndAnswersASecondQueryFromItsIndex) {
  TempDir tmp;
  const auto runs = tmp.path() / "results";
  // One real run's report, copied with other settings and figures (a sweep's points nested).
  const CommandResult trained =
      run_runner((testing::source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                 " --quiet --set training.threads=1 --output " + (tmp.path() / "real").string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  std::filesystem::path real_report;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp.path() / "real")) {
    if (entry.path().filename() == "report.json") real_report = entry.path();
  }
  std::ifstream in(real_report);
  const nlohmann::json base = nlohmann::json::parse(in);
  const std::vector<std::tuple<std::string, double, double, std::string>> points = {
      {"a/1", 0.001, 0.70, "completed"},
      {"a/2", 0.1, 0.95, "completed"},
      {"sweep/p1", 0.005, 0.90, "completed"},
      {"sweep/p2", 0.002, 0.99, "diverged"},
      {"sweep/p3", 0.009, 0.80, "completed"}};
  for (const auto& [where, lr, accuracy, status] : points) {
    nlohmann::json report = base;
    report["config"]["training"]["optimizer"]["lr"] = lr;
    report["metrics"]["val_accuracy"] = accuracy;
    report["status"] = status;
    write_report(runs / where, report);
  }
  std::filesystem::create_directories(runs / "broken");
  std::ofstream(runs / "broken" / "report.json") << "{ not json";
  const std::string env = "XDG_CACHE_HOME=" + (tmp.path() / "cache").string() + " ";
  const std::string query = " runs " + runs.string() +
                            " --where 'training.optimizer.lr < 0.01 and status == completed'"
                            " --sort=-val_accuracy --limit 2 --format json";
  const auto before = listing(runs);
  const CommandResult first = testing::run_command(env + RUNNER_BINARY + query);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  // The JSON on stdout, between the warning about the broken report and the counts (stderr).
  const std::size_t open = first.output.find("\n["), close = first.output.rfind("\n]");
  ASSERT_NE(open, std::string::npos) << first.output;
  const nlohmann::json rows = nlohmann::json::parse(first.output.substr(open, close + 2 - open));
  ASSERT_EQ(rows.size(), 2u) << first.output;
  EXPECT_EQ(rows[0]["run"], (runs / "sweep/p1").generic_string());
  EXPECT_EQ(rows[0]["val_accuracy"], 0.90);
  EXPECT_EQ(rows[1]["run"], (runs / "sweep/p3").generic_string());
  EXPECT_EQ(rows[1]["training.optimizer.lr"], 0.009);  // a field the query names is a column
  EXPECT_EQ(listing(runs), before) << "runner runs wrote where it read";

  const CommandResult counts = testing::run_command(env + RUNNER_BINARY + query);
  EXPECT_NE(counts.output.find("3 of 5 run(s) match, 2 shown; 0 report(s) read, 5 from the index"),
            std::string::npos)
      << counts.output;
  EXPECT_NE(counts.output.find("broken/report.json"), std::string::npos) << counts.output;
  // A changed report is read again: the index is never trusted over it.
  nlohmann::json changed = base;
  changed["config"]["training"]["optimizer"]["lr"] = 0.004;
  changed["metrics"]["val_accuracy"] = 0.97;
  changed["status"] = "completed";
  write_report(runs / "a/2", changed);
  const CommandResult again = testing::run_command(env + RUNNER_BINARY + query);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("1 report(s) read, 4 from the index"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("\"val_accuracy\": 0.97"), std::string::npos) << again.output;

  const CommandResult csv = run_runner("runs " + runs.string() +
                                       " --no-cache --columns run,status --sort run --format csv");
  EXPECT_NE(csv.output.find("run,status\n" + (runs / "a/1").generic_string() + ",completed\n"),
            std::string::npos)
      << csv.output;
  const CommandResult unknown =
      run_runner("runs " + runs.string() + " --no-cache --columns val_acuracy");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("did you mean 'val_accuracy'"), std::string::npos)
      << unknown.output;
  const CommandResult missing = run_runner("runs --no-cache " + (tmp.path() / "nowhere").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

}  // namespace
}  // namespace runner
