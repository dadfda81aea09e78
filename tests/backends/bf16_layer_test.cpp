// bf16 mixed precision on the oneDNN backend, per layer kind: the forward pass and the gradients
// against the double-precision reference within bounds derived from bf16's 8-bit significand,
// FP32 master weights, and a setting that takes effect. Skipped where the CPU has no bf16 at all.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <oneapi/dnnl/dnnl.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/common/bf16.h"
#include "backends/onednn/onednn_backend.h"
#include "layer_fixture.h"

namespace runner::testing {
namespace {

// bf16 keeps 8 significant bits: rounding to nearest is off by at most u = 2^-8 of the value.
constexpr double kUnitRoundoff = 1.0 / 256;

// To first order, every rounding adds at most u (times the gain of the layers after it, about 1
// for these small normalised graphs) to the output's relative error: the input is rounded once,
// and each layer rounds its output and, for conv2d and linear, its weights (products accumulate
// in FP32). The backward pass rounds each gradient once more, on top of the forward error in the
// activations it reads. Bounds relative to the largest reference value (relative_error).
double forward_bound(const Graph& graph) {
  double roundings = 1;
  for (const Node& node : graph.nodes) roundings += node.params.empty() ? 1 : 2;
  return roundings * kUnitRoundoff;
}
double gradient_bound(const Graph& graph) {
  return 2 * forward_bound(graph);
}

double round_to_bf16(double value) {
  return to_float(to_bf16(static_cast<float>(value)));
}

class Bf16Layer : public OnednnLayerTest {
 protected:
  void SetUp() override {
    if (!onednn::cpu_precisions().contains(Precision::bf16)) {
      GTEST_SKIP() << "this CPU has no bf16 in oneDNN (needs AVX-512)";
    }
    OnednnLayerTest::SetUp();
  }

  // Whether the CPU computes bf16 natively (AVX512-BF16 or AMX): the tests of which kernels and
  // layouts oneDNN picks hold there; an emulating CPU has other kernels.
  static bool native_bf16() {
    return onednn::cpu_precisions().at(Precision::bf16) == PrecisionSupport::native;
  }

