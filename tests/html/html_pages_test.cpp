// The pages as the commands write them: `runner run --html`, `report: {html: true}`,
// `runner report RUN --html`, a sweep's pages, `runner compare --html`.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "html_pages_helpers.h"
#include "runner/util/files.h"

namespace runner::testing {
namespace {

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RunPageCommand, TheHtmlOptionAndTheConfigSettingWriteThePage) {
  TempDir tmp;
  std::string log;
  const auto plain = tiny_run(tmp / "plain", "", &log);
  ASSERT_FALSE(plain.empty()) << log;
  EXPECT_FALSE(std::filesystem::exists(plain.parent_path() / "report.html")) << "not asked for";

  const auto flagged = tiny_run(tmp / "flag", "--html", &log);
  ASSERT_FALSE(flagged.empty()) << log;
  const auto page = flagged.parent_path() / "report.html";
  EXPECT_TRUE(has(log, "page: " + page.string())) << log;
  const std::string html = read_file(page);
  const auto report = nlohmann::json::parse(read_file(flagged));
  EXPECT_TRUE(has(html, report["run_id"].get<std::string>()));
  EXPECT_TRUE(has(html, "runner reproduce " + std::filesystem::absolute(flagged).string()));
  EXPECT_TRUE(has(html, "Confusion matrix"));
  EXPECT_EQ(report["config"]["report"]["html"], true) << "recorded in the resolved config";

  const auto configured = tiny_run(tmp / "config", "--set report.html=true", &log);
  ASSERT_FALSE(configured.empty()) << log;
  EXPECT_TRUE(std::filesystem::exists(configured.parent_path() / "report.html"));

  // `runner report RUN --html` writes it for a run that did not.
  CommandResult r = run_runner("report --html '" + plain.parent_path().string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(plain.parent_path() / "report.html")) << r.output;
}

// A page the command line asked for that could not be written (here: past a file-size limit
// that the 12 KB report is under and the 28 KB page is not) fails the run; the report stays.
TEST(RunPageCommand, AnAskedPageThatCannotBeWrittenFailsTheRunAndKeepsTheReport) {
  TempDir tmp;
  const auto config = source_dir() / "configs" / "tiny_synthetic.yaml";
  // bash: its ulimit -f counts 1024-byte blocks (dash's, 512).
  CommandResult r =
      run_command("bash -c \"trap '' XFSZ; ulimit -f 20; " + std::string(RUNNER_BINARY) + " run '" +
                  config.string() + "' --html --output '" + (tmp / "runs").string() + "'\"");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "error: report.html not written")) << r.output;
  EXPECT_TRUE(has(r.output, "--html` draws the page from it")) << r.output;
  const std::filesystem::path report = report_path_in(r.output);
  ASSERT_FALSE(report.empty()) << r.output;
  EXPECT_EQ(nlohmann::json::parse(read_file(report))["status"], "completed");
  EXPECT_FALSE(std::filesystem::exists(report.parent_path() / "report.html"));
}

TEST(SweepPage, TheSweepWritesItsPageAndEveryPointsPage) {
  std::string log;
  const auto dir = tiny_sweep(&log);
  const auto page = dir / "report.html";
  ASSERT_TRUE(std::filesystem::exists(page)) << log;
  const std::string html = read_file(page);
  // Two CPU points trained, two cuda points failed (no GPU here), with their reasons.
  for (const char* id : {"device=cpu__width=0.5", "device=cpu__width=1"}) {
    EXPECT_TRUE(has(html, std::string("<a href=\"") + id + "/report.html\">")) << id;
    const std::string point = read_file(dir / id / "report.html");
    EXPECT_TRUE(has(point, "href=\"../report.html\"")) << "back to the sweep";
  }
  EXPECT_TRUE(has(html, "Points that did not train"));
  EXPECT_TRUE(has(html, "device=cuda__width=0.5"));
  const auto table_start = html.find("id=\"points-table\"");
  ASSERT_NE(table_start, std::string::npos);
  const std::string points =
      html.substr(table_start, html.find("</table>", table_start) - table_start);
  EXPECT_EQ(count(points, "<tr>"), 1u + 4u) << "a header and the 4 points";
  EXPECT_FALSE(has(html, ">GPU/CPU<")) << "a column empty for every point is left out";
  EXPECT_TRUE(has(html, "id=\"points-table\" class=\"sortable\""));
  EXPECT_FALSE(has(html, "<?xml"));
  EXPECT_LT(std::filesystem::file_size(page), 400u * 1024);
  // The terminal: 100 columns at most, and where the page is.
  // (The lines after it name files, whose paths are as long as they are.)
  const auto head = log.find("# Sweep");
  ASSERT_NE(head, std::string::npos) << log;
  EXPECT_LE(widest_line(log.substr(head, log.find("\nplot", head) - head)), 100u) << log;
  EXPECT_TRUE(has(log, "page: " + page.string())) << log;
}

TEST(ComparePage, GroupsComeInNumericOrderAndThePageIsWritten) {
  TempDir tmp;
  for (const char* batch : {"16", "256", "64"}) {  // folders in text order: 16, 256, 64
    std::string log;
    ASSERT_FALSE(tiny_run(tmp / "runs" / batch,
                          std::string("--set training.epochs=1 --set training.batch_size=") + batch,
                          &log)
                     .empty())
        << log;
  }
  const auto page = tmp / "compare.html";
  // In a subshell: run_command sends the command's stderr to its output after this.
  CommandResult r = run_command("('" RUNNER_BINARY "' compare '" + (tmp / "runs").string() +
                                "' --json --html '" + page.string() + "' 2>/dev/null)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto comparison = nlohmann::json::parse(r.output);  // stdout stays pure JSON
  const auto& diffs = comparison["config_differences"];
  ASSERT_FALSE(diffs.empty());
  EXPECT_EQ(diffs[0]["path"], "training.batch_size");
  EXPECT_EQ(diffs[0]["values"], nlohmann::json({"16", "64", "256"}));
  EXPECT_EQ(comparison["groups"][0]["label"], "A");
  const std::string html = read_file(page);
  EXPECT_TRUE(has(html, "<td>training.batch_size</td><td>16</td><td>64</td><td>256</td>")) << html;
  EXPECT_TRUE(has(html, "Training loss"));
  EXPECT_TRUE(has(html, "B − A"));

  // A folder where the page should go is refused before anything is printed.
  CommandResult bad =
      run_runner("compare '" + (tmp / "runs").string() + "' --html '" + tmp.path().string() + "'");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(has(bad.output, "--html")) << bad.output;
  EXPECT_FALSE(has(bad.output, "config differences")) << bad.output;
}

}  // namespace
}  // namespace runner::testing
