// training.precision as a user meets it: a bf16 run records its precision and ISA, reproduces,
// resumes exactly and leaves an FP32 checkpoint that an FP32 evaluation reads; a precision the
// CPU lacks, or only emulates (oneDNN's ISA lowered with ONEDNN_MAX_CPU_ISA), is refused naming
// the field, and `runner devices` lists what each device runs.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/common/bf16.h"
#include "runner/train/safetensors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string tiny_resnet() {
  return (source_dir() / "configs" / "tiny_resnet_synthetic.yaml").string();
}

nlohmann::json report_in(const CommandResult& result) {
  const std::string path = report_path_in(result.output);
  if (path.empty()) return nullptr;
  return nlohmann::json::parse(std::ifstream(path));
}

// The CPU's precisions as `runner devices` lists them.
std::string cpu_precisions() {
  const std::string out = run_runner("devices").output;
  const auto at = out.find("precisions: ");
  return at == std::string::npos ? "" : out.substr(at + 12, out.find('\n', at) - at - 12);
}

bool native_bf16() {
  const std::string list = cpu_precisions();
  return list.find("bf16") != std::string::npos &&
         list.find("bf16 (emulated)") == std::string::npos;
}

// tiny_resnet_synthetic trained in bf16 with a checkpoint, its run folder under `output`.
CommandResult bf16_run(const std::filesystem::path& output) {
  return run_runner(tiny_resnet() +
                    " --set training.precision=bf16 --set checkpoint.path=c.safetensors --quiet "
                    "--output " +
                    output.string());
}

#define SKIP_WITHOUT_NATIVE_BF16() \
  if (!native_bf16()) GTEST_SKIP() << "this CPU has no native bf16 (" << cpu_precisions() << ")"

#define SKIP_WITHOUT_ANY_BF16()                           \
  if (cpu_precisions().find("bf16") == std::string::npos) \
  GTEST_SKIP() << "no AVX-512: oneDNN cannot even emulate bf16 here"

// The runner with oneDNN's ISA lowered below AVX512-BF16: bf16 only emulated.
std::string runner_emulating_bf16() {
  return "ONEDNN_MAX_CPU_ISA=AVX512_CORE " + std::string(RUNNER_BINARY);
}

TEST(Precision, DevicesListWhatTheCpuRuns) {
  const std::string list = cpu_precisions();
  EXPECT_EQ(list.rfind("fp32", 0), 0u) << list;
  const auto lowered =
      run_command("ONEDNN_MAX_CPU_ISA=AVX2 " + std::string(RUNNER_BINARY) + " devices");
  EXPECT_NE(lowered.output.find("(ISA avx2)"), std::string::npos) << lowered.output;
  EXPECT_NE(lowered.output.find("precisions: fp32\n"), std::string::npos) << lowered.output;
}

TEST(Precision, ABf16RunRecordsItAndReproduces) {
  SKIP_WITHOUT_NATIVE_BF16();
  TempDir tmp;
  auto run = bf16_run(tmp / "a");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = report_in(run);
  EXPECT_EQ(report["environment"]["precision"], "bf16");
  EXPECT_EQ(report["config"]["training"]["precision"], "bf16");
  EXPECT_EQ(report["environment"]["onednn_isa"].get<std::string>().rfind("avx512_core", 0), 0u);
  auto again =
      run_runner("reproduce " + report_path_in(run.output) + " --output " + (tmp / "b").string());
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("reproduced: every exact metric matches"), std::string::npos)
      << again.output;
}

TEST(Precision, ABf16CheckpointHoldsFp32WeightsThatAnFp32EvaluationReads) {
  SKIP_WITHOUT_NATIVE_BF16();
  TempDir tmp;
  auto run = bf16_run(tmp / "a");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json report = report_in(run);
  const std::string checkpoint = report["checkpoint"]["path"];
  std::size_t values = 0, wider = 0;
  for (const HostTensor& tensor : load_safetensors(checkpoint).tensors) {
    for (float v : tensor.values) wider += !representable_in_bf16(v);
    values += tensor.values.size();
  }
  EXPECT_GT(wider, values / 2) << "FP32 master weights, not bf16 ones";
  auto eval = run_runner("eval --quiet --checkpoint " + checkpoint + " " + tiny_resnet() +
                         " --set training.precision=fp32 --output " + (tmp / "e").string());
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  const nlohmann::json evaluated = report_in(eval);
  EXPECT_EQ(evaluated["environment"]["precision"], "fp32");
  // The same weights evaluated in FP32 rather than bf16: close, not equal.
  EXPECT_NEAR(evaluated["metrics"]["test_loss"].get<double>(),
              report["metrics"]["test_loss"].get<double>(), 0.05);
}

