// resolve_experiment: defaults (from experiment.h and per dataset) and the checks a JSON Schema
// cannot express. The document is expected to be validated; a wrong type is still a UserError.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include "runner/config/block_expansion.h"
#include "runner/config/field_path.h"
#include "runner/config/load_config.h"
#include "runner/config/resolved_json.h"
#include "runner/config/schema_walk.h"
#include "runner/config/tag_key.h"
#include "runner/data/augmentation.h"
#include "runner/data/dataset_format.h"
#include "runner/metrics/metric_kind.h"

namespace runner {
namespace {

// Typed reads of one mapping of the document, each falling back to a default when absent.
// Dataset formats read their own keys through it, as a SettingsReader.
class Fields : public SettingsReader {
 public:
  Fields(const ConfigDocument& doc, const nlohmann::json& object, std::string path)
      : doc_(doc), object_(object.is_object() ? object : empty()), path_(std::move(path)) {}

  bool has(const std::string& key) const override { return object_.contains(key); }
  std::string path(const std::string& key) const { return child_path(path_, key); }
  SourceLocation where(const std::string& key) const override {
    return doc_.source_map.locate(path(key));
  }
  // Where this mapping (or list item) itself is.
  SourceLocation here() const { return doc_.source_map.locate(path_); }
  const nlohmann::json& raw(const std::string& key) const override {
    return has(key) ? object_[key] : empty();
  }
  Fields child(const std::string& key) const { return Fields(doc_, raw(key), path(key)); }
  std::unique_ptr<SettingsReader> mapping(const std::string& key) const override {
    return std::make_unique<Fields>(child(key));
  }
  // Item i of the list under `key`.
  Fields item(const std::string& key, std::size_t i) const {
    return Fields(doc_, raw(key)[i], item_path(path(key), i));
  }

  std::vector<float> floats(const std::string& key) const {
    std::vector<float> out;
    for (const auto& value : raw(key)) {
      if (!value.is_number()) wrong(key, "a list of numbers");
      out.push_back(value.get<float>());
    }
    return out;
  }

  const nlohmann::json& raw_object() const { return object_; }
  [[noreturn]] void wrong(const std::string& key, const std::string& expected) const override {
    throw_user_error(where(key),
                     fmt::format("found {}, expected {}", short_json(raw(key)), expected));
  }

 private:
  static const nlohmann::json& empty() {
    static const nlohmann::json object = nlohmann::json::object();
    return object;
  }

