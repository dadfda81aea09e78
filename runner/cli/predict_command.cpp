// `runner predict RUN_DIR|CHECKPOINT FILE_OR_DIR...`: label image files with a trained model,
// decoded and resized exactly as the run's data was (read from its report), top-k by name.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>

#include "backends/layer_support.h"
#include "runner/cli/commands.h"
#include "runner/cli/trained_run.h"
#include "runner/config/load_config.h"
#include "runner/data/dataset_format.h"
#include "runner/data/image_decode.h"
#include "runner/data/image_files.h"
#include "runner/data/image_fit.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/memory_estimate.h"
#include "runner/report/read_report.h"
#include "runner/train/checkpoint.h"
#include "runner/util/errors.h"
#include "runner/util/interrupt.h"
#include "runner/util/process_stats.h"
#include "runner/util/terminal_text.h"
#include "runner/util/utf8.h"

namespace runner {
namespace {

namespace fs = std::filesystem;

// Weights that are not finite answer every image with NaN: refused, naming the tensor.
void check_finite_weights(const Program& program, const fs::path& file) {
  for (const HostTensor& tensor : program.parameters()) {
    for (float value : tensor.values) {
      if (!std::isfinite(value)) {
        throw UserError(fmt::format(
            "{}: the weights are not finite ({} holds {}): they cannot predict anything",
            file.string(), tensor.name, value));
      }
    }
  }
}

// The files to label, in the order given; folders walked as image_folder walks them.
std::vector<fs::path> input_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const fs::path& input : inputs) {
    if (!fs::is_directory(input)) {
      files.push_back(input);  // a missing or undecodable file is reported when it is read
      continue;
    }
    const std::vector<fs::path> found = list_image_files(input);
    if (found.empty())
      std::cerr << fmt::format("warning: {}: no image files\n", terminal_safe(input.string()));
    for (const fs::path& file : found) files.push_back(input / file);
  }
  return files;
}

struct Prediction {
  int label = 0;
  double probability = 0;
};

// The top `k` of one image's logits, by softmax probability.
std::vector<Prediction> top_k(const float* logits, int classes, int k) {
  const float max = *std::max_element(logits, logits + classes);
  std::vector<double> p(static_cast<std::size_t>(classes));
  double sum = 0;
  for (int c = 0; c < classes; ++c) sum += p[c] = std::exp(double{logits[c]} - max);
  std::vector<int> order(static_cast<std::size_t>(classes));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
  std::vector<Prediction> top;
  for (int i = 0; i < std::min(k, classes); ++i) top.push_back({order[i], p[order[i]] / sum});
  return top;
}

class Predictor {
 public:
  Predictor(const PredictOptions& options, Shape input, std::vector<std::string> class_names,
            std::int64_t max_image_bytes, ImageFit fit)
      : options_(options),
        class_names_(std::move(class_names)),
        channels_(input.c),
        height_(input.h),
        width_(input.w),
        max_image_bytes_(max_image_bytes),
        fit_(fit) {}

  void run(const std::vector<fs::path>& files, Program& program, int batch_size) {
    const std::size_t batch = static_cast<std::size_t>(batch_size);
    for (std::size_t start = 0; start < files.size(); start += batch) {
      throw_if_interrupted("predicting");
      std::size_t end = std::min(files.size(), start + batch);
      predict_batch({files.begin() + start, files.begin() + end}, program);
    }
    if (options_.json) std::cout << json_.dump(2) << "\n";
  }
  int failures() const { return failures_; }

 private:
  void predict_batch(const std::vector<fs::path>& files, Program& program) {
    const std::size_t image_bytes = std::size_t(channels_) * height_ * width_;
    std::vector<std::uint8_t> images(files.size() * image_bytes);  // (N, C, H, W)
    std::vector<std::string> errors(files.size());                 // "" for a file that was decoded
    std::size_t decoded = 0;
    for (std::size_t f = 0; f < files.size(); ++f) {
      try {
        Image image = read_image(files[f], channels_, max_image_bytes_,
                                 draft_size(fit_, height_, width_));  // as its test images
        std::span<std::uint8_t> slot(images.data() + decoded * image_bytes, image_bytes);
        fit_image_into(image, fit_, height_, width_, slot);
        ++decoded;
      } catch (const std::exception& e) {
        ++failures_;
        errors[f] = e.what();
        // One line per file, as the predictions are: a line break in its name is shown as \n.
        std::cerr << "error: " << terminal_safe(e.what()) << "\n";
      }
    }
    const int classes = static_cast<int>(class_names_.size());
    std::vector<float> logits(decoded * classes);  // (N, classes)
    if (decoded > 0) program.predict(images.data(), static_cast<int>(decoded), logits.data());
    // In the files' order, failures among them (in the JSON; the text lists them on stderr).
    std::size_t next = 0;
    for (std::size_t f = 0; f < files.size(); ++f) {
      if (!errors[f].empty()) {
        if (options_.json) {
          json_.push_back({{"path", escaped_invalid_utf8(files[f].string())},
                           {"error", escaped_invalid_utf8(errors[f])}});
        }
        continue;
      }
      print(files[f], top_k(logits.data() + next++ * classes, classes, options_.top_k));
    }
  }

