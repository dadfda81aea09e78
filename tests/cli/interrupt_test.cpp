// Stopping a run with SIGTERM/SIGINT: it ends at the next mini-batch, still writes its report
// (status interrupted) and exits with 130; a download stops too.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../data/image_writers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

TEST(Interrupt, StopsAtTheNextStepAndWritesAnInterruptedReport) {
  TempDir tmp;
  std::string command = std::string(RUNNER_BINARY) + " " +
                        (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                        " --quiet --set training.epochs=100000 --output " + tmp.path().string();
  // The signal once training runs (its first live report is on disk): start-up on a busy
  // machine can take longer than any fixed wait.
  auto result =
      run_command("(" + command + " & pid=$!; while [ -z \"$(find " + tmp.path().string() +
                  " -name report.json)\" ]; do kill -0 $pid || break; sleep 0.05; done; "
                  "kill -TERM $pid; wait $pid; echo exit=$?)");
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("run interrupted: interrupted in epoch"), std::string::npos)
      << result.output;
  auto at = result.output.find("report: ");
  ASSERT_NE(at, std::string::npos) << result.output;
  std::string path = result.output.substr(at + 8, result.output.find('\n', at) - at - 8);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report["status"], "interrupted");
  EXPECT_TRUE(report.contains("error"));
  EXPECT_FALSE(report.contains("metrics"));
}

// Issue 24: `runner run ... | head -n 1` killed the runner by SIGPIPE before its report.
TEST(Interrupt, AClosedStdoutPipeDoesNotStopTheRun) {
  TempDir tmp;
  std::string command = std::string(RUNNER_BINARY) + " " +
                        (source_dir() / "configs" / "tiny_synthetic.yaml").string() +
                        " --set training.epochs=2 --output " + tmp.path().string();
  const auto exit_file = tmp / "exit";
  auto result = run_command("(" + command + "; echo $? > " + exit_file.string() + ") | head -n 1");
  std::string exit_code;
  std::ifstream(exit_file) >> exit_code;
  EXPECT_EQ(exit_code, "0") << result.output;
  int reports = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp.path())) {
    if (entry.path().filename() != "report.json") continue;
    std::ifstream in(entry.path());
    EXPECT_EQ(nlohmann::json::parse(in)["status"], "completed");
    ++reports;
  }
  EXPECT_EQ(reports, 1);
}

// A CIFAR-10 download that trickles (a local server sending 4 KB/s, forever) stops at Ctrl-C
// instead of running until the transfer ends, and leaves no half-written dataset folder.
TEST(Interrupt, CtrlCStopsADownload) {
  TempDir tmp;
  auto server = tmp.write("server.py", R"(import http.server, socket, sys, time
class Trickle(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 27))
        self.end_headers()
        while True:
            self.wfile.write(b"x" * 4096)
            self.wfile.flush()
            time.sleep(1)
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), Trickle)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
)");
  auto port_file = (tmp / "port").string();
  std::string run =
      std::string(RUNNER_BINARY) + " " + (source_dir() / "configs" / "lenet_cifar.yaml").string() +
      " --quiet --set dataset.download=true --set dataset.root=" + (tmp / "cifar").string() +
      " --set dataset.url=http://127.0.0.1:$(cat " + port_file + ")/c.tar.gz" + " --output " +
      (tmp / "out").string();
  auto result =
      run_command("(python3 " + server.string() + " " + port_file + " & server=$!; while [ ! -s " +
                  port_file + " ]; do kill -0 $server || break; sleep 0.05; done; " +
                  interrupted_after(run, 2) + "; kill $server)");
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("interrupted while downloading CIFAR-10"), std::string::npos)
      << result.output;
  EXPECT_LE(seconds_taken(result.output), 5) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "cifar"));
}

// Ctrl-C while thousands of images decode (a CSV naming one large noisy PNG 2,000 times, about a
// minute's work) stops within a file, not after the last one (issue 36).
TEST(Interrupt, CtrlCStopsDecodingTheImages) {
  TempDir tmp;
  const int side = 1200;
  const std::vector<std::uint8_t> noise = test_pixels(std::size_t{side} * side * 3, 7);
  write_bytes(tmp / "csv" / "big.png",
              png_file(side, side, 2, 8, std::vector<std::uint16_t>(noise.begin(), noise.end())));
  std::string rows;
  for (int i = 0; i < 2000; ++i) rows += "big.png," + std::to_string(i % 2) + "\n";
  tmp.write("csv/train.csv", rows);
  tmp.write("csv/test.csv", "big.png,0\nbig.png,1\n");
  const auto config =
      tmp.write("config.yaml",
                "name: decode\n"
                "dataset: {name: csv, root: " +
                    (tmp / "csv").string() + ", image_size: 8, cache: " + (tmp / "cache").string() +
                    "}\n"
                    "model:\n  layers:\n"
                    "    - {name: flat, type: flatten}\n"
                    "    - {name: fc, type: linear, out_features: 2}\n"
                    "training: {epochs: 1, batch_size: 8}\n");
  const std::string run = std::string(RUNNER_BINARY) + " " + config.string() +
                          " --quiet --output " + (tmp / "out").string();
  auto result = run_command(interrupted_after(run, 1.5));
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("interrupted while"), std::string::npos) << result.output;
  EXPECT_LE(seconds_taken(result.output), 5) << result.output;
}

}  // namespace
}  // namespace runner::testing