  const ConfigDocument& doc_;
  const nlohmann::json& object_;
  std::string path_;
};

// dataset.augment: a list of one-key mappings, e.g. [{random_crop: {padding: 4}},
// {horizontal_flip: {p: 0.5}}, {color_jitter: {brightness: 0.4}}], applied in that order; each
// key a kind of the augmentation registry, which reads its own settings.
// The steps must end at the model's input size: follow the size from what the first step gets
// (the stored image at dataset.image_size, or with decode: per_epoch and a first step made for
// any size the photo as decoded, whose size is not known here).
void check_augment_sizes(const std::vector<AugmentStep>& steps,
                         const std::vector<SourceLocation>& where, const ImageShape& image,
                         bool per_epoch) {
  const std::pair<int, int> model{image.height, image.width};
  std::pair<int, int> size = model;
  if (per_epoch && !steps.empty() && steps.front().op->takes_any_size()) size = {0, 0};
  std::size_t last_change = steps.size();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::pair<int, int> next = steps[i].op->output_size(size);
    if (next != size || steps[i].op->takes_any_size()) last_change = i;
    size = next;
  }
  if (size == model) return;
  const std::string crops = "center_crop, random_crop or random_resized_crop";
  if (size.first == 0) {
    throw_user_error(last_change < steps.size() ? where[last_change] : where.front(),
                     "the steps end with images whose size depends on each photo, but the model "
                     "takes " +
                         fmt::format("{}x{} (dataset.image_size)", model.first, model.second),
                     "end the list with a crop to that size: " + crops);
  }
  throw_user_error(where[last_change],
                   fmt::format("the steps end with images of {}x{}, but the model takes {}x{} "
                               "(dataset.image_size)",
                               size.first, size.second, model.first, model.second),
                   "end the list with a crop to the model's size (" + crops +
                       ", whose size defaults to it), or change dataset.image_size");
}

std::vector<AugmentStep> read_augment(const Fields& f, const ImageShape& image,
                                      const Normalization& normalize, bool per_epoch) {
  std::vector<AugmentStep> steps;
  std::vector<SourceLocation> where;  // each step's place in the config
  if (!f.has("augment")) return steps;
  const nlohmann::json& list = f.raw("augment");
  const std::string kinds = fmt::format("{}", fmt::join(augmentation_kind_names(), ", "));
  if (!list.is_array()) f.wrong("augment", "a list of steps (" + kinds + ")");
  if (list.size() > static_cast<std::size_t>(kMaxAugmentSteps)) {
    f.wrong("augment", fmt::format("at most {} steps", kMaxAugmentSteps));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Fields item = f.item("augment", i);
    if (!list[i].is_object() || list[i].size() != 1) {
      f.wrong("augment", "steps of one key each, the step's kind: " + kinds);
    }
    const std::string name = list[i].begin().key();
    const AugmentationKind* kind = find_augmentation_kind(name);
    if (!kind) {
      throw_user_error(item.where(name),
                       fmt::format("unknown augmentation '{}', expected one of {}", name, kinds));
    }
    const AugmentContext context{image, normalize, item.where(name)};
    steps.push_back({name, kind->read(item.child(name), context)});
    where.push_back(context.step);
  }
  check_augment_sizes(steps, where, image, per_epoch);
  return steps;
}

// dataset.name as the registry's format (the schema has refused other names, with a suggestion).
const DatasetFormat& read_format(const Fields& f) {
  const std::string name = f.text("name", "");
  if (const DatasetFormat* format = find_dataset_format(name)) return *format;
  f.wrong("name", fmt::format("one of {}", fmt::join(dataset_format_names(), ", ")));
}

// A key of another format's (synthetic settings for cifar10, say) is refused, naming its owners.
void refuse_other_formats_keys(const Fields& f, const DatasetFormat& format) {
  const auto& common = common_dataset_keys();
  for (const auto& [key, value] : f.raw_object().items()) {
    if (std::find(common.begin(), common.end(), key) != common.end()) continue;
    if (std::find(format.keys.begin(), format.keys.end(), key) != format.keys.end()) continue;
    std::vector<std::string> owners;
    for (const DatasetFormat& other : dataset_formats()) {
      if (std::find(other.keys.begin(), other.keys.end(), key) != other.keys.end())
        owners.push_back(other.name);
    }
    throw_user_error(
        f.where(key),
        fmt::format("{} applies only to dataset {}, not {}", key,
                    owners.empty() ? "(none)" : fmt::format("{}", fmt::join(owners, ", ")),
                    format.name),
        fmt::format("remove it, or set dataset.name: {}",
                    owners.empty() ? std::string("?") : owners.front()));
  }
}

// dataset.workers: a number of threads, or auto (absent) to plan them (loader_threads.h).
std::optional<int> read_workers(const Fields& f) {
  if (!f.has("workers") || f.raw("workers") == "auto") return std::nullopt;
  return f.integer("workers", 0);  // the schema has checked the range
}

DatasetSpec read_dataset(const Fields& f) {
  DatasetSpec d;
  const DatasetFormat& format = read_format(f);
  d.name = format.name;
  d.format = &format;
  refuse_other_formats_keys(f, format);

  d.root = f.text("root", format.default_root);
  d.download = f.flag("download", false);
  if (d.download && !format.download) {
    std::vector<std::string> downloadable;
    for (const DatasetFormat& other : dataset_formats()) {
      if (other.download) downloadable.push_back(other.name);
    }
    throw_user_error(f.where("download"),
                     fmt::format("download is not available for {} (only for {})", d.name,
                                 fmt::join(downloadable, ", ")),
                     "remove it and put the files under dataset.root");
  }
  d.shuffle = f.flag("shuffle", d.shuffle);
  d.balanced_sampler = f.text("sampler", "random") == "balanced";  // the schema's enum
  d.workers = read_workers(f);
  d.train_limit = f.wide("train_limit", d.train_limit);
  d.test_limit = f.wide("test_limit", d.test_limit);
  d.validation_split = f.number("validation_split", d.validation_split);
  format.read(f, d);
  // A split would be ignored beside a validation file of its own, yet recorded: say so instead.
  if (d.validation_split > 0 && !d.files.validation.empty()) {
    throw_user_error(
        f.where("validation_split"),
        fmt::format("{} beside dataset.validation ('{}')", d.validation_split, d.files.validation),
        "one of them: the validation file, or a share held out of the training set");
  }
  // Without a test set the validation set measures the model; with neither, nothing would (the
  // run refused it only once the data was read, with no place to name).
  if (d.files.test_absent && d.validation_split <= 0 && d.files.validation.empty()) {
    throw_user_error(f.where("test"),
                     "found null (no test set), and the run has no validation set either: "
                     "nothing would measure the model",
                     "set dataset.validation_split (e.g. 0.1) or dataset.validation, or name the "
                     "test split");
  }

  const ImageShape image = format.image(d);
  const int channels = image.channels;
  if (f.has("normalize")) {
    Fields normalize = f.child("normalize");
    d.normalize.mean = normalize.floats("mean");
    d.normalize.std = normalize.floats("std");
    for (const char* key : {"mean", "std"}) {
      std::size_t count = normalize.raw(key).size();
      if (count != static_cast<std::size_t>(channels)) {
        throw_user_error(normalize.where(key),
                         fmt::format("found {} value{}, expected {} (one per channel of {})", count,
                                     count == 1 ? "" : "s", channels, d.name));
      }
    }
  } else {
    d.normalize.mean.assign(channels, 0.5f);
    d.normalize.std.assign(channels, 0.5f);
  }
  d.augment = read_augment(f, image, d.normalize, d.files.decode_per_epoch);
  return d;
}

// The enum value named by field `key` (default `fallback`) in `names`, its (value, name) table.
// The schema lists the same names: a name missing here is a new one left out of one of the two.
template <typename Enum, std::size_t N>
Enum read_named(const Fields& f, const char* key, Enum fallback,
                const std::array<std::pair<Enum, std::string_view>, N>& names) {
  std::string_view fallback_name;
  for (const auto& [value, name] : names) {
    if (value == fallback) fallback_name = name;
  }
  const std::string text = f.text(key, std::string(fallback_name));
  std::vector<std::string_view> known;
  for (const auto& [value, name] : names) {
    if (name == text) return value;
    known.push_back(name);
  }
  f.wrong(key, fmt::format("one of {}", fmt::join(known, ", ")));
}

ModelSpec read_model(const Fields& f, const ConfigDocument& doc) {
  ModelSpec m;
  m.width = f.number("width", m.width);
  m.init = read_named(f, "init", m.init, kWeightInitNames);
  std::map<std::string, std::size_t> first_use;  // layer name → index
  const nlohmann::json& layers = f.raw("layers");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    std::string path = item_path(f.path("layers"), i);
    Fields layer(doc, layers[i], path);
    LayerSpec spec;
    spec.name = layer.text("name", "");
    spec.type = layer.text("type", "");
    for (const auto& input : layer.raw("inputs")) {
      if (!input.is_string()) layer.wrong("inputs", "a list of layer names");
      spec.inputs.push_back(input.get<std::string>());
    }
    spec.attributes = layers[i].is_object() ? layers[i] : nlohmann::json::object();
    for (const char* common : {"name", "type", "inputs"}) spec.attributes.erase(common);
    spec.where = doc.source_map.locate(path);

    auto [earlier, inserted] = first_use.emplace(spec.name, i);
    if (!inserted) {
      SourceLocation first = doc.source_map.locate(item_path(f.path("layers"), earlier->second));
      throw_user_error(
          layer.where("name"), fmt::format("duplicate layer name '{}'", spec.name),
          fmt::format("first used by {} on line {}; names must be unique", first.path, first.line));
    }
    m.layers.push_back(std::move(spec));
  }
  return m;
}

