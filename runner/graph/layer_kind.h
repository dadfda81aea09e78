// The layer registry: each kind's attribute parser, shape rule, parameters and FLOPs.
// A kind is defined in its own file in layers/ with `RUNNER_LAYER_KIND(name) { ... }`; the build
// lists those lines (cmake/registry.cmake), so that file is all the registry needs.
#pragma once

#include <string>
#include <vector>

#include "runner/graph/graph.h"

namespace runner {

struct LayerKind {
  std::string type;  // set by the registry from the RUNNER_LAYER_KIND name
  int min_inputs = 1;
  int max_inputs = 1;
  // Whether an image's output depends on the other images of its batch (batch norm's batch
  // statistics in training): the backends then run a training batch whole, never in chunks
  // or padded to a larger size.
  bool batch_statistics = false;
  // Reads the kind's attributes; `width` multiplies channels or features (1 for the classifier).
  // None: the kind has no attributes.
  void (*parse)(const LayerSpec& spec, double width, LayerAttrs& attrs) = nullptr;
  // Settles attributes that follow the inputs' shapes, before infer_shape (conv2d's `groups:
  // depthwise` becomes the input channels). None: nothing to settle.
  void (*bind)(Node& node, const std::vector<Shape>& inputs) = nullptr;
  // The output shape, or a UserError naming the layer and the shapes involved. None: the
  // input's shape.
  Shape (*infer_shape)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
  // None: no parameters or buffers.
  std::vector<ParamSpec> (*params)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
  // None: one operation per output value.
  std::int64_t (*flops)(const Node& node, const std::vector<Shape>& inputs) = nullptr;
};

// Defines the layer kind `name` (the config's `type`): a function body returning its LayerKind.
#define RUNNER_LAYER_KIND(name) LayerKind layer_kind_##name()

const std::vector<LayerKind>& layer_kinds();
// Whether any node of `graph` is of a kind with batch_statistics.
bool uses_batch_statistics(const Graph& graph);
// The kind named `type`, or a UserError listing the known kinds with a suggestion.
const LayerKind& find_layer_kind(const std::string& type, const SourceLocation& where);

// Helpers shared by the kinds' files.
// max(1, round(spec[key] * width)); a product beyond max_features is a UserError naming the field.
int read_scaled_count(const LayerSpec& spec, const char* key, double width);
// Reads an int or [h, w] pair attribute; `fallback` when absent.
void read_pair(const LayerSpec& spec, const char* key, int fallback_h, int fallback_w, int& h,
               int& w);
int read_int(const LayerSpec& spec, const char* key, int fallback);
// Reads a weighted layer's own `init` into attrs.init (which arrives holding model.init).
void read_weight_init(const LayerSpec& spec, LayerAttrs& attrs);
// The ParamInit of a weight under attrs.init.
ParamInit weight_param_init(const LayerAttrs& attrs);
[[noreturn]] void throw_shape_error(const Node& node, const std::string& problem);
// A shape error unless `in` is an image (CxHxW): neither flat nor a token sequence.
void require_image(const Node& node, const Shape& in);
// A shape error unless `in` is a token sequence.
void require_tokens(const Node& node, const Shape& in);
// A sliding window's output: floor((in + 2 pad - d (kernel - 1) - 1) / stride) + 1 per axis
// (d the dilation), checked.
Shape window_output(const Node& node, const Shape& in, int channels);
// What a window's stride is when the config gives none: 1 (convolutions) or the kernel (pools).
enum class DefaultStride { one, kernel };
// Reads kernel, stride and padding into attrs.
void read_window(const LayerSpec& spec, DefaultStride default_stride, LayerAttrs& attrs);

}  // namespace runner
