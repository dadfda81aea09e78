// Mixup and cutmix in the programs (training.mixup, training.cutmix): the mixed loss against
// timm's SoftTargetCrossEntropy written out (targets lam y + (1 - lam) y_partner, each smoothed),
// against finite differences, and in a CPU program, whole or in chunks (a partner in another
// chunk); the cuDNN program against the CPU.
#include "backends/common/batch_mix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/common/host_math.h"
#include "backends/onednn/onednn_backend.h"
#include "finite_differences.h"
#include "layer_cases.h"
#include "lenet_training.h"
#include "test_support.h"

namespace runner::testing {
namespace {

// -sum_k t_k log p_k over the rows, t = lam smooth(label) + (1 - lam) smooth(partner), and its
// gradient (p - t) / mean_over: the soft-target loss as timm writes it.
double soft_target_loss(const std::vector<float>& logits, const std::vector<std::int32_t>& labels,
                        const std::vector<std::int32_t>& partners, double lam, int classes,
                        double smoothing, std::vector<double>& grad) {
  const int rows = static_cast<int>(labels.size());
  grad.assign(logits.size(), 0);
  double total = 0;
  for (int r = 0; r < rows; ++r) {
    double max = -1e30, sum = 0;
    for (int k = 0; k < classes; ++k) max = std::max<double>(max, logits[r * classes + k]);
    for (int k = 0; k < classes; ++k) sum += std::exp(logits[r * classes + k] - max);
    for (int k = 0; k < classes; ++k) {
      const double log_p = logits[r * classes + k] - max - std::log(sum);
      const double target = smoothing / classes + (k == labels[r] ? lam * (1 - smoothing) : 0) +
                            (k == partners[r] ? (1 - lam) * (1 - smoothing) : 0);
      total -= target * log_p;
      grad[r * classes + k] = (std::exp(log_p) - target) / rows;
    }
  }
  return total;
}

std::vector<float> random_logits(int rows, int classes, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> logits(static_cast<std::size_t>(rows) * classes);
  for (float& z : logits) z = normal(random);
  return logits;
}

TEST(MixedLoss, IsTheSoftTargetCrossEntropy) {
  constexpr int kRows = 6, kClasses = 5;
  const std::vector<float> logits = random_logits(kRows, kClasses, 1);
  const std::vector<std::int32_t> labels = {0, 4, 2, 2, 1, 3};
  const std::vector<std::int32_t> partners = {3, 1, 2, 2, 4, 0};  // the batch reversed
  for (float lam : {1.f, 0.73f, 0.5f, 0.f}) {                     // lam is a float in BatchMix
    for (double smoothing : {0.0, 0.1}) {
      SCOPED_TRACE(::testing::Message() << "lam " << lam << " smoothing " << smoothing);
      std::vector<double> want_grad;
      const double want =
          soft_target_loss(logits, labels, partners, lam, kClasses, smoothing, want_grad);
      std::vector<float> grad(logits.size() + kClasses, -1.f);  // a padding row
      const double got =
          softmax_cross_entropy(logits.data(), labels.data(), kRows, kRows + 1, kClasses,
                                grad.data(), kRows, smoothing, MixedLabels{partners.data(), lam});
      EXPECT_NEAR(got, want, 1e-9 * std::abs(want) + 1e-12);
      for (std::size_t i = 0; i < want_grad.size(); ++i) {
        EXPECT_NEAR(grad[i], want_grad[i], 1e-7) << "gradient element " << i;
      }
      for (std::size_t i = want_grad.size(); i < grad.size(); ++i) EXPECT_EQ(grad[i], 0.f);
    }
  }
}

TEST(MixedLoss, GradientMatchesFiniteDifferences) {
  constexpr int kRows = 4, kClasses = 6;
  const std::vector<float> logits = random_logits(kRows, kClasses, 2);
  const std::vector<std::int32_t> labels = {5, 0, 3, 3};
  const std::vector<std::int32_t> partners = {3, 3, 0, 5};
  const MixedLabels mixed{partners.data(), 0.37f};
  auto loss_at = [&](const std::vector<float>& z) {
    std::vector<float> unused(z.size());
    return softmax_cross_entropy(z.data(), labels.data(), kRows, kRows, kClasses, unused.data(),
                                 kRows, 0.2, mixed) /
           kRows;
  };
  std::vector<float> grad(logits.size());
  softmax_cross_entropy(logits.data(), labels.data(), kRows, kRows, kClasses, grad.data(), kRows,
                        0.2, mixed);
  expect_gradient_matches_finite_differences(logits, grad, loss_at);
}

// A linear model on 4x5 RGB images and a batch of seven (the middle image is its own partner).
// Linear, so the logits of a blend are the blend of the logits: the CPU program's mixed loss can
// be worked out from predictions of the unmixed images.
struct MixCase {
  static constexpr int kBatch = 7, kHeight = 4, kWidth = 5, kPixels = kHeight * kWidth;
  Graph graph;
  std::vector<std::uint8_t> images = std::vector<std::uint8_t>(kBatch * 3 * kPixels);
  std::vector<std::int32_t> labels = std::vector<std::int32_t>(kBatch);