OptimizerSpec read_optimizer(const Fields& f) {
  OptimizerSpec o;
  o.type = read_named(f, "type", o.type, kOptimizerTypeNames);
  o.lr = f.number("lr", o.lr);
  o.momentum = f.number("momentum", o.momentum);
  o.dampening = f.number("dampening", o.dampening);
  o.weight_decay = f.number("weight_decay", default_weight_decay(o.type));
  for (const auto& kind : f.raw("weight_decay_exclude")) {  // the schema allows these three
    if (kind == "bias") o.decay_exclude_bias = true;
    if (kind == "norm") o.decay_exclude_norm = true;
    if (kind == "embedding") o.decay_exclude_embedding = true;
  }
  o.nesterov = f.flag("nesterov", o.nesterov);
  if (o.nesterov && (o.momentum == 0 || o.dampening != 0)) {  // PyTorch's SGD refuses them too
    throw_user_error(
        f.where("nesterov"),
        fmt::format("Nesterov momentum with momentum {} and dampening {}", o.momentum, o.dampening),
        "expected a momentum above 0 and a dampening of 0");
  }
  o.beta1 = f.number("beta1", o.beta1);
  o.beta2 = f.number("beta2", o.beta2);
  o.eps = f.number("eps", o.eps);
  return o;
}

