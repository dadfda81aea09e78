// The weight gradient dW (O, KH, KW, C) = dY^T (O, rows) x windows (rows, KH KW C), a row per
// output position, in chunks of whole images whose window rows fit kWindowBytes; the chunks'
// products sum into dW (a sum post-op after the first). The bias gradient is dY summed over the
// images and positions (a reduction).
#include "backends/onednn/layers/conv2d_matmul_weights.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

namespace runner::onednn {
namespace {

// The most bytes of window rows built at a time: bigger inputs run as several products.
constexpr std::int64_t kWindowBytes = std::int64_t{32} << 20;
// Output positions per image up to which the direct kernel loses to the products (4x4).
constexpr std::int64_t kFewPositions = 16;
// The shortest window row (kernel taps x input channels) that gains: thinner products run below
// the direct kernel's rate (a 3x3 window of 32 channels, a 1x1 of 256, measured).
constexpr std::int64_t kShortestRow = 512;

struct Geometry {
  std::int64_t images, channels, height, width, outputs, out_h, out_w;
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;

  std::int64_t positions() const { return out_h * out_w; }
  std::int64_t row_length() const { return kernel_h * kernel_w * channels; }
};

Geometry geometry_of(const Node& node, const dnnl::memory::dims& src,
                     const dnnl::memory::dims& dst) {
  const LayerAttrs& a = node.attrs;
  return {src[0],     src[1],  src[2],     src[3],       dst[1],
          dst[2],     dst[3],  a.kernel_h, a.kernel_w,   a.stride_h,
          a.stride_w, a.pad_h, a.pad_w,    a.dilation_h, a.dilation_w};
}

// Channels that lie next to each other in memory, copied as one: a 16-channel block, or every
// channel of a channels-last pixel.
struct ChannelRun {
  std::int64_t first, count, offset;
};

std::vector<ChannelRun> channel_runs(const std::vector<dnnl_dim_t>& channel_offsets) {
  std::vector<ChannelRun> runs;
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(channel_offsets.size()); ++c) {
    const bool next = !runs.empty() && channel_offsets[c] == runs.back().offset + runs.back().count;
    if (next) {
      ++runs.back().count;
    } else {
      runs.push_back({c, 1, channel_offsets[c]});
    }
  }
  return runs;
}

// Where the input's pixels and channels lie (element_offsets of its layout).
struct InputLayout {
  std::vector<std::vector<dnnl_dim_t>> offsets;  // per dimension (N, C, H, W); empty: unreadable
  std::vector<ChannelRun> runs;
};

InputLayout layout_of(const dnnl::memory::desc& md) {
  InputLayout layout{element_offsets(md), {}};
  if (!layout.offsets.empty()) layout.runs = channel_runs(layout.offsets[1]);
  return layout;
}

// Writes the window rows of images [first, first + count): row (n, y, x) holds, tap by tap
// (ky, kx), the input's channels at that tap, zeros where it falls into the padding.
void write_window_rows(const std::uint16_t* src, const InputLayout& layout, const Geometry& g,
                       std::int64_t first, std::int64_t count, std::uint16_t* rows) {
  const std::int64_t length = g.row_length();
  const std::vector<dnnl_dim_t>& n_offset = layout.offsets[0];
  const std::vector<dnnl_dim_t>& h_offset = layout.offsets[2];
  const std::vector<dnnl_dim_t>& w_offset = layout.offsets[3];
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < count; ++n) {
    for (std::int64_t y = 0; y < g.out_h; ++y) {
      for (std::int64_t x = 0; x < g.out_w; ++x) {
        std::uint16_t* row = rows + ((n * g.out_h + y) * g.out_w + x) * length;
        for (int ky = 0; ky < g.kernel_h; ++ky) {
          const std::int64_t iy = y * g.stride_h - g.pad_h + ky * g.dilation_h;
          for (int kx = 0; kx < g.kernel_w; ++kx) {
            const std::int64_t ix = x * g.stride_w - g.pad_w + kx * g.dilation_w;
            std::uint16_t* tap = row + (ky * g.kernel_w + kx) * g.channels;
            if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) {
              std::fill_n(tap, g.channels, std::uint16_t{0});  // bf16 zero
              continue;
            }
            const std::uint16_t* pixel = src + n_offset[first + n] + h_offset[iy] + w_offset[ix];
            for (const ChannelRun& run : layout.runs) {
              std::memcpy(tap + run.first, pixel + run.offset,
                          static_cast<std::size_t>(run.count) * sizeof(std::uint16_t));
            }
          }
        }
      }
    }
  }
}

// A memory of `md` over `base`'s buffer from element `offset` on.
dnnl::memory at_offset(const dnnl::memory& base, const dnnl::memory::desc& md,
                       std::int64_t offset) {
  auto* bytes = static_cast<char*>(base.get_data_handle());
  const auto element =
      static_cast<std::int64_t>(dnnl::memory::data_type_size(base.get_desc().data_type()));
  return dnnl::memory(md, base.get_engine(), bytes + offset * element);
}

// One product: the images of the chunk and its matmul.
struct Chunk {
  std::int64_t first = 0, count = 0;
  dnnl::matmul::primitive_desc pd;
};

}  // namespace