TEST(Precision, Bf16ResumesToTheUninterruptedNumbers) {
  SKIP_WITHOUT_NATIVE_BF16();
  TempDir tmp;
  // A constant learning rate: the cosine schedule's steps depend on the epochs set. Threads
  // pinned: fitted to a busy machine, the runs could sum in other orders.
  const std::string bf16 = tiny_resnet() +
                           " --quiet --set training.precision=bf16 --set training.threads=2"
                           " --set 'training.schedule={type: constant}'";
  auto first = run_runner(bf16 + " --set training.epochs=1 --set checkpoint.path=c.safetensors" +
                          " --output " + (tmp / "a").string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string checkpoint = report_in(first)["checkpoint"]["path"];
  auto straight = run_runner(bf16 + " --set training.epochs=2 --output " + (tmp / "b").string());
  auto resumed = run_runner(bf16 + " --set training.epochs=2 --resume " + checkpoint +
                            " --output " + (tmp / "c").string());
  ASSERT_EQ(straight.exit_code, 0) << straight.output;
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const nlohmann::json a = report_in(straight), b = report_in(resumed);
  EXPECT_EQ(b["epochs"].back()["train_loss"], a["epochs"].back()["train_loss"]);
  EXPECT_EQ(b["metrics"], a["metrics"]);
}

TEST(Precision, ACpuThatOnlyEmulatesBf16RefusesItUnlessAllowed) {
  SKIP_WITHOUT_ANY_BF16();
  TempDir tmp;
  const std::string run = runner_emulating_bf16() + " run " + tiny_resnet() +
                          " --set training.precision=bf16 --quiet --output " + tmp.path().string();
  auto refused = run_command(run);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("tiny_resnet_synthetic.yaml: training.precision: found bf16, but "
                                "cpu ("),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("oneDNN ISA avx512_core)"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("training.allow_emulation: true"), std::string::npos)
      << refused.output;
  auto allowed = run_command(run + " --set training.allow_emulation=true");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("warning: training.precision bf16:"), std::string::npos)
      << allowed.output;
}

// Emulated, a bf16 step takes about 12x fp32's (tiny ResNet, AMD EPYC, 2026-12-08): measured and
// told, by `run` before training and by `bench` beside its table. One thread: no OpenMP barrier
// waits for a descheduled thread on a busy machine. A timing: left out under the sanitizers,
// which slow the runner's own code and not oneDNN's kernels.
TEST(Precision, AnEmulatedBf16IsMeasuredSlowerAndRunAndBenchSaySo) {
  SKIP_WITHOUT_ANY_BF16();
  TempDir tmp;
  const std::string slower =
      "warning: training.precision bf16 is slower than fp32 on this cpu: a "
      "training step took ";
  const std::string settings = tiny_resnet() +
                               " --set training.precision=bf16 --set training.allow_emulation=true"
                               " --set training.threads=1 --quiet --output " +
                               tmp.path().string();
  auto run = run_command(runner_emulating_bf16() + " run " + settings);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(slower), std::string::npos) << run.output;
  auto bench =
      run_command(runner_emulating_bf16() + " bench " + settings + " --steps 3 --profile-steps 0");
  EXPECT_EQ(bench.exit_code, 0) << bench.output;
  EXPECT_NE(bench.output.find(slower), std::string::npos) << bench.output;
}

TEST(Precision, ACpuWithoutAvx512CannotRunBf16AtAll) {
  auto refused = run_command("ONEDNN_MAX_CPU_ISA=AVX2 " + std::string(RUNNER_BINARY) + " run " +
                             tiny_resnet() +
                             " --set training.precision=bf16 --set training.allow_emulation=true");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("training.precision: found bf16, but cpu ("), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("it runs fp32"), std::string::npos) << refused.output;
}

TEST(Precision, Tf32AndFp16AreGpuPrecisions) {
  for (const char* precision : {"tf32", "fp16"}) {
    auto refused =
        run_runner(tiny_resnet() + " --set device=cpu --set training.precision=" + precision);
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find(std::string("training.precision: found ") + precision),
              std::string::npos)
        << refused.output;
    EXPECT_NE(refused.output.find("tf32 and fp16 are GPU precisions"), std::string::npos)
        << refused.output;
  }
}

}  // namespace
}  // namespace runner::testing