// training.schedule; the schema allows only the fields of its type. Milestones must increase (the
// schema cannot say so).
ScheduleSpec read_schedule(const Fields& f) {
  ScheduleSpec s;
  if (f.has("type")) {
    std::optional<ScheduleType> type = parse_schedule_type(f.text("type", ""));
    if (!type) f.wrong("type", "constant, step, multistep, cosine or one_cycle");
    s.type = *type;
  }
  s.step_size = f.integer("step_size", s.step_size);
  const nlohmann::json& milestones = f.raw("milestones");
  for (std::size_t i = 0; i < milestones.size(); ++i) {
    if (!milestones[i].is_number_integer()) f.wrong("milestones", "a list of whole epochs");
    const int epoch = milestones[i].get<int>();
    if (!s.milestones.empty() && epoch <= s.milestones.back()) {
      throw_user_error(
          f.where("milestones"),
          fmt::format("found {} after {}, expected increasing epochs", epoch, s.milestones.back()));
    }
    s.milestones.push_back(epoch);
  }
  s.gamma = f.number("gamma", s.gamma);
  s.min_lr = f.number("min_lr", s.min_lr);
  s.pct_start = f.number("pct_start", s.pct_start);
  s.div_factor = f.number("div_factor", s.div_factor);
  s.final_div_factor = f.number("final_div_factor", s.final_div_factor);
  s.cycle_momentum = f.flag("cycle_momentum", s.cycle_momentum);
  s.base_momentum = f.number("base_momentum", s.base_momentum);
  s.max_momentum = f.number("max_momentum", s.max_momentum);
  Fields warmup = f.child("warmup");
  s.warmup_epochs = warmup.number("epochs", s.warmup_epochs);
  s.warmup_start_factor = warmup.number("start_factor", s.warmup_start_factor);
  return s;
}

