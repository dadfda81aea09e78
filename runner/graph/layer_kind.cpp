// The registry of layer kinds and the helpers their shape rules share.
#include "runner/graph/layer_kind.h"

#include <fmt/format.h>

#include <cmath>

namespace runner {

#define RUNNER_REGISTRY_ENTRY(name) RUNNER_LAYER_KIND(name);
#include "runner/graph/layer_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY

namespace {

std::vector<LayerKind> registered_kinds() {
  std::vector<LayerKind> kinds;
  auto add = [&kinds](const char* type, LayerKind kind) {
    kind.type = type;
    if (!kind.parse) kind.parse = [](const LayerSpec&, double, LayerAttrs&) {};
    if (!kind.infer_shape)
      kind.infer_shape = [](const Node&, const std::vector<Shape>& in) { return in[0]; };
    if (!kind.params)
      kind.params = [](const Node&, const std::vector<Shape>&) { return std::vector<ParamSpec>{}; };
    if (!kind.flops)
      kind.flops = [](const Node& node, const std::vector<Shape>&) {
        return node.output.elements();
      };
    kinds.push_back(std::move(kind));
  };
#define RUNNER_REGISTRY_ENTRY(name) add(#name, layer_kind_##name());
#include "runner/graph/layer_kinds.inc"
#undef RUNNER_REGISTRY_ENTRY
  return kinds;
}

}  // namespace

const std::vector<LayerKind>& layer_kinds() {
  static const std::vector<LayerKind> kinds = registered_kinds();
  return kinds;
}

const LayerKind& find_layer_kind(const std::string& type, const SourceLocation& where) {
  std::vector<std::string> names;
  for (const auto& kind : layer_kinds()) {
    if (kind.type == type) return kind;
    names.push_back(kind.type);
  }
  std::string hint = fmt::format("known types: {}", fmt::join(names, ", "));
  std::string suggestion = nearest_match(type, names);
  if (!suggestion.empty()) hint = fmt::format("did you mean '{}'? {}", suggestion, hint);
  SourceLocation at = where;
  at.path += ".type";
  throw_user_error(at, fmt::format("unknown layer type '{}'", type), hint);
}

bool uses_batch_statistics(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    if (find_layer_kind(node.type, node.where).batch_statistics) return true;
  }
  return false;
}

int read_scaled_count(const LayerSpec& spec, const char* key, double width) {
  const int count = read_int(spec, key, 1);
  const double scaled = std::round(count * width);
  if (!(scaled <= static_cast<double>(graph_limits::max_features))) {
    SourceLocation at = spec.where;
    at.path += std::string(".") + key;
    throw_user_error(at,
                     fmt::format("{} {} times model.width {} is {:.0f}, more than the {} a layer "
                                 "may have",
                                 count, key, width, scaled, graph_limits::max_features),
                     "lower model.width or the layer's size");
  }
  return std::max(1, static_cast<int>(scaled));
}

int read_int(const LayerSpec& spec, const char* key, int fallback) {
  auto it = spec.attributes.find(key);
  return it == spec.attributes.end() ? fallback : it->get<int>();
}

void read_pair(const LayerSpec& spec, const char* key, int fallback_h, int fallback_w, int& h,
               int& w) {
  auto it = spec.attributes.find(key);
  if (it == spec.attributes.end()) {
    h = fallback_h;
    w = fallback_w;
  } else if (it->is_array()) {
    h = (*it)[0].get<int>();
    w = (*it)[1].get<int>();
  } else {
    h = w = it->get<int>();
  }
}

void read_window(const LayerSpec& spec, DefaultStride default_stride, LayerAttrs& a) {
  read_pair(spec, "kernel", 1, 1, a.kernel_h, a.kernel_w);
  if (default_stride == DefaultStride::kernel) {
    read_pair(spec, "stride", a.kernel_h, a.kernel_w, a.stride_h, a.stride_w);
  } else {
    read_pair(spec, "stride", 1, 1, a.stride_h, a.stride_w);
  }
  read_pair(spec, "padding", 0, 0, a.pad_h, a.pad_w);
}

