// Experiment → JSON, only the keys that apply to the chosen dataset and optimizer.
#include "runner/config/resolved_json.h"

#include <fmt/format.h>

#include <string>

#include "runner/data/augmentation.h"
#include "runner/data/dataset_format.h"

namespace runner {
namespace {

// 0.4914f as 0.4914, not 0.49140000343322754: the shortest text that reads back as the float.
nlohmann::json floats(const std::vector<float>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (float value : values) out.push_back(std::stod(fmt::format("{}", value)));
  return out;
}

// Written only when asked for, so configs without it resolve as before; each step with every
// default written out.
nlohmann::json augment_json(const DatasetSpec& d) {
  nlohmann::json steps = nlohmann::json::array();
  for (const AugmentStep& step : d.augment) steps.push_back({{step.kind, step.op->settings()}});
  return steps;
}

nlohmann::json dataset_json(const DatasetSpec& d) {
  nlohmann::json out = {{"name", d.name}};
  if (!d.root.empty()) out["root"] = d.root;
  out["download"] = d.download;
  out["normalize"] = {{"mean", floats(d.normalize.mean)}, {"std", floats(d.normalize.std)}};
  out["shuffle"] = d.shuffle;
  if (d.balanced_sampler) out["sampler"] = "balanced";  // only when given: hashes stay
  out["workers"] = d.workers ? nlohmann::json(*d.workers) : nlohmann::json("auto");
  out["train_limit"] = d.train_limit;
  out["test_limit"] = d.test_limit;
  if (d.validation_split > 0) out["validation_split"] = d.validation_split;  // old hashes kept
  format_of(d).write(d, out);
  if (!d.augment.empty()) out["augment"] = augment_json(d);
  return out;
}

nlohmann::json optimizer_json(const OptimizerSpec& o) {
  nlohmann::json out = {
      {"type", optimizer_type_name(o.type)}, {"lr", o.lr}, {"weight_decay", o.weight_decay}};
  nlohmann::json exclude = nlohmann::json::array();
  if (o.decay_exclude_bias) exclude.push_back("bias");
  if (o.decay_exclude_norm) exclude.push_back("norm");
  if (o.decay_exclude_embedding) exclude.push_back("embedding");
  out["weight_decay_exclude"] = exclude;
  if (o.adam_family()) {
    out["beta1"] = o.beta1;
    out["beta2"] = o.beta2;
    out["eps"] = o.eps;
  } else {
    out["momentum"] = o.momentum;
    out["dampening"] = o.dampening;
    out["nesterov"] = o.nesterov;
  }
  return out;
}

// Only the fields of its type; the warm-up only when there is one.
nlohmann::json schedule_json(const ScheduleSpec& s) {
  nlohmann::json out = {{"type", schedule_type_name(s.type)}};
  switch (s.type) {
    case ScheduleType::constant:
      break;
    case ScheduleType::step:
      out["step_size"] = s.step_size;
      out["gamma"] = s.gamma;
      break;
    case ScheduleType::multistep:
      out["milestones"] = s.milestones;
      out["gamma"] = s.gamma;
      break;
    case ScheduleType::cosine:
      out["min_lr"] = s.min_lr;
      break;
    case ScheduleType::one_cycle:
      out["pct_start"] = s.pct_start;
      out["div_factor"] = s.div_factor;
      out["final_div_factor"] = s.final_div_factor;
      if (s.cycle_momentum) {  // absent otherwise: the configs written before it keep their hash
        out["cycle_momentum"] = true;
        out["base_momentum"] = s.base_momentum;
        out["max_momentum"] = s.max_momentum;
      }
      break;
  }
  if (s.warmup_epochs > 0) {
    out["warmup"] = {{"epochs", s.warmup_epochs}, {"start_factor", s.warmup_start_factor}};
  }
  return out;
}

// The plain loss as its name, as before the options existed (configs keep their hash).
nlohmann::json loss_json(const LossSpec& loss) {
  if (loss.plain()) return "cross_entropy";
  nlohmann::json out = nlohmann::json::object();
  if (loss.balanced) out["class_weights"] = "balanced";
  if (!loss.class_weights.empty()) out["class_weights"] = loss.class_weights;
  if (loss.focal_gamma != 0) out["focal_gamma"] = loss.focal_gamma;
  return out;
}

nlohmann::json monitor_json(const MonitorSpec& m) {
  return {{"monitor", monitor_name(m.monitor)}, {"mode", monitor_mode_name(m.mode)}};
}

// The selection keys only when given: configs without them keep the hash they had before.
void add_selection(nlohmann::json& out, const Experiment& e) {
  const EarlyStoppingSpec& stop = e.training.early_stopping;
  if (stop.enabled) {
    nlohmann::json block = monitor_json(stop.watch);
    block["patience"] = stop.patience;
    block["min_delta"] = stop.min_delta;
    out["training"]["early_stopping"] = block;
  }
  if (e.checkpoint.monitor) out["checkpoint"].update(monitor_json(*e.checkpoint.monitor));
}

}  // namespace

nlohmann::json plain_layers_json(const ModelSpec& model) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerSpec& layer : model.layers) {
    nlohmann::json item =
        layer.attributes.is_object() ? layer.attributes : nlohmann::json::object();
    item["name"] = layer.name;
    item["type"] = layer.type;
    if (!layer.inputs.empty()) item["inputs"] = layer.inputs;
    layers.push_back(std::move(item));
  }
  return layers;
}