// The figures a monitor can name, for error messages.
std::string monitor_choices() {
  return "val_accuracy, val_loss or a validation figure of a metric (val_top5_accuracy, "
         "val_balanced_accuracy, val_macro_f1); with training.ema, the average's: "
         "val_ema_accuracy, "
         "val_ema_loss, val_ema_macro_f1, ...";
}

// monitor and mode, the mode following the monitor when the config leaves it out. Any metric's
// figure can be watched, listed in `metrics` or not: all are functions of the same counts.
MonitorSpec read_monitor(const Fields& f, const Monitor& fallback) {
  MonitorSpec m;
  m.monitor = f.text("monitor", fallback);
  if (m.monitor.rfind(kValidationPrefix, 0) != 0 || !is_known_figure(model_figure(m.monitor))) {
    f.wrong("monitor", monitor_choices());
  }
  m.mode = read_named(f, "mode", default_mode(m.monitor), kMonitorModeNames);
  return m;
}

// `metrics:`: names (balanced_accuracy) and one-key mappings of a name and its k ({top_k: 5}).
std::vector<MetricSpec> read_metrics(const Fields& top) {
  std::vector<MetricSpec> metrics;
  if (!top.has("metrics")) return metrics;
  const nlohmann::json& list = top.raw("metrics");
  std::vector<std::string> known;
  for (const MetricKind& kind : metric_kinds()) {
    known.push_back(kind.takes_k ? "{" + kind.name + ": K}" : kind.name);
  }
  const std::string expected = fmt::format("one of {}", fmt::join(known, ", "));
  if (!list.is_array()) top.wrong("metrics", "a list of metrics, each " + expected);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Fields item = top.item("metrics", i);
    MetricSpec spec;
    const MetricKind* kind = nullptr;
    if (list[i].is_string()) {
      spec.kind = list[i].get<std::string>();
      kind = find_metric_kind(spec.kind);
      if (kind && kind->takes_k) {
        throw_user_error(item.here(), fmt::format("found '{0}' without its k", spec.kind),
                         fmt::format("expected {{{0}: K}} (e.g. {{{0}: 5}})", spec.kind));
      }
    } else if (list[i].is_object() && list[i].size() == 1) {
      spec.kind = list[i].begin().key();
      kind = find_metric_kind(spec.kind);
      if (kind && !kind->takes_k) {
        throw_user_error(item.where(spec.kind), fmt::format("{} takes no value", spec.kind),
                         fmt::format("expected the plain name: - {}", spec.kind));
      }
      if (kind) {
        const nlohmann::json& k = list[i].begin().value();
        if (!k.is_number_integer() || k.get<std::int64_t>() < 1 ||
            k.get<std::int64_t>() > 1000000) {
          item.wrong(spec.kind, "an integer from 1 to 1000000");
        }
        spec.k = k.get<int>();
      }
    }
    if (!kind) {
      throw_user_error(item.here(), fmt::format("found {}", list[i].dump()), expected);
    }
    if (std::find(metrics.begin(), metrics.end(), spec) != metrics.end()) {
      throw_user_error(item.here(), fmt::format("found {} a second time", list[i].dump()),
                       "each metric once");
    }
    metrics.push_back(spec);
  }
  return metrics;
}

// training.loss: cross_entropy, or {class_weights: [...] | balanced, focal_gamma: g} (the
// schema checked the types and ranges).
LossSpec read_loss(const Fields& training) {
  LossSpec loss;
  if (!training.has("loss") || training.raw("loss").is_string()) return loss;
  const Fields f = training.child("loss");
  loss.focal_gamma = f.number("focal_gamma", loss.focal_gamma);
  if (f.has("class_weights")) {
    const nlohmann::json& weights = f.raw("class_weights");
    if (weights.is_string()) {
      loss.balanced = true;
    } else {
      for (const nlohmann::json& w : weights) loss.class_weights.push_back(w.get<double>());
      if (std::all_of(loss.class_weights.begin(), loss.class_weights.end(),
                      [](double w) { return w == 0; })) {
        f.wrong("class_weights", "at least one weight above 0");
      }
    }
  }
  return loss;
}

