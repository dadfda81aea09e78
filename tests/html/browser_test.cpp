// The pages in a real browser (Debian's chromium, headless): each renders with its script run to
// the end, no console message (a script error, or a fetch the page's policy blocked) and no
// network request of the page's own; a screenshot of each is kept in
// <build>/test-artefacts/html/. Without chromium the tests are skipped, except with CI=true
// (make test-deps installs it), where that is a failure.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "html_pages_helpers.h"
#include "runner/html/html_page.h"
#include "runner/html/sweep_page.h"
#include "runner/util/files.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

std::string chromium() {
  CommandResult r = run_command("command -v chromium || command -v chromium-browser");
  std::string path = r.output.substr(0, r.output.find('\n'));
  return r.exit_code == 0 ? path : "";
}

#define REQUIRE_CHROMIUM()                                                           \
  if (chromium().empty()) {                                                          \
    if (in_ci()) FAIL() << "chromium is not installed (make test-deps installs it)"; \
    GTEST_SKIP() << "chromium is not installed (Debian: apt install chromium)";      \
  }

// The flags of a quiet headless browser: no sandbox (root in containers), no background
// traffic of its own (updates, sync), a fresh profile.
std::string browser(const fs::path& work) {
  return "timeout 120 '" + chromium() +
         "' --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage "
         "--disable-background-networking --disable-component-update --disable-sync "
         "--no-first-run --disable-default-apps --disable-extensions --hide-scrollbars "
         "--user-data-dir='" +
         (work / "profile").string() + "'";
}

struct Opened {
  std::string dom;                         // the document after its scripts ran
  std::vector<std::string> console;        // console messages, errors and policy violations
  std::vector<std::string> page_requests;  // URLs the page itself asked the network for
};

// Requests the page started (the browser's own have no origin), other than file: and data:.
std::vector<std::string> page_requests(const fs::path& net_log) {
  std::vector<std::string> out;
  nlohmann::json log = nlohmann::json::parse(read_file(net_log), nullptr, false);
  if (log.is_discarded()) return {"(the network log could not be read)"};
  const int start_job = log["constants"]["logEventTypes"].value("URL_REQUEST_START_JOB", -1);
  for (const auto& event : log["events"]) {
    if (event.value("type", -2) != start_job || !event.contains("params")) continue;
    const auto& params = event["params"];
    const std::string url = params.value("url", "");
    if (url.empty() || params.value("initiator", "") == "not an origin") continue;
    if (url.rfind("file:", 0) == 0 || url.rfind("data:", 0) == 0) continue;
    out.push_back(url);
  }
  return out;
}

Opened open_page(const fs::path& page, const std::string& fragment, const fs::path& work) {
  fs::create_directories(work);
  const auto dom = work / "dom.html", log = work / "browser.log", net = work / "net.json";
  // In a subshell: run_command sends the command's stderr to its output after these.
  CommandResult r =
      run_command("(" + browser(work) + " --enable-logging=stderr --v=0 --log-net-log='" +
                  net.string() + "' --dump-dom 'file://" + fs::absolute(page).string() + fragment +
                  "' > '" + dom.string() + "' 2> '" + log.string() + "')");
  EXPECT_EQ(r.exit_code, 0) << read_file(log);
  Opened opened{read_file(dom), {}, page_requests(net)};
  const std::string lines = read_file(log);
  for (std::size_t at = 0; at < lines.size();) {
    std::size_t end = std::min(lines.find('\n', at), lines.size());
    std::string line = lines.substr(at, end - at);
    if (line.find(":CONSOLE") != std::string::npos) opened.console.push_back(line);
    at = end + 1;
  }
  return opened;
}

