// Sweeps under careless or hostile input (issue 11): names that would write outside the output
// folder, two sweeps in one folder, grids too large to expand, Ctrl-C while planning or
// plotting, checkpoints led out of a point's folder, and report folders with files that are not
// reports.
#include <gtest/gtest.h>

#include "runner/util/files.h"
#include "sweep_helpers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string values(int count) {
  std::string out;
  for (int i = 1; i <= count; ++i) out += (i > 1 ? "," : "") + std::to_string(i);
  return out;
}

TEST(SweepSafety, AConfigNameThatIsAPathWritesNothingAnywhere) {
  TempDir tmp;
  auto config = tmp.write("c.yaml", read_file(tiny_config()));
  for (const std::string name : {"../../escaped", "/tmp/escaped-abs"}) {
    write_file_atomically(config, read_file(tiny_config()));
    std::string text = read_file(config);
    text.replace(text.find("name: tiny_synthetic"), 20, "name: " + name);
    write_file_atomically(config, text);
    auto result =
        run_runner("sweep " + config.string() + " --grid training.batch_size=4 --output " +
                   (tmp / "out" / "deep").string());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("name: found \"" + name + "\""), std::string::npos)
        << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(tmp / "escaped-sweep"));
  EXPECT_FALSE(std::filesystem::exists("/tmp/escaped-abs-sweep"));
  EXPECT_FALSE(std::filesystem::exists(tmp / "out"));
  auto named =
      run_runner("sweep " + tiny_config() + " --grid training.batch_size=4 --name ../up --output " +
                 (tmp / "out").string());
  EXPECT_EQ(named.exit_code, 2) << named.output;
  EXPECT_NE(named.output.find("--name: found '../up'"), std::string::npos) << named.output;
}