// training.early_stopping: Lightning's EarlyStopping (the schema requires its monitor).
EarlyStoppingSpec read_early_stopping(const Fields& f) {
  EarlyStoppingSpec e;
  e.enabled = f.has("monitor");
  if (!e.enabled) return e;
  e.watch = read_monitor(f, e.watch.monitor);
  e.patience = f.integer("patience", e.patience);
  e.min_delta = f.number("min_delta", e.min_delta);
  return e;
}

// training.ema, when given (an empty mapping takes the defaults).
EmaSpec read_ema(const Fields& f) {
  EmaSpec e;
  e.enabled = true;
  e.decay = f.number("decay", e.decay);
  if (!(e.decay > 0 && e.decay < 1)) f.wrong("decay", "a number between 0 and 1 (exclusive)");
  e.every = f.integer("every", e.every);
  if (e.every < 1) f.wrong("every", "at least 1 (training steps between updates)");
  return e;
}

// training.mixup, training.cutmix and training.mix (the schema checked the ranges).
MixingSpec read_mixing(const Fields& f, const LossSpec& loss) {
  MixingSpec m;
  if (f.has("mixup")) m.mixup_alpha = f.child("mixup").number("alpha", 0);
  if (f.has("cutmix")) m.cutmix_alpha = f.child("cutmix").number("alpha", 0);
  if (f.has("mix")) {
    if (!m.enabled()) {
      throw_user_error(f.where("mix"), "training.mix without training.mixup or training.cutmix",
                       "expected training.mixup: {alpha: ...} or training.cutmix: {alpha: ...} "
                       "beside it");
    }
    const Fields mix = f.child("mix");
    m.prob = mix.number("prob", m.prob);
    m.switch_prob = mix.number("switch_prob", m.switch_prob);
  }
  if (m.enabled() && (loss.focal_gamma != 0 || loss.balanced || !loss.class_weights.empty())) {
    throw_user_error(f.where(f.has("mixup") ? "mixup" : "cutmix"),
                     "mixing with a weighted or focal loss",
                     "expected training.loss: cross_entropy (mixed targets take the plain "
                     "cross-entropy, as timm's SoftTargetCrossEntropy)");
  }
  return m;
}

TrainingSpec read_training(const Fields& f) {
  TrainingSpec t;
  t.epochs = f.integer("epochs", t.epochs);
  t.batch_size = f.integer("batch_size", t.batch_size);
  t.eval_batch_size = f.integer("eval_batch_size", t.eval_batch_size);
  t.loss_options = read_loss(f);
  t.label_smoothing = f.number("label_smoothing", t.label_smoothing);
  t.mixing = read_mixing(f, t.loss_options);
  t.optimizer = read_optimizer(f.child("optimizer"));
  t.clip_grad_norm = f.number("clip_grad_norm", t.clip_grad_norm);
  t.schedule = read_schedule(f.child("schedule"));
  if (t.schedule.cycle_momentum && !t.optimizer.adam_family() && t.optimizer.momentum == 0) {
    throw_user_error(f.child("schedule").where("cycle_momentum"),
                     "cycle_momentum with an sgd optimizer without momentum",
                     "expected training.optimizer.momentum above 0 (the schedule then replaces "
                     "it), or adam or adamw (whose beta1 it cycles)");
  }
  // An integer, or auto (the default): about 20 loss lines per epoch.
  if (f.has("log_every") && f.raw("log_every") != "auto") {
    t.log_every = f.integer("log_every", t.log_every);
    if (t.log_every < 1) f.wrong("log_every", "auto or an integer of at least 1");
  }
  t.threads = f.integer("threads", t.threads);
  // The schema's enum admits only known names.
  const std::string precision = f.text("precision", "fp32");
  t.fastest_precision = precision == "fastest";
  t.precision = parse_precision(precision).value_or(Precision::fp32);
  t.allow_emulation = f.flag("allow_emulation", t.allow_emulation);
  if (f.has("divergence_threshold")) t.divergence_threshold = f.number("divergence_threshold", 0);
  t.early_stopping = read_early_stopping(f.child("early_stopping"));
  if (f.has("ema")) t.ema = read_ema(f.child("ema"));
  return t;
}

