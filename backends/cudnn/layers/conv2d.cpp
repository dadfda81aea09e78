// conv2d on cuDNN (grouped, dilated): forward, backward data and backward filter with algorithms
// chosen once by cuDNN's heuristics (FP32 math only under fp32; deterministic ones when asked);
// bias by cuDNN's tensor add. Mixed precision: 16-bit data and filter (the weights' mirror), FP32
// accumulation, FP32 bias added and its gradient summed by our kernels, and the 16-bit filter
// gradient widened into the FP32 master gradient.
#include <fmt/format.h>

#include <optional>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/precision_kernels.h"
#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

const char* name_of(cudnnConvolutionFwdAlgo_t a) {
  static const char* names[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return a >= 0 && a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT ? names[a] : "unknown";
}
const char* name_of(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* names[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  return a >= 0 && a < CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT ? names[a] : "unknown";
}
const char* name_of(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* names[] = {
      "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  return a >= 0 && a < CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT ? names[a] : "unknown";
}

// Workspace above which an algorithm is passed over while another one needs less (FFT variants
// can ask for gigabytes at large batches).
constexpr std::size_t kWorkspaceLimit = std::size_t{1} << 30;

// fp32: tensor-op math rounds inputs to TF32 or half precision; every other math type (FMA,
// default) computes in FP32 as the CPU reference does. tf32: anything but a conversion of the
// FP32 data to half precision (ALLOW_CONVERSION), which would round more than TF32 does. 16-bit
// data: any.
bool math_allowed(cudnnMathType_t math, Precision precision) {
  switch (precision) {
    case Precision::fp32:
      return math != CUDNN_TENSOR_OP_MATH && math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    case Precision::tf32:
      return math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    case Precision::bf16:
    case Precision::fp16:
      break;
  }
  return true;
}

template <typename Algo>
struct Choice {
  Algo algo{};
  std::size_t workspace = 0;
};

// Walks cuDNN's candidates in its order (fastest by its estimate first), as PyTorch's v7 path
// does: skips those not supported, not of a math type the precision allows, not deterministic
// when asked, or whose workspace size cannot be had for this shape (`workspace(algo, &bytes)`
// fails); prefers the first whose workspace stays under kWorkspaceLimit, else the first usable.
template <typename Perf, typename WorkspaceQuery>
auto choose(const std::vector<Perf>& results, int returned, const BuildContext& ctx,
            WorkspaceQuery workspace, const char* pass, const std::string& layer) {
  const bool deterministic = ctx.deterministic;
  using Algo = decltype(Perf{}.algo);
  std::optional<Choice<Algo>> fallback;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = results[i];
    if (p.status != CUDNN_STATUS_SUCCESS || !math_allowed(p.mathType, ctx.precision)) continue;
    if (deterministic && p.determinism != CUDNN_DETERMINISTIC) continue;
    std::size_t bytes = 0;
    if (workspace(p.algo, &bytes) != CUDNN_STATUS_SUCCESS) continue;
    if (bytes <= kWorkspaceLimit) return Choice<Algo>{p.algo, bytes};
    if (!fallback) fallback = Choice<Algo>{p.algo, bytes};
  }
  if (fallback) return *fallback;
  throw LibraryError(fmt::format("cuDNN offers no {}{} {} algorithm for {} ({} candidates)",
                                 deterministic ? "deterministic " : "",
                                 precision_name(ctx.precision), pass, layer, returned));
}

class Conv2d : public CudnnLayer {
 public:
  DeviceTensor forward(BuildContext& ctx, const Node& node,
                       const std::vector<DeviceTensor>& inputs) override {
    const LayerAttrs& a = node.attrs;
    const ParamSpec& weight = node.params[0];
    x_ = inputs[0];                                                     // (N, Cin, H, W)
    DeviceTensor y = ctx.allocate(node.output, node.name + " output");  // (N, Cout, Ho, Wo)
    // cuDNN's grouped filter is PyTorch's (O, I/groups, kH, kW); the group count is the
    // convolution descriptor's.
    filter_ = std::make_unique<FilterDescriptor>(a.out_channels, x_.c / a.groups, a.kernel_h,
                                                 a.kernel_w, x_.type);
    conv_ = std::make_unique<ConvolutionDescriptor>(a.pad_h, a.pad_w, a.stride_h, a.stride_w,
                                                    a.dilation_h, a.dilation_w, a.groups,
                                                    ctx.precision);
    int n, c, h, w;
    CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_->get(), x_.cudnn(), filter_->get(), &n,
                                                      &c, &h, &w));
    if (n != y.n || c != y.c || h != y.h || w != y.w) {
      throw LibraryError(fmt::format("{}: cuDNN's output {}x{}x{} differs from the graph's {}",
                                     node.name, c, h, w, node.output.str()));
    }
    weights_ = ctx.weights(weight);
    if (a.bias) {
      bias_ = ctx.params->get(node.params[1]).value;
      bias_desc_ = std::make_unique<TensorDescriptor>(1, a.out_channels, 1, 1);
    }

    const cudnnHandle_t handle = ctx.libs->cudnn;
    int returned = 0;
    std::vector<cudnnConvolutionFwdAlgoPerf_t> results(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
        handle, x_.cudnn(), filter_->get(), conv_->get(), y.cudnn(),
        static_cast<int>(results.size()), &returned, results.data()));
    const auto chosen = choose(
        results, returned, ctx,
        [&](cudnnConvolutionFwdAlgo_t algo, std::size_t* bytes) {
          return cudnnGetConvolutionForwardWorkspaceSize(handle, x_.cudnn(), filter_->get(),
                                                         conv_->get(), y.cudnn(), algo, bytes);
        },
        "forward", node.name);
    const auto algo = chosen.algo;
    ctx.workspace->request(chosen.workspace);
    ctx.algorithms->push_back(fmt::format("{} forward: {}", node.name, name_of(algo)));

    const Libraries* libs = ctx.libs;
    const Workspace* ws = ctx.workspace;
    const DeviceTensor x = x_;
    const cudnnFilterDescriptor_t filter = filter_->get();
    const cudnnConvolutionDescriptor_t conv = conv_->get();
    const void* weights = weights_;
    const float* bias = bias_;
    const cudnnTensorDescriptor_t bias_desc = bias_desc_ ? bias_desc_->get() : nullptr;
    ctx.forward->add(node.name, [=](cudaStream_t stream) {
      CUDNN_CHECK(cudnnConvolutionForward(libs->cudnn, &kOne, x.cudnn(), x.data, filter, weights,
                                          conv, algo, ws->data, ws->bytes, &kZero, y.cudnn(),
                                          y.data));
      if (!bias) return;
      if (y.type == DataType::f32) {
        CUDNN_CHECK(cudnnAddTensor(libs->cudnn, &kOne, bias_desc, bias, &kOne, y.cudnn(), y.data));
      } else {
        kernels::add_bias_channels(y.data, y.type, bias, y.n, y.c, y.h * y.w, stream);
      }
    });
    return y;
  }

  void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                const std::vector<DeviceTensor>& input_grads) override {
    const cudnnHandle_t handle = ctx.libs->cudnn;
    const Libraries* libs = ctx.libs;
    const Workspace* ws = ctx.workspace;
    const DeviceTensor x = x_, dy = output_grad;
    const cudnnFilterDescriptor_t filter = filter_->get();
    const cudnnConvolutionDescriptor_t conv = conv_->get();

    int returned = 0;
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter_results(
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        handle, x.cudnn(), dy.cudnn(), conv, filter, static_cast<int>(filter_results.size()),
        &returned, filter_results.data()));
    const auto filter_choice = choose(
        filter_results, returned, ctx,
        [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t* bytes) {
          return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, x.cudnn(), dy.cudnn(), conv,
                                                                filter, algo, bytes);
        },
        "backward filter", node.name);
    const auto filter_algo = filter_choice.algo;
    ctx.workspace->request(filter_choice.workspace);
    ctx.algorithms->push_back(
        fmt::format("{} backward filter: {}", node.name, name_of(filter_algo)));

    const Parameter& weight = ctx.params->get(node.params[0]);
    float* weight_grad = weight.gradient;
    const std::size_t weight_elements = weight.elements;
    // 16-bit data gives a 16-bit filter gradient: written here, then widened into the master.
    void* filter_grad = x.type == DataType::f32
                            ? static_cast<void*>(weight_grad)
                            : ctx.memory->allocate(weight_elements * element_size(x.type),
                                                   node.name + " 16-bit weight gradient");
    float* bias_grad = node.attrs.bias ? ctx.params->get(node.params[1]).gradient : nullptr;
    const cudnnTensorDescriptor_t bias_desc = bias_desc_ ? bias_desc_->get() : nullptr;
    ctx.backward->add(node.name + " backward weights", [=](cudaStream_t stream) {
      CUDNN_CHECK(cudnnConvolutionBackwardFilter(libs->cudnn, &kOne, x.cudnn(), x.data, dy.cudnn(),
                                                 dy.data, conv, filter_algo, ws->data, ws->bytes,
                                                 &kZero, filter, filter_grad));
      if (x.type != DataType::f32) {
        kernels::convert(filter_grad, x.type, weight_grad, DataType::f32, weight_elements, stream);
      }
      if (!bias_grad) return;
      if (dy.type == DataType::f32) {
        CUDNN_CHECK(cudnnConvolutionBackwardBias(libs->cudnn, &kOne, dy.cudnn(), dy.data, &kZero,
                                                 bias_desc, bias_grad));
      } else {
        kernels::sum_channels(dy.data, dy.type, dy.n, dy.c, dy.h * dy.w, bias_grad, stream);
      }
    });

    if (!input_grads[0]) return;  // the data needs no gradient
    const DeviceTensor dx = input_grads[0];
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data_results(
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle, filter, dy.cudnn(), conv, dx.cudnn(), static_cast<int>(data_results.size()),
        &returned, data_results.data()));
    const auto data_choice = choose(
        data_results, returned, ctx,
        [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes) {
          return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, filter, dy.cudnn(), conv,
                                                              dx.cudnn(), algo, bytes);
        },
        "backward data", node.name);
    const auto data_algo = data_choice.algo;
    ctx.workspace->request(data_choice.workspace);
    ctx.algorithms->push_back(fmt::format("{} backward data: {}", node.name, name_of(data_algo)));
    const void* weights = weights_;
    ctx.backward->add(node.name + " backward data", [=](cudaStream_t) {
      CUDNN_CHECK(cudnnConvolutionBackwardData(libs->cudnn, &kOne, filter, weights, dy.cudnn(),
                                               dy.data, conv, data_algo, ws->data, ws->bytes,
                                               &kZero, dx.cudnn(), dx.data));
    });
  }

 private:
  DeviceTensor x_;
  const void* weights_ = nullptr;  // FP32, or the 16-bit mirror
  float* bias_ = nullptr;
  std::unique_ptr<FilterDescriptor> filter_;
  std::unique_ptr<ConvolutionDescriptor> conv_;
  std::unique_ptr<TensorDescriptor> bias_desc_;
};

}  // namespace

RUNNER_CUDNN_LAYER(conv2d) {
  return std::make_unique<Conv2d>();
}

}  // namespace runner::cudnn
