// `runner export RUN_DIR|CHECKPOINT --onnx FILE`: the trained network as an ONNX model that takes
// 0-255 pixels, normalises them as the run did, and gives the logits (and with --softmax the
// probabilities), with the class names and the run's identity in its metadata.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "runner/cli/commands.h"
#include "runner/cli/trained_run.h"
#include "runner/export/onnx_export.h"
#include "runner/report/environment.h"
#include "runner/train/safetensors.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/terminal_text.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// protobuf's limit on one message: larger models need ONNX's external data, not written here.
constexpr std::size_t kMaxModelBytes = (std::size_t{1} << 31) - 1;

// The checkpoint's tensors that `graph` has as parameters or buffers, by name (not the optimizer's
// state); weights that are not finite are refused, naming the tensor.
ExportWeights weights_of(const fs::path& file, const Graph& graph) {
  std::set<std::string> wanted;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& param : node.params) wanted.insert(param.name);
  }
  Checkpoint checkpoint = load_safetensors(file);
  ExportWeights weights;
  for (HostTensor& tensor : checkpoint.tensors) {
    if (!wanted.contains(tensor.name)) continue;
    for (float value : tensor.values) {
      if (!std::isfinite(value)) {
        throw UserError(
            fmt::format("{}: the weights are not finite ({} holds {}): there is no "
                        "model to export",
                        file.string(), tensor.name, value));
      }
    }
    weights[tensor.name] = ExportWeight{std::move(tensor.dims), std::move(tensor.values)};
  }
  return weights;
}

std::string too_large(double bytes) {
  return fmt::format(
      "the model is {:.1f} GiB, more than the 2 GiB a protobuf message may hold; ONNX's "
      "external data files would be needed, which export does not write",
      bytes / (1 << 30));
}

// --onnx must not name the run's own checkpoint or report, which the export would replace.
void refuse_run_files(const fs::path& onnx, const TrainedRun& run) {
  for (const fs::path& own : {run.checkpoint, run.report_path}) {
    std::error_code error;
    if (fs::equivalent(onnx, own, error)) {
      throw UserError(
          fmt::format("--onnx: {} is the run's {}; the model goes to a file of its "
                      "own (e.g. model.onnx)",
                      onnx.string(), own == run.checkpoint ? "checkpoint" : "report"));
    }
  }
}

// How the run fitted each test image to the input, for the metadata: what a user of the model
// does before handing it pixels.
std::string preprocessing_of(const Experiment& experiment, const Shape& input) {
  const ImageFit& fit = experiment.dataset.files.eval_fit;
  std::string steps;
  if (fit.shorter_side > 0) {
    steps = fmt::format("resize the shorter side to {}, ", fit.shorter_side);
  } else if (fit.resize_height > 0) {
    steps = fmt::format("resize to {}x{}, ", fit.resize_height, fit.resize_width);
  }
  if (fit.center_crop) steps += fmt::format("center-crop to {}x{}, ", input.h, input.w);
  return fmt::format(
      "{}resize to {}x{} if not that size (bilinear, antialiased as Pillow's), {} channel(s), "
      "values 0-255 as float, layout (N, C, H, W)",
      steps, input.h, input.w, input.c);
}

}  // namespace

int export_command(const ExportOptions& options) {
  if (fs::is_directory(options.onnx)) {
    throw UserError(
        fmt::format("--onnx: {} is a folder; expected the model file to write (e.g. "
                    "model.onnx)",
                    options.onnx.string()));
  }
  TrainedModel model = open_trained_model(options.model);
  refuse_run_files(options.onnx, model.run);
  // Four bytes a value, before anything is read: a model past protobuf's limit is refused now,
  // not after holding it several times over.
  if (model.graph.parameter_count() * 4 > static_cast<std::int64_t>(kMaxModelBytes)) {
    throw UserError(too_large(static_cast<double>(model.graph.parameter_count()) * 4));
  }
  const ExportWeights weights = weights_of(model.run.checkpoint, model.graph);
  const Experiment& experiment = model.experiment;
  const RunRecord& report = model.run.report;

  OnnxExportSpec spec;
  spec.name = report.name.value_or("runner_model");
  spec.normalize = experiment.dataset.normalize;
  spec.softmax = options.softmax;
  spec.batch = options.batch;
  spec.doc = fmt::format("{} exported by runner {} from {}", spec.name, runner_version(),
                         model.run.checkpoint.string());
  nlohmann::json normalization = {{"mean", spec.normalize.mean}, {"std", spec.normalize.std}};
  spec.metadata = {
      // Names that are not UTF-8 (a folder's bytes) with U+FFFD where JSON cannot hold them.
      {"class_names", nlohmann::json(model.classes.names)
                          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
      {"run_id", report.run_id.value_or("")},
      {"run_name", spec.name},
      {"report", fs::absolute(model.run.report_path).string()},
      {"checkpoint", fs::absolute(model.run.checkpoint).string()},
      {"trained_precision", std::string(precision_name(experiment.training.precision))},
      {"normalization", normalization.dump()},
      {"preprocessing", preprocessing_of(experiment, model.graph.input)},
      {"runner_version", runner_version()},
  };
  const std::string bytes = export_onnx(model.graph, weights, spec);
  if (bytes.size() > kMaxModelBytes) throw UserError(too_large(static_cast<double>(bytes.size())));
  write_file_atomically(options.onnx, bytes);
  const Shape& in = model.graph.input;
  const std::string batch = options.batch > 0 ? std::to_string(options.batch) : "batch";
  std::cout << fmt::format(
      "wrote {} ({:.2f} MB, ONNX opset 13): input pixels ({}, {}, {}, {}) 0-255, output "
      "logits ({}, {}){}\n",
      terminal_safe(options.onnx.string()), static_cast<double>(bytes.size()) / 1e6, batch, in.c,
      in.h, in.w, batch, model.graph.classes, options.softmax ? " and probabilities" : "");
  if (experiment.training.precision != Precision::fp32) {
    std::cerr << fmt::format(
        "note: the run computed in {}; the ONNX model computes in FP32 with the same weights, so "
        "its outputs may differ slightly from `runner predict`'s\n",
        precision_name(experiment.training.precision));
  }
  return 0;
}

}  // namespace runner