  void print(const fs::path& file, const std::vector<Prediction>& top) {
    if (options_.json) {
      nlohmann::json predictions = nlohmann::json::array();
      for (const Prediction& p : top) {
        predictions.push_back({{"class", escaped_invalid_utf8(class_names_[p.label])},
                               {"probability", p.probability}});
      }
      // JSON holds only UTF-8: a name that is not is written with its stray bytes as \xNN,
      // where it once made the whole list a type_error.
      json_.push_back(
          {{"path", escaped_invalid_utf8(file.string())}, {"predictions", predictions}});
      return;
    }
    // File and class names as a terminal can show them (a name may hold control characters).
    std::string line = terminal_safe(file.string()) + ":";
    for (const Prediction& p : top) {
      line +=
          fmt::format(" {} {:.1f} %", terminal_safe(class_names_[p.label]), 100 * p.probability);
      if (&p != &top.back()) line += ",";
    }
    std::cout << line << "\n" << std::flush;
  }

  const PredictOptions& options_;
  std::vector<std::string> class_names_;
  int channels_, height_, width_;  // of the model's input
  std::int64_t max_image_bytes_;   // the run's dataset.max_image_bytes
  ImageFit fit_;                   // its dataset.eval_transform, as its test images had
  nlohmann::json json_ = nlohmann::json::array();
  int failures_ = 0;
};

}  // namespace

// Images per forward pass: --batch-size, else the run's evaluation batch, never more than there
// are files (a report's eval_batch_size of a million allocates nothing for one image).
int predict_batch_size(const PredictOptions& options, const Experiment& experiment,
                       std::size_t files) {
  if (options.batch_size > 0) return options.batch_size;
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(experiment.training.eval_batch_size), files));
}

// The program compiled for predicting (its batches, and the training buffers every program
// holds) must fit in this machine's memory: said before the backend allocates and fails.
void check_predict_memory(const Experiment& experiment, const Graph& graph, bool batch_given,
                          const fs::path& report) {
  const TrainingSpec& t = experiment.training;
  const std::int64_t needed =
      estimate_training_memory(graph, t.batch_size, t.eval_batch_size, t.optimizer, t.precision,
                               memory_reuse_on(experiment.device))
          .total();
  const std::int64_t physical = physical_memory_bytes();
  if (physical <= 0 || needed <= physical) return;
  constexpr double kGiB = 1 << 30;
  throw UserError(fmt::format(
      "{}: predicting in batches of {} images ({}) needs about {:.1f} GiB of memory, more than "
      "this machine's {:.1f} GiB (lower --batch-size)",
      report.string(), t.eval_batch_size,
      batch_given ? "--batch-size" : "the report's config.training.eval_batch_size",
      static_cast<double>(needed) / kGiB, static_cast<double>(physical) / kGiB));
}

int predict_command(const PredictOptions& options) {
  TrainedModel model = open_trained_model(options.model);
  Session session;
  session.experiment = std::move(model.experiment);
  session.graph = std::move(model.graph);
  const TrainedRun& run = model.run;
  if (!options.device.empty()) {
    auto device = Device::parse(options.device);
    if (!device) {
      throw UserError(
          fmt::format("--device: found '{}', expected {}", options.device, kDeviceChoices));
    }
    session.experiment.device = *device;
  }
  const Experiment& experiment = session.experiment;
  ClassNames& classes = model.classes;
  check_layer_support(session.graph, experiment.device);
  std::vector<fs::path> files = input_files(options.files);
  if (files.empty()) throw UserError("no image files to predict");

  // One batch size for the whole program: predicting needs no training batch of its own.
  const int batch_size = predict_batch_size(options, experiment, files.size());
  session.experiment.training.batch_size = batch_size;
  session.experiment.training.eval_batch_size = batch_size;
  check_predict_memory(experiment, session.graph, options.batch_size > 0, run.report_path);
  Console quiet(true);         // stdout holds the predictions alone; warnings still go to stderr
  session.open_device(quiet);  // as `run` opens it: threads, layers, the precision
  auto program = session.compile();
  load_checkpoint(run.checkpoint, *program, CheckpointUse::weights);
  check_finite_weights(*program, run.checkpoint);
  std::cerr << fmt::format("weights: {}\n", terminal_safe(run.checkpoint.string()));

  Predictor predictor(options, session.graph.input, std::move(classes.names),
                      experiment.dataset.files.max_image_bytes, experiment.dataset.files.eval_fit);
  predictor.run(files, *program, batch_size);
  if (predictor.failures() > 0) {
    std::cerr << fmt::format("error: {} of {} files could not be read\n", predictor.failures(),
                             files.size());
    return 1;
  }
  return 0;
}

}  // namespace runner
