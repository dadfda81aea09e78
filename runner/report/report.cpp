// Report pieces and the run folder.
#include "runner/report/report.h"

#include <fmt/format.h>

#include <ctime>

#include "runner/train/step_times.h"
#include "runner/util/files.h"
#include "runner/util/folders.h"

namespace runner {

nlohmann::json model_json(const Graph& graph) {
  nlohmann::json layers = nlohmann::json::array();
  for (const Node& node : graph.nodes) {
    std::int64_t params = 0;
    for (const auto& p : node.params) params += p.elements();
    layers.push_back({{"name", node.name},
                      {"type", node.type},
                      {"output_shape", node.output.str()},
                      {"parameters", params},
                      {"flops_per_image", node.flops}});
  }
  return {{"input_shape", graph.input.str()},
          {"classes", graph.classes},
          {"parameters", graph.parameter_count()},
          {"flops_per_image", graph.flops_per_sample()},
          {"layers", layers}};
}

// The optional figures of an epoch, present when the run has the set they come from.
void add_if_set(nlohmann::json& out, const char* key, const std::optional<double>& value) {
  if (value) out[key] = *value;
}

nlohmann::json epochs_json(const std::vector<EpochRecord>& epochs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : epochs) {
    nlohmann::json epoch = {{"epoch", e.epoch}, {"train_loss", e.train_loss}};
    add_if_set(epoch, "test_loss", e.test_loss);
    add_if_set(epoch, "test_accuracy", e.test_accuracy);
    add_if_set(epoch, "val_loss", e.val_loss);
    add_if_set(epoch, "val_accuracy", e.val_accuracy);
    epoch["seconds"] = e.seconds;
    epoch["images_per_second"] = e.images_per_second;
    epoch["learning_rate"] = e.learning_rate;
    if (e.grad_norm_mean >= 0) epoch["grad_norm_mean"] = e.grad_norm_mean;
    if (e.momentum) epoch["momentum"] = *e.momentum;
    out.push_back(std::move(epoch));
  }
  return out;
}

nlohmann::json confusion_json(const Evaluation& evaluation, std::size_t classes) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t t = 0; t < classes; ++t) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t p = 0; p < classes; ++p) {
      const std::size_t at = t * classes + p;
      row.push_back(at < evaluation.confusion.size() ? evaluation.confusion[at] : 0);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json metrics_json(const Evaluation& evaluation,
                            const std::vector<std::string>& class_names) {
  nlohmann::json per_class = nlohmann::json::object();
  for (std::size_t k = 0; k < class_names.size() && k < evaluation.class_total.size(); ++k) {
    const int i = static_cast<int>(k);
    per_class[class_names[k]] =
        evaluation.has_images(i) ? nlohmann::json(evaluation.class_accuracy(i)) : nlohmann::json();
  }
  return {{"test_accuracy", evaluation.accuracy()},
          {"test_loss", evaluation.loss},
          {"test_images", evaluation.count},
          {"per_class_accuracy", per_class},
          {"classes", class_names},
          {"confusion_matrix", confusion_json(evaluation, class_names.size())}};
}

std::string class_accuracy_text(const Evaluation& evaluation, int k) {
  if (!evaluation.has_images(k)) return "n/a";
  return fmt::format("{:.1f} %", 100 * evaluation.class_accuracy(k));
}

nlohmann::json validation_metrics_json(const Evaluation& validation) {
  return {{"val_accuracy", validation.accuracy()},
          {"val_loss", validation.loss},
          {"val_images", validation.count}};
}

nlohmann::json throughput_json(const TrainingOutcome& outcome, std::int64_t flops_per_image) {
  double wait = outcome.data_wait_seconds;
  // Training runs forward and backward: about three times the forward FLOPs.
  double achieved = outcome.train_images_per_second * 3.0 * static_cast<double>(flops_per_image);
  // whole_run_images_per_second names what train_images_per_second (kept for older readers)
  // measures: every image after the warm-up over the wall time of those steps, stalls included.
  return {{"train_images_per_second", outcome.train_images_per_second},
          {"whole_run_images_per_second", outcome.train_images_per_second},
          {"steps", outcome.steps},
          {"warmup_steps", outcome.warmup_steps},
          {"train_seconds", outcome.train_seconds},
          {"data_wait_seconds", wait},
          {"compute_seconds", std::max(0.0, outcome.train_seconds - wait)},
          {"data_wait_fraction", outcome.train_seconds > 0 ? wait / outcome.train_seconds : 0.0},
          {"loader_workers", outcome.loader_workers},
          {"achieved_flops_per_second", achieved}};
}

nlohmann::json step_time_json(const TrainingOutcome& outcome, int batch_size) {
  StepTimeSummary s = summarize_step_times(outcome.step_seconds);
  double median_step = s.median > 0 ? batch_size / s.median : 0.0;
  // images_per_second is kept for older readers; median_step_images_per_second names it.
  return {{"steps", s.count},
          {"median_seconds", s.median},
          {"p10_seconds", s.p10},
          {"p90_seconds", s.p90},
          {"mean_seconds", s.mean},
          {"images_per_second", median_step},
          {"median_step_images_per_second", median_step}};
}

nlohmann::json cpu_json(const TrainingOutcome& outcome, int threads) {
  double ratio =
      outcome.cpu_wall_seconds > 0 ? outcome.cpu_seconds / outcome.cpu_wall_seconds : 0.0;
  return {{"process_cpu_seconds", outcome.cpu_seconds},
          {"wall_seconds", outcome.cpu_wall_seconds},
          {"cpu_time_over_wall", ratio},
          {"threads", threads},
          {"utilisation", ratio / std::max(1, threads)}};
}

nlohmann::json memory_estimate_json(const MemoryEstimate& e) {
  return {{"parameters", e.parameters},
          {"gradients", e.gradients},
          {"optimizer_state", e.optimizer_state},
          {"activations", e.activations},
          {"activation_gradients", e.activation_gradients},
          {"workspaces", e.workspaces},
          {"evaluation", e.evaluation},
          {"total", e.total()}};
}

nlohmann::json gpu_json(const ProgramFacts& facts, const DeviceUtilization* utilisation) {
  if (facts.device_memory_bytes < 0) return nullptr;
  nlohmann::json gpu = {{"algorithms", facts.algorithms},
                        {"device_memory_bytes", facts.device_memory_bytes},
                        {"training_set_on_device", facts.training_set_on_device}};
  if (!facts.cuda_graph_fallback.empty()) gpu["cuda_graph_fallback"] = facts.cuda_graph_fallback;
  if (facts.loss_scale > 0) {
    gpu["loss_scaling"] = {{"final_scale", facts.loss_scale},
                           {"skipped_steps", facts.skipped_steps}};
  }
  if (utilisation && utilisation->available) {
    const DeviceUtilization& u = *utilisation;
    gpu["utilisation"] = {{"samples", u.samples},
                          {"mean_gpu_percent", u.mean_gpu_percent},
                          {"peak_gpu_percent", u.peak_gpu_percent},
                          {"peak_memory_used_bytes", u.peak_memory_used_bytes},
                          {"mean_sm_clock_mhz", u.mean_sm_clock_mhz},
                          {"mean_power_watts", u.mean_power_watts},
                          {"peak_power_watts", u.peak_power_watts}};
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

std::filesystem::path write_report(const std::filesystem::path& dir, const nlohmann::json& report) {
  auto path = dir / "report.json";
  write_json_atomically(path, report);
  return path;
}

}  // namespace runner