  // Per parameter, how far the exact gradients move when only the input and the weights are
  // rounded to bf16 (the reference in double precision otherwise): the part of bf16's error
  // that no implementation avoids. Gradients summed over positions whose terms cancel (batch
  // norm's above all) move far more than u, and every later rounding moves them as much again.
  std::map<std::string, double> rounding_sensitivity(
      const std::map<std::string, Values>& exact) const {
    auto weights = as_values(initial_);
    for (auto& [name, values] : weights) {
      for (double& v : values) v = round_to_bf16(v);
    }
    Values input = batch_.normalized;
    for (double& v : input) v = round_to_bf16(v);
    auto moved = ReferenceModel(graph_, weights).gradients(input, batch_.labels);
    std::map<std::string, double> sensitivity;
    for (const auto& [name, values] : exact) {
      sensitivity[name] = relative_error(moved.at(name), values);
    }
    return sensitivity;
  }
};

TEST_P(Bf16Layer, ForwardMatchesTheReferenceWithinBf16Rounding) {
  const int batch = GetParam().batch;
  auto program = compile(batch, batch, 128, Precision::bf16);
  std::vector<float> logits(batch * kClasses);
  program->predict(batch_.bytes.data(), batch, logits.data());
  Values expected = ReferenceModel(graph_, as_values(initial_)).logits(batch_.normalized, batch);
  const double error = relative_error(Values(logits.begin(), logits.end()), expected);
  EXPECT_LT(error, forward_bound(graph_)) << "max relative difference " << error;
}

TEST_P(Bf16Layer, GradientsMatchTheReferenceWithinBf16Rounding) {
  const int batch = GetParam().batch;
  auto program = compile(batch, batch, 128, Precision::bf16);
  program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
  ReferenceModel model(graph_, as_values(initial_));
  EXPECT_NEAR(program->take_loss().mean(), model.loss(batch_.normalized, batch_.labels),
              forward_bound(graph_) * 4);  // the loss of logits within the forward bound
  auto expected = model.gradients(batch_.normalized, batch_.labels);
  const auto sensitivity = rounding_sensitivity(expected);
  auto before = as_values(initial_);
  for (const auto& tensor : program->parameters()) {
    if (!expected.count(tensor.name)) continue;  // running statistics
    Values grad(tensor.values.size());
    for (std::size_t i = 0; i < grad.size(); ++i)
      grad[i] = before[tensor.name][i] - tensor.values[i];
    const double error = relative_error(grad, expected.at(tensor.name));
    const double bound = gradient_bound(graph_) + 2 * sensitivity.at(tensor.name);
    EXPECT_LT(error, bound) << tensor.name << ": max relative difference " << error
                            << ", of which rounding the input and weights alone makes "
                            << sensitivity.at(tensor.name);
  }
}

// The primitives one training step of `program` executes, from oneDNN's execution log: per
// primitive its fields (exec,cpu,kind,impl,pass,descs,attrs,aux,problem,time after the prefix).
std::vector<std::vector<std::string>> executed_primitives(Program& program, const Batch& batch,
                                                          int n) {
  program.train_step(batch.bytes.data(), batch.labels.data(), n);  // creates the kernels
  ::testing::internal::CaptureStdout();
  dnnl::set_verbose(1);  // one line per executed primitive
  program.train_step(batch.bytes.data(), batch.labels.data(), n);
  dnnl::set_verbose(0);
  std::fflush(stdout);
  std::istringstream log(::testing::internal::GetCapturedStdout());
  std::vector<std::vector<std::string>> primitives;
  for (std::string line; std::getline(log, line);) {
    if (line.rfind("onednn_verbose,exec,", 0) != 0) continue;
    std::vector<std::string> f;
    std::istringstream split(line);
    for (std::string field; std::getline(split, field, ',');) f.push_back(field);
    if (f.size() >= 11) primitives.push_back(std::move(f));
  }
  return primitives;
}

// "kind,pass,problem" -> the implementation's name, for convolutions and inner products.
std::map<std::string, std::string> compute_kernels(Program& program, const Batch& batch, int n) {
  std::map<std::string, std::string> kernels;
  for (const auto& f : executed_primitives(program, batch, n)) {
    if (f[3] == "convolution" || f[3] == "inner_product")
      kernels[f[3] + "," + f[5] + "," + f[9]] = f[4];
  }
  return kernels;
}

// The reference implementation, or a convolution's GEMM-based one (im2col, then a matrix
// multiply). An inner product is a matrix multiply: oneDNN's GEMM on bf16 runs the AVX512-BF16
// instructions as its brgemm kernel does (linear.cpp picks it for the plain weight layout).
bool generic_kernel(const std::string& pass, const std::string& impl) {
  const bool convolution = pass.rfind("convolution,", 0) == 0;
  return impl.find("ref") != std::string::npos ||
         (convolution && impl.find("gemm:") != std::string::npos);
}

// Where oneDNN has a specialised FP32 kernel for a convolution or inner product pass but only a
// generic one (GEMM-based, reference) in bf16, the bf16 program computes that pass in FP32:
// oneDNN 2.6's GEMM-based bf16 weight gradient of a single-channel convolution took 55 % of a
// LeNet step on Fashion-MNIST, 8x its FP32 kernel.
TEST_P(Bf16Layer, NoPassRunsAGenericBf16KernelWhereFp32HasASpecialisedOne) {
  const int batch = GetParam().batch;
  const auto fp32 = compute_kernels(*compile(batch, batch), batch_, batch);
  const auto bf16 = compute_kernels(*compile(batch, batch, 128, Precision::bf16), batch_, batch);
  ASSERT_FALSE(bf16.empty()) << "no convolution or inner product ran";
  for (const auto& [pass, impl] : bf16) {
    if (!generic_kernel(pass, impl) || !fp32.count(pass)) continue;
    EXPECT_TRUE(generic_kernel(pass, fp32.at(pass)))
        << pass << ": " << impl << " in bf16, " << fp32.at(pass) << " in FP32";
  }
}

// A strided convolution wider than 1x1 computes its weight gradient from FP32 copies of its
// bf16 tensors (conv2d.cpp): oneDNN 2.6's bf16 kernel there runs at half its FP32 kernel's rate.
// (Wide windows of 512 or more taps x channels run as matrix products instead: WindowRowCases.)
// oneDNN's log writes a problem as "mb4_ic3oc16_ih32oh16kh3sh2dh0ph1_iw32ow16kw3sw2dw0pw1".
TEST_P(Bf16Layer, StridedWindowsComputeTheirWeightGradientInFp32) {
  const int batch = GetParam().batch;
  auto program = compile(batch, batch, 128, Precision::bf16);
  const std::regex window("kh(\\d+)sh(\\d+).*kw(\\d+)sw(\\d+)");
  for (const auto& f : executed_primitives(*program, batch_, batch)) {
    std::smatch m;
    if (f[3] != "convolution" || f[5] != "backward_weights" || !std::regex_search(f[9], m, window))
      continue;
    const bool strided = std::stoi(m[2]) > 1 || std::stoi(m[4]) > 1;
    const bool wide = std::stoi(m[1]) > 1 || std::stoi(m[3]) > 1;
    const bool fp32 = f[6].find("src_f32") != std::string::npos;
    EXPECT_TRUE(fp32 || !strided || !wide) << f[9] << ": " << f[4] << " " << f[6];
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, Bf16Layer, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// Convolutions whose weight gradient runs as matrix products of window rows
// (conv2d_matmul_weights.h): few output positions, or a strided window, with rows of 512 or more
// taps x channels. The input's layouts differ: plain (the image itself, 57 channels: copied
// channels-last first) and 16-channel blocks (after a first convolution).
std::vector<LayerCase> window_row_cases() {
  const auto head = with_classifier;
  return {
      {"rows_4x4_blocked_bias",
       {16, 4, 4},
       3,
       head({layer("c1", "conv2d", {{"out_channels", 64}, {"kernel", 1}}),
             layer("c2", "conv2d", {{"out_channels", 24}, {"kernel", 3}, {"padding", 1}})})},
      {"rows_strided_dilated_plain_nobias",
       {57, 9, 11},
       2,
       head({layer("c", "conv2d",
                   {{"out_channels", 7},
                    {"kernel", 3},
                    {"stride", 2},
                    {"padding", 2},
                    {"dilation", 2},
                    {"bias", false}})})},
      {"rows_1x1_3x3_positions",
       {512, 3, 3},
       2,
       head({layer("c", "conv2d", {{"out_channels", 5}, {"kernel", 1}})})},
  };
}

INSTANTIATE_TEST_SUITE_P(WindowRowCases, Bf16Layer, ::testing::ValuesIn(window_row_cases()),
                         [](const auto& info) { return info.param.name; });

class WindowRowGradient : public Bf16Layer {};

// The products' weight and bias gradients agree with oneDNN's convolution kernel's (the program
// with backend.own_kernels off) to FP32's rounding: both sum the same bf16 products in FP32, in
// another order. And the products ran: no convolution computed a weight gradient.
TEST_P(WindowRowGradient, AgreesWithOneDnnsConvolutionKernel) {
  if (!native_bf16()) GTEST_SKIP() << "this CPU only emulates bf16 (no native bf16 matmul)";
  const int batch = GetParam().batch;
  auto rows = compile(batch, batch, 128, Precision::bf16, true);
  auto direct = compile(batch, batch, 128, Precision::bf16, false);
  std::size_t products = 0;
  const std::regex rows_of("ic(\\d+).*kh(\\d+).*kw(\\d+)");  // "mb3_ic64oc24_ih4oh4kh3..."
  for (const auto& f : executed_primitives(*rows, batch_, batch)) {
    std::smatch m;
    const bool weight_gradient =
        f[3] == "convolution" && f[5] == "backward_weights" && std::regex_search(f[9], m, rows_of);
    EXPECT_FALSE(weight_gradient && std::stoi(m[1]) * std::stoi(m[2]) * std::stoi(m[3]) >= 512)
        << f[9] << ": " << f[4];
    products += f[3] == "matmul";
  }
  EXPECT_GT(products, 0u);
  rows = compile(batch, batch, 128, Precision::bf16, true);  // executed_primitives stepped it
  for (auto* program : {rows.get(), direct.get()})
    program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
  const auto before = as_values(initial_);
  const std::vector<HostTensor> direct_values = direct->parameters();
  for (const HostTensor& tensor : rows->parameters()) {
    if (!before.count(tensor.name)) continue;
    const HostTensor& other =
        *std::find_if(direct_values.begin(), direct_values.end(),
                      [&](const HostTensor& t) { return t.name == tensor.name; });
    Values grad(tensor.values.size()), expected(tensor.values.size());
    for (std::size_t i = 0; i < grad.size(); ++i) {
      grad[i] = before.at(tensor.name)[i] - tensor.values[i];
      expected[i] = before.at(tensor.name)[i] - other.values[i];
    }
    EXPECT_LT(relative_error(grad, expected), 1e-4) << tensor.name;
  }
}

// With the cases above, one whose window rows take more than one product: 34 images of 1,024
// output positions x 525 taps-channels (5x5 x 21) are 37 MB of rows, two products of 31 and 3
// images (the second adding into the first's gradient).
std::vector<LayerCase> window_row_cases_and_chunks() {
  std::vector<LayerCase> all = window_row_cases();
  all.push_back(
      {"rows_in_two_products",
       {21, 64, 64},
       34,
       {layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 5}, {"stride", 2}, {"padding", 2}}),
        layer("pool", "global_avg_pool2d", {{"flatten", true}}),
        layer("fc", "linear", {{"out_features", kClasses}})}});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Cases, WindowRowGradient,
                         ::testing::ValuesIn(window_row_cases_and_chunks()),
                         [](const auto& info) { return info.param.name; });

class Bf16Lenet : public Bf16Layer {};

// Checkpoints and the optimizer see FP32 masters: a bf16 program returns the FP32 values it was
// given, and after a step holds p - lr * g in FP32 (a bf16 master would round both).
TEST_P(Bf16Lenet, MasterWeightsStayFp32) {
  const int batch = GetParam().batch;
  auto program = compile(batch, batch, 128, Precision::bf16);
  for (const HostTensor& tensor : program->parameters()) {
    const HostTensor& given =
        *std::find_if(initial_.begin(), initial_.end(),
                      [&](const HostTensor& t) { return t.name == tensor.name; });
    EXPECT_EQ(tensor.values, given.values) << tensor.name;
  }
  program->train_step(batch_.bytes.data(), batch_.labels.data(), batch);
  std::size_t values = 0, wider = 0;
  for (const HostTensor& tensor : program->parameters()) {
    for (float v : tensor.values) wider += !representable_in_bf16(v);
    values += tensor.values.size();
  }
  EXPECT_GT(wider, values * 9 / 10) << "of " << values << " values after a step";
}

// The precision takes effect: bf16 logits differ from FP32 ones by far more than FP32's own
// rounding (about 1e-7), though within bf16's bound.
TEST_P(Bf16Lenet, DiffersFromFp32) {
  const int batch = GetParam().batch;
  std::vector<float> fp32(batch * kClasses), bf16(batch * kClasses);
  compile(batch, batch)->predict(batch_.bytes.data(), batch, fp32.data());
  compile(batch, batch, 128, Precision::bf16)->predict(batch_.bytes.data(), batch, bf16.data());
  const double difference =
      relative_error(Values(bf16.begin(), bf16.end()), Values(fp32.begin(), fp32.end()));
  EXPECT_GT(difference, 1e-5);
  EXPECT_LT(difference, forward_bound(graph_));
}

// Mixed precision keeps activations whose channels are not a multiple of 16 channels-last
// (conv2d.cpp): in oneDNN's 16-channel blocks LeNet's 6 or 24 channels would be padded to 16 or
// 32, and every pass over them would do up to 2.7x the work (a fifth of a LeNet step at width 4).
TEST_P(Bf16Lenet, NoActivationIsPaddedToAChannelBlock) {
  if (!native_bf16()) GTEST_SKIP() << "this CPU only emulates bf16";
  const int batch = GetParam().batch;
  auto program = compile(batch, batch, 128, Precision::bf16);
  for (const auto& f : executed_primitives(*program, batch_, batch)) {
    if (f[3] == "reorder") continue;  // parameter mirrors and the input's conversion
    std::istringstream descs(f[6]);   // "src_bf16:p:blocked:aBcd16b:f0 wei_..."
    for (std::string desc; descs >> desc;) {
      const bool weights = desc.rfind("wei_", 0) == 0;
      EXPECT_FALSE(!weights && desc.find("bf16:p:") != std::string::npos)
          << f[3] << " " << f[5] << " " << f[9] << ": " << desc;
    }
  }
}

// A linear layer's FP32 weight gradient lands in its master's plain layout: no reorder of an
// FP32 tensor of a weight's shape runs in a bf16 step (the blocked gradient's reorder took 2 %
// of a LeNet step at width 4).
TEST_P(Bf16Lenet, LinearWeightGradientsNeedNoLayoutReorder) {
  if (!native_bf16()) GTEST_SKIP() << "this CPU only emulates bf16";
  const int batch = GetParam().batch;
  std::set<std::string> linear_weights;  // "OxI", as oneDNN's log writes a problem
  for (const Node& node : graph_.nodes) {
    if (node.type != "linear") continue;
    linear_weights.insert(fmt::format("{}x{}", node.params[0].dims[0], node.params[0].dims[1]));
  }
  ASSERT_FALSE(linear_weights.empty());
  auto program = compile(batch, batch, 128, Precision::bf16);
  for (const auto& f : executed_primitives(*program, batch_, batch)) {
    const bool fp32_to_fp32 =
        f[6].find("src_f32") != std::string::npos && f[6].find("dst_f32") != std::string::npos;
    EXPECT_FALSE(f[3] == "reorder" && fp32_to_fp32 && linear_weights.count(f[9]))
        << "reorder " << f[6] << " of " << f[9];
  }
}

std::vector<LayerCase> lenet_like() {
  std::vector<LayerCase> chosen;
  for (const LayerCase& c : cases()) {
    if (c.layers.size() >= 5) chosen.push_back(c);
  }
  return chosen;
}

INSTANTIATE_TEST_SUITE_P(Graphs, Bf16Lenet, ::testing::ValuesIn(lenet_like()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace runner::testing