bool matmul_weight_gradient_applies(const BuildContext& ctx, const Node& node,
                                    const dnnl::memory::dims& src, const dnnl::memory::dims& dst) {
  const LayerAttrs& a = node.attrs;
  if (ctx.data != dt::bf16 || !ctx.training || !ctx.own_kernels || a.groups != 1 ||
      src.size() != 4 || dst.size() != 4 ||
      std::int64_t{a.kernel_h} * a.kernel_w * src[1] < kShortestRow) {
    return false;
  }
  const bool strided_window =
      (a.stride_h > 1 || a.stride_w > 1) && (a.kernel_h > 1 || a.kernel_w > 1);
  return strided_window || dst[2] * dst[3] <= kFewPositions;
}

bool add_matmul_weight_gradient(BuildContext& ctx, const Node& node, const dnnl::memory& src,
                                const dnnl::memory& output_grad) {
  const dnnl::memory::dims dst_dims = output_grad.get_desc().dims();
  const Geometry g = geometry_of(node, src.get_desc().dims(), dst_dims);
  const std::int64_t length = g.row_length();
  const std::int64_t per_chunk = std::clamp<std::int64_t>(
      kWindowBytes / (g.positions() * length * std::int64_t{sizeof(std::uint16_t)}), 1, g.images);

  // dW (O, K) = dY^T (O, rows) x windows (rows, K); dY channels-last is (rows, O).
  auto product = [&](std::int64_t images, bool accumulate) {
    const std::int64_t rows = images * g.positions();
    dnnl::memory::desc output_grad_t({g.outputs, rows}, dt::bf16, {1, g.outputs});
    dnnl::memory::desc windows({rows, length}, dt::bf16, tag::ab);
    dnnl::memory::desc weight_grad({g.outputs, length}, dt::f32, tag::ab);
    dnnl::post_ops sum;
    if (accumulate) sum.append_sum();
    dnnl::primitive_attr attr;
    attr.set_post_ops(sum);
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(output_grad_t, windows, weight_grad),
                                        attr, ctx.engine);
  };
  std::vector<Chunk> chunks;
  try {
    for (std::int64_t first = 0; first < g.images; first += per_chunk) {
      const std::int64_t count = std::min(per_chunk, g.images - first);
      chunks.push_back({first, count, product(count, first > 0)});
      if (!is_native_bf16(chunks.back().pd)) return false;
    }
  } catch (const dnnl::error&) {
    return false;
  }
  dnnl::reduction::primitive_desc bias_pd;
  const dnnl::memory::desc grad_rows(dst_dims, dt::bf16, tag::acdb);  // (rows, O)
  if (node.attrs.bias) {
    try {
      bias_pd = dnnl::reduction::primitive_desc(
          dnnl::reduction::desc(dnnl::algorithm::reduction_sum, grad_rows,
                                dnnl::memory::desc({1, g.outputs, 1, 1}, dt::f32, tag::abcd), 0.f,
                                0.f),
          ctx.engine);
    } catch (const dnnl::error&) {
      return false;
    }
  }

  // The input where its channels come in runs (blocks of 16, channels-last), else a
  // channels-last copy of it.
  InputLayout layout = layout_of(src.get_desc());
  dnnl::memory input = src;
  if (layout.offsets.empty() || static_cast<std::int64_t>(layout.runs.size()) * 8 > g.channels) {
    const dnnl::memory::desc channels_last(src.get_desc().dims(), dt::bf16, tag::acdb);
    input = ctx.in_layout(src, channels_last, *ctx.backward, node.name + " src layout");
    layout = layout_of(channels_last);
  }
  const dnnl::memory grad =
      ctx.in_layout(output_grad, grad_rows, *ctx.backward, node.name + " grad layout");
  StepList gradient_layouts;  // after the products, where the master gradient has another layout
  const ParamSpec& weight = node.params[0];
  const dnnl::memory weight_grad = ctx.params->gradient(
      weight.name, dnnl::memory::desc(weight.dims, dt::f32, tag::acdb), gradient_layouts);
  const dnnl::memory weight_grad_2d = at_offset(weight_grad, chunks[0].pd.dst_desc(), 0);
  auto shared_layout = std::make_shared<const InputLayout>(std::move(layout));
  for (const Chunk& chunk : chunks) {
    // The rows live only through their product: every layer's share one buffer.
    const dnnl::memory windows = ctx.backward_scratch->request(chunk.pd.weights_desc(), ctx.engine);
    ctx.backward->add(node.name + " backward weights (window rows)", [=, g = g, first = chunk.first,
                                                                      count = chunk.count] {
      write_window_rows(static_cast<const std::uint16_t*>(input.get_data_handle()), *shared_layout,
                        g, first, count, static_cast<std::uint16_t*>(windows.get_data_handle()));
    });
    ctx.backward->add(node.name + " backward weights", dnnl::matmul(chunk.pd),
                      {{DNNL_ARG_SRC, at_offset(grad, chunk.pd.src_desc(),
                                                chunk.first * g.positions() * g.outputs)},
                       {DNNL_ARG_WEIGHTS, windows},
                       {DNNL_ARG_DST, weight_grad_2d}});
  }
  if (node.attrs.bias) {
    const ParamSpec& bias = node.params[1];
    const dnnl::memory bias_grad = ctx.params->gradient(
        bias.name, dnnl::memory::desc(bias.dims, dt::f32, tag::a), gradient_layouts);
    ctx.backward->add(
        node.name + " backward bias", dnnl::reduction(bias_pd),
        {{DNNL_ARG_SRC, grad}, {DNNL_ARG_DST, reshaped(bias_grad, {1, g.outputs, 1, 1})}});
  }
  ctx.backward->append(gradient_layouts);
  return true;
}

}  // namespace runner::onednn