TEST(SweepSafety, ASecondSweepIntoTheSameFolderStopsAtOnce) {
  TempDir tmp;
  std::string sweep =
      std::string(RUNNER_BINARY) + " sweep " + tiny_config() +
      " --quiet --mode train --set training.epochs=100000 --grid training.batch_size=4"
      " --name s --output " +
      tmp.path().string();
  auto lock = (tmp / "s" / ".lock").string();
  auto result = run_command("(" + sweep + " >/dev/null 2>&1 & pid=$!; while ! grep -q . " + lock +
                            " 2>/dev/null; do kill -0 $pid || break; sleep 0.05; done; " + sweep +
                            "; echo second=$?; kill -TERM $pid; wait $pid; echo first=$?)");
  EXPECT_NE(result.output.find("second=2"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("another sweep (process "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("first=130"), std::string::npos) << result.output;
}

TEST(SweepSafety, AGridTooLargeToExpandIsRefused) {
  TempDir tmp;
  auto result =
      run_runner("sweep " + tiny_config() + " --dry-run --grid training.batch_size=" + values(400) +
                 " --grid training.epochs=" + values(400) + " --output " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(tiny_config() +
                               ": the grid has more than 100000 points (400 x 400 = 160000)"),
            std::string::npos)
      << result.output;
  // Billions of points, from a sweep file: refused by its size, before anything is expanded.
  auto file =
      tmp.write("big.yaml", "name: big\nbase: " + tiny_config() +
                                "\nsweep:\n  grid:\n    training.batch_size: [" + values(400) +
                                "]\n    training.epochs: [" + values(400) + "]\n    seed: [" +
                                values(400) + "]\n    training.lr: [" + values(400) + "]\n");
  auto billions =
      run_runner("sweep " + file.string() + " --dry-run --output " + tmp.path().string());
  EXPECT_EQ(billions.exit_code, 2) << billions.output;
  EXPECT_NE(billions.output.find(file.string() + ": the grid has more than 100000 points (400 x "
                                                 "400 x 400 x 400 = 25600000000)"),
            std::string::npos)
      << billions.output;
}

TEST(SweepSafety, CtrlCWhilePlanningALargeSweepExitsWith130) {
  TempDir tmp;
  std::string sweep = std::string(RUNNER_BINARY) + " sweep " + tiny_config() +
                      " --dry-run --grid training.batch_size=" + values(300) +
                      " --grid training.epochs=" + values(300) + " --output " + tmp.path().string();
  auto result = run_command(interrupted_after(sweep, 1));
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("interrupted while"), std::string::npos) << result.output;
  EXPECT_LE(seconds_taken(result.output), 5) << result.output;
}

// A stand-in for python3 (RUNNER_PYTHON): matplotlib "imports" at once, the plot script runs
// `plot_body`.
std::string fake_python(const TempDir& tmp, const std::string& plot_body) {
  auto path = tmp.write("python", "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\n" + plot_body + "\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path.string();
}

TEST(SweepSafety, CtrlCWhileThePlotsAreDrawnExitsWith130) {
  TempDir tmp;
  auto runs = (tmp / "runs").string();
  auto run = run_runner(tiny_config() + " --quiet --set training.epochs=1 --output " + runs);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // SIGINT to the runner alone (as `kill -INT`): it reaches the script, which would plot for a
  // minute, and the runner stops at once.
  std::string report = "RUNNER_PYTHON=" + fake_python(tmp, "exec sleep 60") + " " + RUNNER_BINARY +
                       " report --html " + runs;  // a folder of runs is drawn when asked
  auto result = run_command(interrupted_after(report, 1));
  EXPECT_NE(result.output.find("exit=130"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("interrupted while drawing the plots"), std::string::npos)
      << result.output;
  EXPECT_LE(seconds_taken(result.output), 5) << result.output;
  // The script ended by Ctrl-C on its own (the terminal sends it to both): also an interrupt.
  auto own = run_command("RUNNER_PYTHON=" + fake_python(tmp, "kill -INT $$") + " " + RUNNER_BINARY +
                         " report --html " + runs);
  EXPECT_EQ(own.exit_code, 130) << own.output;
}

TEST(SweepSafety, ACheckpointPathThroughASymlinkOutOfThePointFolderIsRefused) {
  TempDir tmp;
  std::string sweep = "sweep " + tiny_config() +
                      " --quiet --mode train --set training.epochs=1 --set "
                      "checkpoint.path=sub/c.safetensors --grid training.batch_size=4 --name s "
                      "--output " +
                      tmp.path().string();
  auto first = run_runner(sweep);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::filesystem::path point;
  for (const auto& entry : std::filesystem::directory_iterator(tmp / "s")) {
    if (std::filesystem::exists(entry.path() / "sub" / "c.safetensors")) point = entry.path();
  }
  ASSERT_FALSE(point.empty());
  // A point's folder is reused when the sweep runs again: a symlink planted in it must not
  // carry the checkpoint out.
  std::filesystem::remove_all(point / "sub");
  std::filesystem::create_directories(tmp / "outside");
  std::filesystem::create_directory_symlink(tmp / "outside", point / "sub");
  auto again = run_runner(sweep + " --force");
  EXPECT_NE(
      read_json(point / "report.json")
          .value("error", "")
          .find("checkpoint.path: found 'sub/c.safetensors', which leads outside the run folder"),
      std::string::npos)
      << again.output;
  EXPECT_TRUE(std::filesystem::is_empty(tmp / "outside"));
}

// A point's folder planted as a link (to anywhere): neither the run nor the record of its failure
// writes through it, and the sweep says which link it met.
TEST(SweepSafety, APointFolderThatIsALinkGetsNothingWrittenThroughIt) {
  TempDir tmp;
  std::filesystem::create_directories(tmp / "s");
  std::filesystem::create_directories(tmp / "outside");
  std::filesystem::create_directory_symlink(tmp / "outside", tmp / "s" / "batch_size=4");
  auto sweep = run_runner("sweep " + tiny_config() +
                          " --mode train --set training.epochs=1 --grid training.batch_size=4 "
                          "--name s --output " +
                          tmp.path().string());
  EXPECT_EQ(sweep.exit_code, 1) << sweep.output;
  EXPECT_TRUE(std::filesystem::is_empty(tmp / "outside")) << sweep.output;
  EXPECT_NE(sweep.output.find((tmp / "s" / "batch_size=4").string() + " is a symbolic link"),
            std::string::npos)
      << sweep.output;
}

TEST(SweepSafety, AReportFolderWithAFileThatIsNotAReportSaysWhich) {
  TempDir tmp;
  auto run = run_runner(tiny_config() + " --quiet --set training.epochs=1 --output " +
                        tmp.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  write_file_atomically(tmp / "junk" / "report.json", R"({"status": 5, "mode": []})");
  auto result = run_runner("report " + tmp.path().string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("left out: " + (tmp / "junk" / "report.json").string() +
                               ": not a report of this runner"),
            std::string::npos)
      << result.output;
  // The others are summarised (printed: a folder of runs is read, not written to).
  EXPECT_NE(result.output.find("## tiny_synthetic (train)"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "summary.md"));
}

}  // namespace
}  // namespace runner::testing
