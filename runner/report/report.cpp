// Report pieces and the run folder.
#include "runner/report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>

#include "runner/config/resolved_json.h"
#include "runner/train/step_times.h"
#include "runner/util/files.h"
#include "runner/util/folders.h"

namespace runner {

RecordModel model_record(const Graph& graph, const ModelSpec& spec) {
  std::vector<RecordLayer> layers;
  for (const Node& node : graph.nodes) {
    std::int64_t params = 0;
    for (const auto& p : node.params) params += p.elements();
    layers.push_back({node.name, node.type, node.output.str(), params, node.flops, {}});
  }
  RecordModel model;
  model.input_shape = graph.input.str();
  model.classes = graph.classes;
  model.parameters = graph.parameter_count();
  model.flops_per_image = graph.flops_per_sample();
  model.layers = std::move(layers);
  if (spec.uses_blocks()) model.expanded_layers = plain_layers_json(spec);
  return model;
}

std::vector<RecordEpoch> epoch_records(const std::vector<EpochRecord>& epochs) {
  std::vector<RecordEpoch> out;
  for (const auto& e : epochs) {
    RecordEpoch epoch;
    epoch.epoch = e.epoch;
    epoch.train_loss = e.train_loss;
    // The optional figures: present when the run has the set they come from.
    epoch.test_loss = e.test_loss;
    epoch.test_accuracy = e.test_accuracy;
    epoch.val_loss = e.val_loss;
    epoch.val_accuracy = e.val_accuracy;
    epoch.seconds = e.seconds;
    epoch.images_per_second = e.images_per_second;
    epoch.learning_rate = e.learning_rate;
    if (e.grad_norm_mean >= 0) epoch.grad_norm_mean = e.grad_norm_mean;
    epoch.momentum = e.momentum;
    epoch.figures = e.figures;
    out.push_back(std::move(epoch));
  }
  return out;
}

std::vector<std::vector<std::int64_t>> confusion_rows(const Evaluation& evaluation,
                                                      std::size_t classes) {
  std::vector<std::vector<std::int64_t>> rows;
  for (std::size_t t = 0; t < classes; ++t) {
    std::vector<std::int64_t> row;
    for (std::size_t p = 0; p < classes; ++p) {
      row.push_back(evaluation.confused(static_cast<int>(t), static_cast<int>(p)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The most frequent mistakes, most images first (ties: by true, then predicted class).
std::vector<RecordConfusionPair> most_confused_pairs(const Evaluation& evaluation,
                                                     const std::vector<std::string>& names) {
  std::vector<std::pair<std::pair<int, int>, std::int64_t>> mistakes;
  for (const auto& [pair, images] : evaluation.confusion) {
    const auto [truth, predicted] = pair;
    const bool named = static_cast<std::size_t>(std::max(truth, predicted)) < names.size();
    if (truth != predicted && named) mistakes.emplace_back(pair, images);
  }
  const std::size_t kept = std::min(mistakes.size(), kConfusionPairs);
  std::partial_sort(mistakes.begin(), mistakes.begin() + kept, mistakes.end(),
                    [](const auto& a, const auto& b) {
                      return a.second > b.second || (a.second == b.second && a.first < b.first);
                    });
  std::vector<RecordConfusionPair> pairs;
  for (std::size_t i = 0; i < kept; ++i) {
    const auto [truth, predicted] = mistakes[i].first;
    pairs.push_back({names[truth], names[predicted], mistakes[i].second, {}});
  }
  return pairs;
}

namespace {

// The `metrics` list's figures of a set into `metrics`, and its per-class table where one asks.
void add_metric_figures(RecordMetrics& metrics, const Evaluation& set, std::string_view prefix,
                        const std::vector<std::string>& class_names,
                        const std::vector<MetricSpec>& metric_specs) {
  for (auto& [name, value] : set_figures(metric_specs, set, prefix)) metrics.figures[name] = value;
  for (const MetricSpec& spec : metric_specs) {
    const MetricKind* kind = find_metric_kind(spec.kind);
    if (!kind || !kind->per_class) continue;
    (prefix == "val_" ? metrics.val_per_class_precision_recall
                      : metrics.per_class_precision_recall) = kind->per_class(set, class_names);
  }
}

}  // namespace

RecordMetrics metrics_record(const Evaluation& evaluation,
                             const std::vector<std::string>& class_names,
                             const std::vector<MetricSpec>& metric_specs) {
  // Sorted by name, as the report's object writes them.
  std::map<std::string, std::optional<double>> by_name;
  for (std::size_t k = 0; k < class_names.size() && k < evaluation.class_total.size(); ++k) {
    const int i = static_cast<int>(k);
    by_name[class_names[k]] =
        evaluation.has_images(i) ? std::optional(evaluation.class_accuracy(i)) : std::nullopt;
  }
  std::vector<RecordClassAccuracy> per_class;
  for (const auto& [name, accuracy] : by_name) per_class.push_back({name, accuracy});
  RecordMetrics metrics;
  metrics.test_accuracy = evaluation.accuracy();
  metrics.test_loss = evaluation.loss;
  metrics.test_images = evaluation.count;
  metrics.per_class_accuracy = std::move(per_class);
  metrics.classes = class_names;
  if (class_names.size() <= kConfusionMatrixClasses) {
    metrics.confusion_matrix = confusion_rows(evaluation, class_names.size());
  } else {
    metrics.confusion_pairs = most_confused_pairs(evaluation, class_names);
    metrics.confusion_matrix_omitted = fmt::format(
        "{} classes: the matrix is written up to {}; confusion_pairs holds the {} most frequent "
        "mistakes",
        class_names.size(), kConfusionMatrixClasses, kConfusionPairs);
  }
  add_metric_figures(metrics, evaluation, "test_", class_names, metric_specs);
  return metrics;
}

std::string class_accuracy_text(const Evaluation& evaluation, int k) {
  if (!evaluation.has_images(k)) return "n/a";
  return fmt::format("{:.1f} %", 100 * evaluation.class_accuracy(k));
}

void add_validation_metrics(RecordMetrics& metrics, const Evaluation& validation,
                            const std::vector<std::string>& class_names,
                            const std::vector<MetricSpec>& metric_specs) {
  metrics.val_accuracy = validation.accuracy();
  metrics.val_loss = validation.loss;
  metrics.val_images = validation.count;
  add_metric_figures(metrics, validation, "val_", class_names, metric_specs);
}

RecordThroughput throughput_record(const TrainingOutcome& outcome, std::int64_t flops_per_image,
                                   const RecordStepTime& step_time) {
  const double wait = outcome.data_wait_seconds;
  RecordThroughput t;
  // whole_run_images_per_second names what train_images_per_second (kept for older readers)
  // measures: every image after the warm-up over the wall time of those steps, stalls included.
  t.train_images_per_second = outcome.train_images_per_second;
  t.whole_run_images_per_second = outcome.train_images_per_second;
  t.steps = outcome.steps;
  t.warmup_steps = outcome.warmup_steps;
  t.train_seconds = outcome.train_seconds;
  t.data_wait_seconds = wait;
  t.compute_seconds = std::max(0.0, outcome.train_seconds - wait);
  t.data_wait_fraction = outcome.train_seconds > 0 ? wait / outcome.train_seconds : 0.0;
  const double steps = static_cast<double>(step_time.steps.value_or(0));
  const double in_steps = step_time.mean_seconds.value_or(0) * steps;
  t.timed_seconds = outcome.timed_seconds;
  // Negative when the steps off the median were mostly faster (a median above the mean).
  t.off_median_seconds = in_steps - step_time.median_seconds.value_or(0) * steps;
  t.other_seconds = std::max(0.0, outcome.timed_seconds - in_steps);
  t.loader_workers = outcome.loader_workers;
  // Training runs forward and backward: about three times the forward FLOPs.
  t.achieved_flops_per_second =
      outcome.train_images_per_second * 3.0 * static_cast<double>(flops_per_image);
  return t;
}

RecordStepTime step_time_record(const TrainingOutcome& outcome, int batch_size) {
  const StepTimeSummary s = summarize_step_times(outcome.step_seconds);
  const double median_step = s.median > 0 ? batch_size / s.median : 0.0;
  RecordStepTime t;
  t.steps = s.count;
  t.median_seconds = s.median;
  t.p10_seconds = s.p10;
  t.p90_seconds = s.p90;
  t.mean_seconds = s.mean;
  // images_per_second is kept for older readers; median_step_images_per_second names it.
  t.images_per_second = median_step;
  t.median_step_images_per_second = median_step;
  return t;
}

RecordCpu cpu_record(const TrainingOutcome& outcome, const StepThreads& threads) {
  const double ratio =
      outcome.cpu_wall_seconds > 0 ? outcome.cpu_seconds / outcome.cpu_wall_seconds : 0.0;
  RecordCpu cpu;
  cpu.process_cpu_seconds = outcome.cpu_seconds;
  cpu.wall_seconds = outcome.cpu_wall_seconds;
  cpu.cpu_time_over_wall = ratio;
  cpu.threads = threads.first();
  cpu.utilisation = ratio / std::max(1, threads.first());
  cpu.threads_policy = std::string(name_in(kThreadPolicyNames, threads.policy()));
  std::vector<RecordThreadChange> changes;
  for (const ThreadChange& c : threads.changes()) {
    changes.push_back({c.step, c.threads, c.free_cores, {}});
  }
  cpu.thread_changes = std::move(changes);
  return cpu;
}

std::string threads_text(const RecordCpu& cpu) {
  std::string text = cpu.threads ? std::to_string(*cpu.threads) : "?";
  const auto changes = cpu.thread_changes.value_or(std::vector<RecordThreadChange>{});
  if (changes.empty()) return text;
  std::string steps;
  for (const RecordThreadChange& c : changes) {
    steps += fmt::format("{}{} from step {}", steps.empty() ? "" : ", ",
                         c.threads ? std::to_string(*c.threads) : "?",
                         c.step ? std::to_string(*c.step) : "?");
  }
  return fmt::format("{} ({} to the machine's load: {})", text,
                     cpu.threads_policy.value_or("fitted"), steps);
}

std::map<std::string, std::int64_t> memory_estimate_record(const MemoryEstimate& e) {
  return {{"parameters", e.parameters},
          {"gradients", e.gradients},
          {"optimizer_state", e.optimizer_state},
          {"activations", e.activations},
          {"activation_gradients", e.activation_gradients},
          {"workspaces", e.workspaces},
          {"evaluation", e.evaluation},
          {"total", e.total()}};
}

std::optional<RecordGpu> gpu_record(const ProgramFacts& facts,
                                    const DeviceUtilization* utilisation) {
  if (facts.device_memory_bytes < 0) return std::nullopt;
  RecordGpu gpu;
  gpu.algorithms = facts.algorithms;
  gpu.device_memory_bytes = facts.device_memory_bytes;
  gpu.training_set_on_device = facts.training_set_on_device;
  if (!facts.cuda_graph_fallback.empty()) gpu.cuda_graph_fallback = facts.cuda_graph_fallback;
  if (facts.loss_scale > 0)
    gpu.loss_scaling = RecordLossScaling{facts.loss_scale, facts.skipped_steps, {}};
  if (utilisation && utilisation->available) {
    const DeviceUtilization& u = *utilisation;
    gpu.utilisation =
        RecordGpuUtilisation{u.samples,           u.mean_gpu_percent,
                             u.peak_gpu_percent,  static_cast<double>(u.peak_memory_used_bytes),
                             u.mean_sm_clock_mhz, u.mean_power_watts,
                             u.peak_power_watts,  {}};
  }
  return gpu;
}

std::filesystem::path new_run_directory(const std::filesystem::path& root, const std::string& name,
                                        const std::string& config_sha256) {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  std::string id = fmt::format("{}-{}", stamp, config_sha256.substr(0, 8));
  create_folders(root / name, "the runs' folder (check --output)");
  // Claimed with mkdir, not checked then created: two runs of one config started in the same
  // second would otherwise share a folder and overwrite each other's report.
  std::filesystem::path dir = root / name / id;
  for (int n = 2; !create_new_folder(dir, "the run's folder"); ++n)
    dir = root / name / fmt::format("{}-{}", id, n);
  return dir;
}

std::filesystem::path write_report(const std::filesystem::path& dir, const RunRecord& report) {
  auto path = dir / "report.json";
  write_json_atomically(path, run_record_json(report));
  return path;
}

}  // namespace runner