// Names the run writes in its folder: a checkpoint must not overwrite them.
bool is_reserved_in_run_folder(const std::filesystem::path& relative) {
  const std::string first = relative.begin()->string();
  return first.rfind("report.json", 0) == 0 || first.rfind("metrics", 0) == 0;
}

// A relative checkpoint path stays inside the run folder; an absolute one is allowed only by
// allow_outside_run_folder (a shared path would let runs and sweep points overwrite each other).
CheckpointSpec read_checkpoint(const Fields& f) {
  CheckpointSpec c;
  c.path = f.text("path", "");
  c.every_epochs = f.integer("every_epochs", c.every_epochs);
  c.allow_outside_run_folder = f.flag("allow_outside_run_folder", false);
  if (f.has("monitor")) c.monitor = read_monitor(f, "val_accuracy");
  if (f.has("mode") && !c.monitor) {
    throw_user_error(f.where("mode"), "a mode without a monitor",
                     "expected checkpoint.monitor (" + monitor_choices() + ") beside it");
  }
  if (c.monitor && c.path.empty()) {
    throw_user_error(f.where("path"),
                     "found '', but checkpoint.monitor asks to keep the best "
                     "weights",
                     "expected a file name (e.g. model.safetensors)");
  }
  if (c.path.empty()) return c;
  const std::filesystem::path path = std::filesystem::path(c.path).lexically_normal();
  auto refuse = [&](const std::string& why) {
    throw_user_error(f.where("path"), fmt::format("found '{}', {}", c.path, why));
  };
  if (!path.has_filename() || path.filename() == "." || path.filename() == "..") {
    refuse("expected a file name (e.g. model.safetensors)");
  }
  if (path.is_absolute()) {
    if (!c.allow_outside_run_folder) {
      refuse(
          "expected a path inside the run folder (an absolute path needs "
          "checkpoint.allow_outside_run_folder: true)");
    }
    return c;
  }
  if (*path.begin() == "..") refuse("expected a path inside the run folder (no '..' above it)");
  if (is_reserved_in_run_folder(path)) {
    refuse("expected a name the run does not write itself (report.json, metrics*)");
  }
  return c;
}

// `tags:`: the schema checked the values; the keys are checked here, with their line.
nlohmann::json read_tags(const Fields& top) {
  if (!top.has("tags")) return nlohmann::json::object();
  Fields tags = top.child("tags");
  for (const auto& [key, value] : top.raw("tags").items()) {
    if (!is_tag_key(key)) {
      throw_user_error(tags.where(key),
                       fmt::format("found the key '{}', expected {}", key, kTagKeyRule));
    }
  }
  return top.raw("tags");
}

// A monitored metric's figure is measured and reported as if `metrics` listed it (the resolved
// config then lists it: what ran).
void add_monitored_metrics(Experiment& e) {
  auto add = [&](const MonitorSpec& watch) {
    const std::optional<MetricSpec> spec = metric_of_figure(model_figure(watch.monitor));
    if (spec && std::find(e.metrics.begin(), e.metrics.end(), *spec) == e.metrics.end()) {
      e.metrics.push_back(*spec);
    }
  };
  if (e.training.early_stopping.enabled) add(e.training.early_stopping.watch);
  if (e.checkpoint.monitor) add(*e.checkpoint.monitor);
}