  MixCase() {
    ModelSpec model;
    model.layers = {layer("flat", "flatten"), layer("fc", "linear", {{"out_features", kClasses}})};
    graph = build_graph(model, Shape{3, kHeight, kWidth}, kClasses);
    for (std::size_t i = 0; i < images.size(); ++i) images[i] = static_cast<std::uint8_t>(i * 53);
    for (int i = 0; i < kBatch; ++i) labels[i] = (i * 3 + 1) % kClasses;
  }
  std::unique_ptr<Program> compile(Backend& backend, int chunk, double smoothing) const {
    CompileOptions options;
    options.train_batch = options.eval_batch = kBatch;
    options.max_chunk = chunk;
    options.normalize = {{0.5f, 0.4f, 0.3f}, {0.25f, 0.2f, 0.3f}};
    options.label_smoothing = smoothing;
    auto program = backend.compile(graph, options);
    program->load_parameters(initial_parameters(graph, 7));
    return program;
  }
  std::vector<std::int32_t> partner_labels() const {
    std::vector<std::int32_t> partners(kBatch);
    for (int n = 0; n < kBatch; ++n) partners[n] = labels[batch_mix::partner(n, kBatch)];
    return partners;
  }
  // The batch with each image's box taken from its partner: cutmix's images, as bytes.
  std::vector<std::uint8_t> cut_images(const batch_mix::BatchMix& mix) const {
    std::vector<std::uint8_t> out = images;
    for (int n = 0; n < kBatch; ++n) {
      const int other = batch_mix::partner(n, kBatch);
      for (int c = 0; c < 3; ++c) {
        for (int y = mix.top; y < mix.bottom; ++y) {
          for (int x = mix.left; x < mix.right; ++x) {
            const std::size_t within = static_cast<std::size_t>(c) * kPixels + y * kWidth + x;
            out[n * 3 * kPixels + within] = images[other * 3 * kPixels + within];
          }
        }
      }
    }
    return out;
  }
};

batch_mix::BatchMix blend(float lam) {
  return {lam};
}
batch_mix::BatchMix cut_box() {
  return {1 - 6.f / 20, 1, 1, 3, 2, 5};  // rows 1-2, columns 2-4: 6 of 20 pixels
}

// The mixed batch's mean loss from the model's logits of the unmixed or cut images.
double expected_mixed_loss(Program& program, const MixCase& c, const batch_mix::BatchMix& mix,
                           double smoothing) {
  constexpr int kBatch = MixCase::kBatch;
  std::vector<float> logits(kBatch * kClasses);
  if (mix.cut) {
    const std::vector<std::uint8_t> cut = c.cut_images(mix);
    program.predict(cut.data(), kBatch, logits.data());
  } else {
    std::vector<float> plain(logits.size());
    program.predict(c.images.data(), kBatch, plain.data());
    for (int n = 0; n < kBatch; ++n) {
      const int other = batch_mix::partner(n, kBatch);
      for (int k = 0; k < kClasses; ++k) {
        logits[n * kClasses + k] =
            mix.lam * plain[n * kClasses + k] + (1 - mix.lam) * plain[other * kClasses + k];
      }
    }
  }
  std::vector<double> unused;
  return soft_target_loss(logits, c.labels, c.partner_labels(), mix.lam, kClasses, smoothing,
                          unused) /
         kBatch;
}

TEST(MixedBatch, TheCpuProgramTrainsOnTheMixedLossWholeOrInChunks) {
  const MixCase c;
  for (const batch_mix::BatchMix& mix : {blend(0.3f), cut_box()}) {
    SCOPED_TRACE(mix.cut ? "cutmix" : "mixup");
    std::vector<std::vector<float>> after;
    for (int chunk : {MixCase::kBatch, 2}) {
      SCOPED_TRACE(chunk);
      onednn::OnednnBackend cpu;
      auto program = c.compile(cpu, chunk, 0.1);
      const double want = expected_mixed_loss(*program, c, mix, 0.1);
      TrainBatch batch{c.images.data(), c.labels.data(), nullptr, MixCase::kBatch};
      batch.mix = mix;
      program->train_step(batch);
      const double got = program->take_loss().mean();
      EXPECT_NEAR(got, want, 1e-5 * std::abs(want));
      std::vector<float> logits(MixCase::kBatch * kClasses);
      program->predict(c.images.data(), MixCase::kBatch, logits.data());
      after.push_back(logits);
    }
    for (std::size_t i = 0; i < after[0].size(); ++i) EXPECT_NEAR(after[0][i], after[1][i], 1e-5);
  }
}

TEST(MixedBatch, UnmixedIsThePlainStepAndBadMixesAreRefused) {
  const MixCase c;
  onednn::OnednnBackend cpu;
  auto plain = c.compile(cpu, MixCase::kBatch, 0);
  auto unmixed = c.compile(cpu, MixCase::kBatch, 0);
  plain->train_step(c.images.data(), c.labels.data(), MixCase::kBatch);
  TrainBatch batch{c.images.data(), c.labels.data(), nullptr, MixCase::kBatch};
  batch.mix = blend(1.f);  // lam 1: nothing mixed
  unmixed->train_step(batch);
  EXPECT_EQ(plain->take_loss().sum, unmixed->take_loss().sum);
  batch.mix = {0.5f, 1, 0, 5, 0, 5};  // rows 0-4 of a 4-row image
  EXPECT_THROW(unmixed->train_step(batch), std::logic_error);
  batch.mix = blend(1.5f);
  EXPECT_THROW(unmixed->train_step(batch), std::logic_error);
}

// The cuDNN program's load kernel and loss against the CPU: the mixed loss and the weights
// after a step, for batches uploaded as images and gathered from a held training set.
TEST(MixedBatch, TheGpuProgramMatchesTheCpu) {
  REQUIRE_GPU();
  const MixCase c;
  onednn::OnednnBackend cpu;
  for (const batch_mix::BatchMix& mix : {blend(0.3f), cut_box()}) {
    for (bool held : {false, true}) {
      SCOPED_TRACE(::testing::Message() << (mix.cut ? "cutmix" : "mixup") << " held " << held);
      auto reference = c.compile(cpu, MixCase::kBatch, 0.1);
      auto program = c.compile(*gpu, MixCase::kBatch, 0.1);
      TrainBatch batch{c.images.data(), c.labels.data(), nullptr, MixCase::kBatch};
      batch.mix = mix;
      reference->train_step(batch);
      std::vector<std::uint32_t> rows(MixCase::kBatch);
      for (int n = 0; n < MixCase::kBatch; ++n) rows[n] = n;
      if (held) {
        ASSERT_TRUE(program->hold_training_set(
            HostImageSet{c.images.data(), c.labels.data(), MixCase::kBatch}));
        batch = TrainBatch{nullptr, nullptr, rows.data(), MixCase::kBatch};
        batch.mix = mix;
      }
      program->train_step(batch);
      const double want = reference->take_loss().mean(), got = program->take_loss().mean();
      EXPECT_NEAR(got, want, 1e-5 * std::abs(want));
      std::vector<float> expected(MixCase::kBatch * kClasses), actual(expected.size());
      reference->predict(c.images.data(), MixCase::kBatch, expected.data());
      program->predict(c.images.data(), MixCase::kBatch, actual.data());
      for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(actual[i], expected[i], 1e-4);
    }
  }
}

}  // namespace
}  // namespace runner::testing