nlohmann::json experiment_to_json(const Experiment& e) {
  const TrainingSpec& t = e.training;
  nlohmann::json out = {
      {"name", e.name},
      {"seed", e.seed},
      {"device", e.device.name()},
      {"dataset", dataset_json(e.dataset)},
      {"model",
       {{"width", e.model.width},
        {"init", std::string(weight_init_name(e.model.init))},
        {"layers", e.model.uses_blocks() ? e.model.written_layers : plain_layers_json(e.model)}}},
      {"training",
       {{"epochs", t.epochs},
        {"batch_size", t.batch_size},
        {"eval_batch_size", t.eval_batch_size},
        {"loss", loss_json(t.loss_options)},
        {"label_smoothing", t.label_smoothing},
        {"optimizer", optimizer_json(t.optimizer)},
        {"clip_grad_norm", t.clip_grad_norm},
        {"schedule", schedule_json(t.schedule)},
        {"log_every", t.log_every > 0 ? nlohmann::json(t.log_every) : nlohmann::json("auto")},
        {"threads", t.threads}}},
      {"checkpoint",
       {{"path", e.checkpoint.path},
        {"every_epochs", e.checkpoint.every_epochs},
        {"allow_outside_run_folder", e.checkpoint.allow_outside_run_folder}}},
      {"backend",
       {{"deterministic", e.backend.deterministic},
        {"cuda_graph", e.backend.cuda_graph},
        {"dataset_on_device", e.backend.dataset_on_device}}},
  };
  if (e.model.uses_blocks()) out["model"]["blocks"] = e.model.written_blocks;
  add_selection(out, e);
  // Only when given: configs without tags keep the hash they had before tags existed.
  if (!e.tags.empty()) out["tags"] = e.tags;
  // Only when given, as the tags.
  if (!e.metrics.empty()) {
    nlohmann::json& metrics = out["metrics"] = nlohmann::json::array();
    for (const MetricSpec& m : e.metrics) {
      metrics.push_back(find_metric_kind(m.kind)->takes_k ? nlohmann::json{{m.kind, m.k}}
                                                          : nlohmann::json(m.kind));
    }
  }
  // Only when given, so configs without it keep their hash.
  if (e.training.ema.enabled) {
    out["training"]["ema"] = {{"decay", e.training.ema.decay}, {"every", e.training.ema.every}};
  }
  // Only when given, as the EMA.
  if (t.mixing.mixup_alpha > 0) out["training"]["mixup"] = {{"alpha", t.mixing.mixup_alpha}};
  if (t.mixing.cutmix_alpha > 0) out["training"]["cutmix"] = {{"alpha", t.mixing.cutmix_alpha}};
  if (t.mixing.enabled()) {
    out["training"]["mix"] = {{"prob", t.mixing.prob}, {"switch_prob", t.mixing.switch_prob}};
  }
  // Only when off, so configs keep the hash they had before the switch was an option.
  if (!e.backend.own_kernels) out["backend"]["own_kernels"] = false;
  if (!e.backend.winograd) out["backend"]["winograd"] = false;
  // Likewise only away from the defaults, so FP32 configs keep the hash they had before.
  if (t.fastest_precision) {
    out["training"]["precision"] = "fastest";
  } else if (t.precision != Precision::fp32) {
    out["training"]["precision"] = std::string(precision_name(t.precision));
  }
  if (t.allow_emulation) out["training"]["allow_emulation"] = true;
  if (t.divergence_threshold) out["training"]["divergence_threshold"] = *t.divergence_threshold;
  if (e.logging.tensorboard) out["logging"] = {{"tensorboard", true}};
  if (e.report.html) out["report"] = {{"html", true}};
  return out;
}

}  // namespace runner
