// Per-channel factors on oneDNN: their layout, and the host loop that sums their gradient.
#include "backends/onednn/per_channel.h"

#include <memory>
#include <vector>

#include "backends/common/bf16.h"

namespace runner::onednn {
namespace {

using Offsets = std::vector<std::vector<dnnl_dim_t>>;

// `m`, or a plain copy of it appended to `steps` where element_offsets cannot read its layout.
dnnl::memory readable(const BuildContext& ctx, const dnnl::memory& m, StepList& steps,
                      const std::string& label) {
  if (!element_offsets(m.get_desc()).empty()) return m;
  return ctx.in_layout(m, plain_desc(m.get_desc().dims(), m.get_desc().data_type()), steps, label);
}

// The offsets of a 4-D layout, or of a 2-D one with height and width 1 added.
Offsets offsets_of(const dnnl::memory& m) {
  Offsets offsets = element_offsets(m.get_desc());
  offsets.resize(4, {0});
  return offsets;
}

// sums[n * C + c] over the positions of image n, channel c, in FP32.
template <typename T>
void sum_products(const dnnl::memory& a, const dnnl::memory& b, std::vector<float>& sums) {
  const Offsets oa = offsets_of(a), ob = offsets_of(b);
  const T* pa = static_cast<const T*>(a.get_data_handle());
  const T* pb = static_cast<const T*>(b.get_data_handle());
  const auto images = static_cast<std::int64_t>(oa[0].size());
  const auto channels = static_cast<std::int64_t>(oa[1].size());
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < images; ++n) {
    for (std::int64_t c = 0; c < channels; ++c) {
      float sum = 0.f;
      for (std::size_t y = 0; y < oa[2].size(); ++y) {
        for (std::size_t x = 0; x < oa[3].size(); ++x) {
          sum += to_float(pa[oa[0][n] + oa[1][c] + oa[2][y] + oa[3][x]]) *
                 to_float(pb[ob[0][n] + ob[1][c] + ob[2][y] + ob[3][x]]);
        }
      }
      sums[n * channels + c] = sum;
    }
  }
}

// Writes sums (N, C), or their sums over n (C), as T.
template <typename T>
void store(const std::vector<float>& sums, std::size_t channels, bool over_images, T* out) {
  if (!over_images) {
    for (std::size_t i = 0; i < sums.size(); ++i) out[i] = from_float<T>(sums[i]);
    return;
  }
  for (std::size_t c = 0; c < channels; ++c) {
    float total = 0.f;
    for (std::size_t i = c; i < sums.size(); i += channels) total += sums[i];
    out[c] = from_float<T>(total);
  }
}

}  // namespace

std::optional<dnnl::memory::desc> factor_desc(const dnnl::memory::desc& x,
                                              const dnnl::memory::dims& dims) {
  const bool images = x.dims().size() == 4;
  for (tag t : images
                   ? std::vector<tag>{tag::abcd, tag::acdb, tag::aBcd16b, tag::aBcd8b, tag::aBcd4b}
                   : std::vector<tag>{tag::ab}) {
    if (dnnl::memory::desc(x.dims(), x.data_type(), t) == x) {
      return dnnl::memory::desc(dims, x.data_type(), t);
    }
  }
  return std::nullopt;
}

void append_multiply(const BuildContext& ctx, const dnnl::memory& a, const dnnl::memory& b,
                     const dnnl::memory& dst, StepList& steps, const std::string& label) {
  dnnl::binary::primitive_desc pd(
      dnnl::binary::desc(dnnl::algorithm::binary_mul, a.get_desc(), b.get_desc(), dst.get_desc()),
      ctx.engine);
  steps.add(label, dnnl::binary(pd),
            {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, dst}});
}

void append_channel_sums(const BuildContext& ctx, const dnnl::memory& a, const dnnl::memory& b,
                         const dnnl::memory& sums, bool over_images, StepList& steps,
                         const std::string& label) {
  const dnnl::memory ra = readable(ctx, a, steps, label + " layout");
  const dnnl::memory rb = readable(ctx, b, steps, label + " layout");
  const dnnl::memory::dims dims = a.get_desc().dims();
  const std::size_t channels = static_cast<std::size_t>(dims[1]);
  auto scratch = std::make_shared<std::vector<float>>(static_cast<std::size_t>(dims[0]) * channels);
  steps.add(label, [ra, rb, sums, over_images, channels, scratch] {
    const bool bf16 = ra.get_desc().data_type() == dt::bf16;
    if (bf16) {
      sum_products<Bf16>(ra, rb, *scratch);
    } else {
      sum_products<float>(ra, rb, *scratch);
    }
    if (sums.get_desc().data_type() == dt::bf16) {
      store(*scratch, channels, over_images, static_cast<Bf16*>(sums.get_data_handle()));
    } else {
      store(*scratch, channels, over_images, data_of(sums));
    }
  });
}

}  // namespace runner::onednn