// The average's figure watched without training.ema would never be measured.
void check_average_monitors_have_ema(const Experiment& e, const Fields& top) {
  if (e.training.ema.enabled) return;
  auto refuse = [](const Fields& f, const MonitorSpec& watch) {
    if (!watches_average(watch.monitor)) return;
    throw_user_error(f.where("monitor"),
                     fmt::format("monitors {}, a figure of the weights' average, but the run "
                                 "keeps none",
                                 monitor_name(watch.monitor)),
                     "set training.ema (e.g. {decay: 0.999}), or watch the weights' figure");
  };
  if (e.training.early_stopping.enabled) {
    refuse(top.child("training").child("early_stopping"), e.training.early_stopping.watch);
  }
  if (e.checkpoint.monitor) refuse(top.child("checkpoint"), *e.checkpoint.monitor);
}

// A validation figure watched without a validation set would never be measured.
void check_monitors_have_validation(const Experiment& e, const Fields& top) {
  if (e.dataset.validation_split > 0 || !e.dataset.files.validation.empty()) return;
  auto refuse = [](const Fields& f, const MonitorSpec& watch) {
    throw_user_error(
        f.where("monitor"),
        fmt::format("monitors {}, but the run has no validation set", monitor_name(watch.monitor)),
        "set dataset.validation_split (e.g. 0.1) to hold out part of the training "
        "set");
  };
  if (e.training.early_stopping.enabled) {
    refuse(top.child("training").child("early_stopping"), e.training.early_stopping.watch);
  }
  if (e.checkpoint.monitor) refuse(top.child("checkpoint"), *e.checkpoint.monitor);
}

}  // namespace

Experiment resolve_experiment(const ConfigDocument& written) {
  if (!written.json.is_object()) {
    throw_user_error(written.source_map.locate(""),
                     "expected a mapping (run validate_config first)");
  }
  const ConfigDocument doc = expand_blocks(written);
  Fields top(doc, doc.json, "");
  Experiment e;
  e.name = top.text("name", "");
  e.source_file = doc.file;
  if (top.has("seed")) {
    const nlohmann::json& seed = top.raw("seed");
    bool usable =
        seed.is_number_unsigned() || (seed.is_number_integer() && seed.get<std::int64_t>() >= 0);
    if (!usable) top.wrong("seed", "an integer >= 0");
    e.seed = seed.get<std::uint64_t>();
  }
  if (top.has("device")) {
    auto device = Device::parse(top.text("device", ""));
    if (!device) top.wrong("device", std::string(kDeviceChoices));
    e.device = *device;
  }
  e.dataset = read_dataset(top.child("dataset"));
  e.model = read_model(top.child("model"), doc);
  if (uses_blocks(written.json)) {
    const nlohmann::json& model = written.json["model"];
    e.model.written_blocks = model.value("blocks", nlohmann::json::object());
    e.model.written_layers = model["layers"];
  }
  e.training = read_training(top.child("training"));
  e.checkpoint = read_checkpoint(top.child("checkpoint"));
  Fields backend = top.child("backend");
  e.backend.deterministic = backend.flag("deterministic", e.backend.deterministic);
  e.backend.cuda_graph = backend.flag("cuda_graph", e.backend.cuda_graph);
  e.backend.dataset_on_device = backend.flag("dataset_on_device", e.backend.dataset_on_device);
  e.backend.own_kernels = backend.flag("own_kernels", e.backend.own_kernels);
  e.backend.winograd = backend.flag("winograd", e.backend.winograd);
  e.logging.tensorboard = top.child("logging").flag("tensorboard", e.logging.tensorboard);
  e.report.html = top.child("report").flag("html", e.report.html);
  e.tags = read_tags(top);
  e.metrics = read_metrics(top);
  add_monitored_metrics(e);
  check_monitors_have_validation(e, top);
  check_average_monitors_have_ema(e, top);
  e.resolved = experiment_to_json(e);
  return e;
}

}  // namespace runner