void screenshot(const fs::path& page, const std::string& name, const fs::path& work) {
  const fs::path folder = fs::current_path() / "test-artefacts" / "html";
  fs::create_directories(folder);
  CommandResult r = run_command(browser(work) + " --window-size=1280,2400 --screenshot='" +
                                (folder / (name + ".png")).string() + "' 'file://" +
                                fs::absolute(page).string() + "' 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(folder / (name + ".png"))) << r.output;
}

void expect_clean(const Opened& opened, const std::string& what) {
  EXPECT_NE(opened.dom.find("data-ready=\"1\""), std::string::npos)
      << what << ": the page's script did not run to its end";
  EXPECT_TRUE(opened.console.empty()) << what << ": " << opened.console.front();
  EXPECT_TRUE(opened.page_requests.empty()) << what << " fetched " << opened.page_requests.front();
}

TEST(Browser, EveryKindOfPageRendersOfflineWithoutAConsoleMessage) {
  REQUIRE_CHROMIUM();
  TempDir tmp;
  std::string log;
  const auto run = tiny_run(tmp / "runs", "--html", &log);
  ASSERT_FALSE(run.empty()) << log;
  const auto sweep = tiny_sweep(&log);
  ASSERT_TRUE(fs::exists(sweep / "report.html")) << log;
  const auto compare = tmp / "compare.html";
  CommandResult r =
      run_runner("compare '" + (sweep / "device=cpu__width=0.5").string() + "' '" +
                 (sweep / "device=cpu__width=1").string() + "' --html '" + compare.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const std::vector<std::pair<std::string, fs::path>> pages = {
      {"run", run.parent_path() / "report.html"},
      {"sweep", sweep / "report.html"},
      {"sweep_point", sweep / "device=cpu__width=1" / "report.html"},
      {"compare", compare}};
  for (const auto& [name, page] : pages) {
    SCOPED_TRACE(name);
    Opened opened = open_page(page, "", tmp / ("browser-" + name));
    expect_clean(opened, name);
    EXPECT_NE(opened.dom.find("<svg"), std::string::npos) << "a chart";
    screenshot(page, name, tmp / ("browser-" + name));
  }
}

TEST(Browser, APointsTableSortsByTheColumnAsked) {
  REQUIRE_CHROMIUM();
  TempDir tmp;
  std::string log;
  const auto sweep = tiny_sweep(&log);
  ASSERT_TRUE(fs::exists(sweep / "report.html")) << log;
  // Column 0 is the point id: descending puts device=cuda__width=1 first, ascending last.
  for (const auto& [fragment, first] : std::vector<std::pair<std::string, std::string>>{
           {"#sort=points-table:0:desc", "device=cuda__width=1"},
           {"#sort=points-table:0", "device=cpu__width=0.5"}}) {
    Opened opened = open_page(sweep / "report.html", fragment, tmp / "browser");
    expect_clean(opened, fragment);
    const auto table = opened.dom.find("id=\"points-table\"");
    ASSERT_NE(table, std::string::npos);
    const auto body = opened.dom.find("<tbody>", table);
    const auto first_row = opened.dom.substr(body, opened.dom.find("</tr>", body) - body);
    EXPECT_NE(first_row.find(first), std::string::npos) << fragment << ": " << first_row;
  }
}

// A script planted in a sweep's plots/ folder does not run: the plot reaches the page without
// it. Markup that got past the escaping would not run either: the page's policy lets only the
// page's own script run (and the browser says so in its console).
TEST(Browser, AScriptPlantedInAPageDoesNotRun) {
  REQUIRE_CHROMIUM();
  TempDir tmp;
  const std::string mark = "document.documentElement.setAttribute('data-planted', '1')";
  tmp.write("sweep/plots/accuracy.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"" + mark + "\"><script>" + mark +
                "</script><image href=\"http://127.0.0.1:9/x.png\"/>"
                "<rect width=\"9\" height=\"9\" style=\"fill: url(http://127.0.0.1:9/y)\"/>"
                "</svg>");
  const nlohmann::json summary = {{"sweep", "planted"}, {"points", nlohmann::json::array()}};
  const auto sweep = tmp / "sweep" / "report.html";
  write_file_atomically(sweep, sweep_page(summary, tmp / "sweep"));
  Opened opened = open_page(sweep, "", tmp / "browser-sweep");
  expect_clean(opened, "a planted plot");
  EXPECT_EQ(opened.dom.find("data-planted=\"1\""), std::string::npos) << "the plot's script ran";

  const auto page = tmp / "page.html";
  write_file_atomically(page, html_page("planted", "",
                                        "<script>" + mark +
                                            "</script><img src=\"data:,\" "
                                            "onerror=\"" +
                                            mark + "\">"));
  opened = open_page(page, "", tmp / "browser-page");
  EXPECT_NE(opened.dom.find("data-ready=\"1\""), std::string::npos) << "the page's own script";
  EXPECT_EQ(opened.dom.find("data-planted=\"1\""), std::string::npos) << "an inline script ran";
  EXPECT_FALSE(opened.console.empty()) << "the policy's refusal is not in the console";
}

// The checks above can fail: a page that fetches an image and throws is caught by each.
TEST(Browser, TheChecksSeeAFetchAndAScriptError) {
  REQUIRE_CHROMIUM();
  TempDir tmp;
  const auto bad = tmp.write("bad.html",
                             "<!DOCTYPE html><html><body><img src=\"http://127.0.0.1:9/x.png\">"
                             "<script>no_such_function();</script></body></html>");
  Opened opened = open_page(bad, "", tmp / "browser");
  EXPECT_FALSE(opened.page_requests.empty()) << "the image request was not seen";
  EXPECT_FALSE(opened.console.empty()) << "the script error was not seen";
  EXPECT_EQ(opened.dom.find("data-ready"), std::string::npos);
}

}  // namespace
}  // namespace runner::testing
