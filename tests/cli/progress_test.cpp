// The progress display of `runner run`: a bar with images/s, ETA and the running loss on a
// terminal (run here through a pseudo-terminal), the plain log lines elsewhere, nothing with
// --quiet.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <regex>
#include <sstream>
#include <vector>

#include "test_support.h"

namespace runner::testing {
namespace {

struct TerminalRun {
  int exit_code = -1;
  std::string output;  // everything written to the terminal, stdout and stderr
};

// Runs the runner binary with `args` on a new pseudo-terminal and collects what it writes.
TerminalRun run_on_terminal(const std::vector<std::string>& args) {
  TerminalRun run;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return run;
  if (pid == 0) {
    std::vector<char*> argv;
    std::string binary = RUNNER_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copies = args;
    for (auto& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      run.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO once the child has closed the terminal
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The bar's redraws: the text after each "\r\033[K" up to the next control character, where it
// starts as a bar does (after the clear that ends a bar come the log lines).
std::vector<std::string> progress_lines(const std::string& output) {
  std::vector<std::string> lines;
  const std::regex bar_start(R"(^epoch \d+/\d+ \[)");
  const std::string clear = "\r\033[K";
  for (auto at = output.find(clear); at != std::string::npos; at = output.find(clear, at + 1)) {
    auto start = at + clear.size();
    auto end = output.find_first_of("\r\n\033", start);
    std::string text = output.substr(start, end == std::string::npos ? end : end - start);
    if (std::regex_search(text, bar_start)) lines.push_back(text);
  }
  return lines;
}

std::string tiny_config() {
  return (source_dir() / "configs" / "tiny_synthetic.yaml").string();
}

TEST(Progress, ATerminalShowsABarWithRateEtaAndLoss) {
  TempDir tmp;
  TerminalRun run = run_on_terminal({tiny_config(), "--output", tmp.path().string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // tiny_synthetic: 1024 images in batches of 16 = 64 steps per epoch, 2 epochs, loss every 8.
  const std::regex bar(
      R"(epoch [12]/2 \[[#-]{20}\] +\d+/64  \d+ images/s  ETA (\d+:\d\d|\?)(  loss \d+\.\d{3})?)");
  auto lines = progress_lines(run.output);
  ASSERT_FALSE(lines.empty()) << run.output;
  // The first redraw of an epoch has no ETA yet ("?"); later ones have.
  const std::regex eta(R"(ETA \d+:\d\d)");
  bool with_loss = false, with_eta = false;
  for (const auto& line : lines) {
    EXPECT_TRUE(std::regex_match(line, bar)) << "bar: " << line;
    with_loss = with_loss || line.find("  loss ") != std::string::npos;
    with_eta = with_eta || std::regex_search(line, eta);
  }
  EXPECT_TRUE(with_eta) << run.output;
  EXPECT_TRUE(with_loss) << run.output;
  // The log lines are still there, between the redraws.
  EXPECT_NE(run.output.find("[1,     8] loss: "), std::string::npos) << run.output;
}

TEST(Progress, QuietShowsNoBarOnATerminal) {
  TempDir tmp;
  TerminalRun run = run_on_terminal({tiny_config(), "--quiet", "--output", tmp.path().string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("images/s  ETA"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find('\033'), std::string::npos) << run.output;
}

// Off a terminal the output is the grep-able log: no control characters, no bar, and each loss
// line in the tutorial's form.
TEST(Progress, OffATerminalTheLogLinesAreUnchanged) {
  TempDir tmp;
  CommandResult run = run_runner(tiny_config() + " --output " + tmp.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find('\r'), std::string::npos);
  EXPECT_EQ(run.output.find('\033'), std::string::npos);
  EXPECT_EQ(run.output.find("ETA"), std::string::npos);
  const std::regex step_line(R"(\[[12], +\d+\] loss: \d+\.\d{3})");
  const std::regex epoch_line(
      R"(epoch [12]: train loss \d+\.\d{4}, test loss \d+\.\d{4}, test accuracy \d+\.\d{2} %, )"
      R"(\d+\.\d s, \d+ images/s)");
  int step_lines = 0, epoch_lines = 0;
  std::istringstream in(run.output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[", 0) == 0 && line.find("] loss: ") != std::string::npos) {
      EXPECT_TRUE(std::regex_match(line, step_line)) << line;
      ++step_lines;
    } else if (line.rfind("epoch ", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, epoch_line)) << line;
      ++epoch_lines;
    }
  }
  EXPECT_EQ(step_lines, 16) << run.output;  // 64 steps / 8, two epochs
  EXPECT_EQ(epoch_lines, 2) << run.output;
}

}  // namespace
}  // namespace runner::testing
