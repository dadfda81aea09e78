// What a run and `runner predict` print about names that come from the user's files: a class name
// or a file name holding terminal control sequences (ESC ] 0;...BEL retitles a terminal, ESC [2J
// clears it) is shown escaped, as `ls` shows it, and never reaches the terminal as it is.
#include <gtest/gtest.h>

#include <fstream>

#include "data/data_files.h"
#include "data/image_writers.h"
#include "test_support.h"

namespace runner::testing {
namespace {

namespace fs = std::filesystem;

const std::string kRetitle = "\x1b]0;owned\x07";
const std::string kClear = "\x1b[2J";

// The first byte a terminal would obey (a control character other than a line break), or -1.
int first_control(const std::string& output) {
  for (char c : output) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n') || byte == 0x7f) return byte;
  }
  return -1;
}

bool printed(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// One run on a CIFAR-10 folder whose batches.meta.txt names two classes with control sequences,
// kept (with its checkpoint) for predict.
class TerminalOutput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    write_cifar10_folder(tmp_->path() / "data", {20, 20, 20, 20, 20, 40}, 7);
    std::string names;
    for (int k = 0; k < 8; ++k) names += "class" + std::to_string(k) + "\n";
    names += "cat" + kRetitle + "\n" + kClear + "dog\n";
    std::ofstream(tmp_->path() / "data" / "batches.meta.txt", std::ios::binary) << names;
    const fs::path config =
        tmp_->write("config.yaml", "name: terminal\ndevice: cpu\ndataset: {name: cifar10, root: " +
                                       (tmp_->path() / "data").string() +
                                       ", workers: 0}\nmodel:\n  layers:\n"
                                       "    - {name: flat, type: flatten}\n"
                                       "    - {name: fc, type: linear, out_features: 10}\n"
                                       "training: {epochs: 1, batch_size: 20, threads: 1, "
                                       "optimizer: {type: sgd, lr: 0.001}}\n"
                                       "checkpoint: {path: model.safetensors}\n");
    run_ = new CommandResult(
        run_runner(config.string() + " --output " + (tmp_->path() / "out").string()));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete tmp_;
  }
  static TempDir* tmp_;
  static CommandResult* run_;
};

TempDir* TerminalOutput::tmp_ = nullptr;
CommandResult* TerminalOutput::run_ = nullptr;

TEST_F(TerminalOutput, ClassNamesFromADatasetArePrintedEscaped) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  EXPECT_TRUE(printed(run_->output, "Accuracy for class: cat\\x1b]0;owned\\x07")) << run_->output;
  EXPECT_TRUE(printed(run_->output, "Accuracy for class: \\x1b[2Jdog")) << run_->output;
  EXPECT_EQ(first_control(run_->output), -1) << run_->output;
}

TEST_F(TerminalOutput, PredictPrintsFileAndClassNamesEscaped) {
  ASSERT_EQ(run_->exit_code, 0) << run_->output;
  const fs::path images = tmp_->path() / "images";
  write_bytes(
      images / ("photo" + kClear + ".png"),
      png_file(32, 32, 2, 8, std::vector<std::uint16_t>(32 * 32 * 3, 128)));  // passed as a folder
  CommandResult predict =
      run_runner("predict '" + fs::path(report_path_in(run_->output)).parent_path().string() +
                 "' '" + images.string() + "' --top-k 10");
  ASSERT_EQ(predict.exit_code, 0) << predict.output;
  EXPECT_TRUE(printed(predict.output, "photo\\x1b[2J.png:")) << predict.output;
  EXPECT_TRUE(printed(predict.output, "cat\\x1b]0;owned\\x07")) << predict.output;
  EXPECT_EQ(first_control(predict.output), -1) << predict.output;
}

TEST(TerminalOutputErrors, APathInAnErrorIsPrintedEscaped) {
  TempDir tmp;
  CommandResult run = run_runner("run '" + (tmp / ("config" + kClear + ".yaml")).string() + "'");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(printed(run.output, "config\\x1b[2J.yaml")) << run.output;
  EXPECT_EQ(first_control(run.output), -1) << run.output;
}

}  // namespace
}  // namespace runner::testing
