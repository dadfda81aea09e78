// The layer registry: each kind's attribute parser, shape rule, parameters and FLOPs.
// Adding a kind means one file in layers/, one line in layer_kind.cpp, its schema fragment,
// its backend implementation and its tests.
#pragma once

#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner {

struct LayerKind {
  std::string type;
  int min_inputs = 1;
  int max_inputs = 1;
  // Reads the kind's attributes; `width` multiplies channels or features (1 for the classifier).
  void (*parse)(const LayerSpec& spec, double width, LayerAttrs& attrs) = nullptr;
  // The output shape, or a UserError naming the layer and the shapes involved.
  Shape (*infer_shape)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
  std::vector<ParamSpec> (*params)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
  std::int64_t (*flops)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
};

const std::vector<LayerKind>& layer_kinds();
// The kind named `type`, or a UserError listing the known kinds with a suggestion.
const LayerKind& find_layer_kind(const std::string& type, const SourceLocation& where);

// Helpers shared by the kinds' files.
// max(1, round(spec[key] * width)); a product beyond max_features is a UserError naming the field.
int read_scaled_count(const LayerSpec& spec, const char* key, double width);
// Reads an int or [h, w] pair attribute; `fallback` when absent.
void read_pair(const LayerSpec& spec, const char* key, int fallback_h, int fallback_w, int& h,
               int& w);
int read_int(const LayerSpec& spec, const char* key, int fallback);
[[noreturn]] void throw_shape_error(const Node& node, const std::string& problem);
// A sliding window's output: floor((in + 2 pad - kernel) / stride) + 1 per axis, checked.
Shape window_output(const Node& node, const Shape& in, int channels);
// What a window's stride is when the config gives none: 1 (convolutions) or the kernel (pools).
enum class DefaultStride { one, kernel };
// Reads kernel, stride and padding into attrs.
void read_window(const LayerSpec& spec, DefaultStride default_stride, LayerAttrs& attrs);

// The kinds, one per file in layers/.
LayerKind conv2d_kind();
LayerKind max_pool2d_kind();
LayerKind avg_pool2d_kind();
LayerKind relu_kind();
LayerKind flatten_kind();
LayerKind linear_kind();
LayerKind add_kind();

}  // namespace runner
