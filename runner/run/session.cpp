// Shared set-up of the commands that run a model.
#include "runner/run/session.h"

#include <fmt/format.h>

#include "backends/layer_support.h"
#include "runner/config/load_config.h"
#include "runner/data/dataset_size.h"
#include "runner/data/fingerprint.h"
#include "runner/data/split_sizes.h"
#include "runner/data/validation_split.h"
#include "runner/graph/dataset_geometry.h"
#include "runner/graph/training_batches.h"
#include "runner/run/data_fit_check.h"
#include "runner/run/host_memory_check.h"
#include "runner/run/layer_table.h"
#include "runner/run/loss_weights.h"
#include "runner/run/metrics_check.h"
#include "runner/run/precision_check.h"
#include "runner/run/precision_timing.h"
#include "runner/util/process_stats.h"
#include "runner/util/threads.h"

namespace runner {

namespace {

// Data larger than the memory the process may have (a ulimit, a container) fails to allocate:
// say how much it needs instead of a bare std::bad_alloc.
DatasetSplits load_dataset_or_say_its_size(const Experiment& experiment) {
  try {
    return load_dataset(experiment.dataset);
  } catch (const std::bad_alloc&) {
    const std::int64_t bytes = planned_dataset_records(experiment.dataset).bytes();
    throw UserError(fmt::format(
        "{}: out of memory loading the {} dataset, which needs about {} bytes ({:.1f} GiB) "
        "(lower dataset.train_limit, dataset.test_limit or the synthetic sizes, or allow the "
        "process more memory)",
        experiment.source_file, experiment.dataset.name, bytes,
        static_cast<double>(bytes) / (1ll << 30)));
  }
}

}  // namespace

Session Session::prepare(const SessionOptions& options, Console& console) {
  Session session;
  session.experiment = load_experiment(options.config, options.overrides);
  DatasetGeometry geometry = dataset_geometry(session.experiment.dataset);
  session.graph = build_graph(session.experiment.model, geometry);
  // The training images as the files' headers (or the official sizes) say; checked again with
  // the images loaded.
  check_training_batches(session.graph, session.experiment.training.batch_size,
                         planned_dataset_records(session.experiment.dataset).train);
  check_layer_support(session.graph, session.experiment.device);
  check_class_weights(session.experiment, session.graph);
  check_host_memory(session.experiment, session.graph, physical_memory_bytes());
  console.line(fmt::format("config: {} (valid), experiment '{}', seed {}", options.config.string(),
                           session.experiment.name, session.experiment.seed));
  for (const std::string& warning : metrics_warnings(session.experiment, session.graph)) {
    console.warning(warning);
  }
  return session;
}

void Session::open(Console& console) {
  open_device(console);
  data = load_dataset_or_say_its_size(experiment);
  open_data(console);
}

void Session::open_device(Console& console) {
  std::string note;
  backend = make_backend(experiment.device, &note);
  if (!note.empty()) console.line(note);
  threads = resolve_threads(experiment.training.threads);
  check_threads_can_start(threads, experiment.training.threads);
  device = backend->info();
  // What ran, in the report's environment (reproduce reads it): the config turned them off.
  if (!experiment.backend.own_kernels && device.details.contains("own_kernels")) {
    device.details["own_kernels"] = "none (backend.own_kernels: false)";
  }
  check_backend_layer_support(graph, device.backend);  // auto may have chosen the GPU
  if (std::string warning = check_precision(experiment, device); !warning.empty()) {
    console.warning(warning);
  }
  console.line(fmt::format("device: {} ({}), backend {}, {} threads, {}", device.device,
                           device.name, device.backend, threads,
                           experiment.training.fastest_precision
                               ? std::string_view("precision fastest")
                               : precision_name(experiment.training.precision)));
}

void Session::open_data(Console& console) {
  hold_out_validation(data, experiment.dataset.validation_split, experiment.seed,
                      {experiment.source_file, "dataset.validation_split"});
  check_data_fits_model(data, graph);
  std::string weighting_note;
  loss_weighting = runner::loss_weighting(experiment, data.train, weighting_note);
  if (!weighting_note.empty()) console.warning(weighting_note);
  if (!experiment.training.loss_options.plain()) {
    console.line(loss_text(experiment, loss_weighting, data.train.class_names));
  }
  check_training_batches(graph, experiment.training.batch_size,
                         static_cast<std::int64_t>(data.train.size()));
  auto files = fingerprint_files(data.files, data.warnings);
  check_known_dataset(experiment.dataset, files);
  data_fingerprint = data_json(experiment.dataset, files);
  data_fingerprint.update(split_sizes_json(data));
  // In label order, so that `runner predict` names classes without the dataset at hand.
  data_fingerprint["class_names"] = data.train.class_names;
  // The training loss's weight per class, as trained with (balanced: from this split's labels).
  if (!loss_weighting.class_weights.empty()) {
    data_fingerprint["class_weights"] = loss_weighting.class_weights;
  }
  if (!data.digest.empty()) {  // a format of many files digests them itself
    data_fingerprint["sha256"] = data.digest;
    data_fingerprint["splits"] = data.summary;
  }
  for (const std::string& warning : data.warnings) console.warning(warning);
  console.line(fmt::format("data: {}, {} of {}", experiment.dataset.name, split_sizes_text(data),
                           graph.input.str()));
}

CompileOptions Session::compile_options() const {
  CompileOptions options;
  options.train_batch = experiment.training.batch_size;
  options.eval_batch = experiment.training.eval_batch_size;
  options.optimizer = experiment.training.optimizer;
  options.clip_grad_norm = experiment.training.clip_grad_norm;
  options.label_smoothing = experiment.training.label_smoothing;
  options.loss_weighting = loss_weighting;
  options.normalize = experiment.dataset.normalize;
  options.threads = threads;
  options.precision = experiment.training.precision;
  options.seed = experiment.seed;
  options.deterministic = experiment.backend.deterministic;
  options.cuda_graph = experiment.backend.cuda_graph;
  options.own_kernels = experiment.backend.own_kernels;
  options.winograd = experiment.backend.winograd;
  options.dataset_on_device = experiment.backend.dataset_on_device;
  return options;
}

void Session::choose_precision(Console& console, std::optional<Precision> replayed) {
  if (!experiment.training.fastest_precision) return;
  PrecisionChoice choice;
  if (replayed) {
    choice.chosen = *replayed;
    choice.replayed = true;
  } else {
    choice.times = time_training_steps(*backend, graph, compile_options(),
                                       fastest_candidates(device), kFastestTimedSteps);
    choice.chosen = fastest_of(choice.times);
  }
  experiment.training.precision = choice.chosen;
  console.line(precision_choice_line(choice));
  precision_choice = std::move(choice);
}

void Session::warn_if_precision_is_slower(Console& console) const {
  const Precision asked = experiment.training.precision;
  if (asked == Precision::fp32 || experiment.training.fastest_precision) return;
  const std::vector<PrecisionStepTime> times =
      time_training_steps(*backend, graph, compile_options(), {asked, Precision::fp32});
  if (std::string warning = slower_precision_warning(asked, times, device.device);
      !warning.empty()) {
    console.warning(warning);
  }
}

std::unique_ptr<Program> Session::compile(int compute_threads) const {
  CompileOptions options = compile_options();
  options.threads = compute_threads;
  auto program = backend->compile(graph, options);
  program->load_parameters(initial_parameters(graph, experiment.seed));
  return program;
}

}  // namespace runner