void read_weight_init(const LayerSpec& spec, LayerAttrs& a) {
  auto it = spec.attributes.find("init");
  if (it == spec.attributes.end()) return;
  if (auto init = it->is_string() ? weight_init_named(it->get<std::string>()) : std::nullopt) {
    a.init = *init;
    return;
  }
  SourceLocation at = spec.where;  // the schema lists the same names: a new one missing there
  at.path += ".init";
  std::vector<std::string_view> names;
  for (const auto& entry : kWeightInitNames) names.push_back(entry.second);
  throw_user_error(at, fmt::format("unknown init {}", it->dump()),
                   fmt::format("one of {}", fmt::join(names, ", ")));
}

ParamInit weight_param_init(const LayerAttrs& a) {
  return a.init == WeightInit::kaiming_normal ? ParamInit::kaiming_normal
                                              : ParamInit::fan_in_uniform;
}

void throw_shape_error(const Node& node, const std::string& problem) {
  SourceLocation at = node.where;
  throw_user_error(at, fmt::format("{} ({}): {}", node.name, node.type, problem));
}

void require_image(const Node& node, const Shape& in) {
  if (in.flat) {
    throw_shape_error(node, fmt::format("needs an image input (CxHxW), got the flat {}", in.str()));
  }
  if (in.tokens) {
    throw_shape_error(
        node, fmt::format("needs an image input (CxHxW), got the token sequence {}", in.str()));
  }
}

void require_tokens(const Node& node, const Shape& in) {
  if (in.tokens) return;
  throw_shape_error(node,
                    fmt::format("needs a token sequence (TxC tokens, after to_tokens), got {}",
                                in.flat ? "the flat " + in.str() : "the image " + in.str()));
}

Shape window_output(const Node& node, const Shape& in, int channels) {
  const LayerAttrs& a = node.attrs;
  require_image(node, in);
  // The extent a (dilated) kernel covers: d (k - 1) + 1, the kernel itself without dilation.
  const std::int64_t span_h = std::int64_t{a.dilation_h} * (a.kernel_h - 1) + 1;
  const std::int64_t span_w = std::int64_t{a.dilation_w} * (a.kernel_w - 1) + 1;
  const bool dilated = a.dilation_h > 1 || a.dilation_w > 1;
  const std::string kernel =
      dilated ? fmt::format("{}x{} (dilated to {}x{})", a.kernel_h, a.kernel_w, span_h, span_w)
              : fmt::format("{}x{}", a.kernel_h, a.kernel_w);
  if (a.pad_h * 2 > span_h || a.pad_w * 2 > span_w) {
    throw_shape_error(node, fmt::format("padding {}x{} is more than half the kernel {}", a.pad_h,
                                        a.pad_w, kernel));
  }
  if (in.h + 2 * a.pad_h < span_h || in.w + 2 * a.pad_w < span_w) {
    std::string padded =
        a.pad_h || a.pad_w ? fmt::format(" (padding {}x{})", a.pad_h, a.pad_w) : "";
    throw_shape_error(
        node, fmt::format("input {}{} is smaller than kernel {}", in.str(), padded, kernel));
  }
  return Shape{channels, static_cast<int>((in.h + 2 * a.pad_h - span_h) / a.stride_h + 1),
               static_cast<int>((in.w + 2 * a.pad_w - span_w) / a.stride_w + 1)};
}

std::string Shape::str() const {
  if (tokens) return fmt::format("{}x{} tokens", h, c);
  return flat ? fmt::format("{}", c) : fmt::format("{}x{}x{}", c, h, w);
}

std::int64_t ParamSpec::elements() const {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::int64_t ParamSpec::fan_out() const {
  std::int64_t n = dims.empty() ? 1 : dims[0];
  for (std::size_t k = 2; k < dims.size(); ++k) n *= dims[k];
  return n;
}

}  // namespace runner
