// RunRecord <-> report.json: the one place a report's keys are spelled for reading. Each
// section's fields are listed once (`fields`) and walked both ways: a Reader takes each key it
// can decode out of the object (what is left is the section's `unmodelled`), a Writer puts each
// present field back and then the unmodelled keys.
#include <concepts>
#include <limits>
#include <type_traits>

#include "runner/metrics/metric_kind.h"
#include "runner/report/run_record.h"
#include "runner/util/enum_names.h"

namespace runner {
namespace {

using nlohmann::json;

// R is T or const T: one field list serves the reader (T&) and the writer (const T&).
template <class R, class T>
concept Like = std::same_as<std::remove_const_t<R>, T>;

template <class T>
concept Section = requires(T section) {
  section.unmodelled;
};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsMap : std::false_type {};
template <class T>
struct IsMap<std::map<std::string, T>> : std::true_type {};

// ---- the field lists ----

template <class Io, Like<RecordEnvironment> R>
void fields(Io& io, R& r) {
  io("runner_version", r.runner_version);
  io("git_commit", r.git_commit);
  io("git_dirty", r.git_dirty);
  io("compiler", r.compiler);
  io("compiler_flags", r.compiler_flags);
  io("os", r.os);
  io("hostname", r.hostname);
  io("cpu_model", r.cpu_model);
  io("onednn_version", r.onednn_version);
  io("onednn_isa", r.onednn_isa);
  io("own_kernels", r.own_kernels);
  io("threads", r.threads);
  io("precision", r.precision);
  io("omp_wait_policy", r.omp_wait_policy);
  io("gomp_spincount", r.gomp_spincount);
  io("cores", r.cores);
  io("isa", r.isa);
  io("max_threads", r.max_threads);
  io("gpu_name", r.gpu_name);
  io("memory", r.memory);
  io("compute_capability", r.compute_capability);
  io("multiprocessors", r.multiprocessors);
  io("driver", r.driver);
  io("cuda_runtime", r.cuda_runtime);
  io("cudnn_version", r.cudnn_version);
  io("cublas_version", r.cublas_version);
}

template <class Io, Like<RecordDataFile> R>
void fields(Io& io, R& r) {
  io("path", r.path);
  io("sha256", r.sha256);
  io("bytes", r.bytes);
}

template <class Io, Like<RecordData> R>
void fields(Io& io, R& r) {
  io("name", r.name);
  io("root", r.root);
  io("sha256", r.sha256);
  io("train_images", r.train_images);
  io("validation_images", r.validation_images);
  io("test_images", r.test_images);
  io("class_names", r.class_names);
  io("files", r.files);
  io("splits", r.splits);
  io("augment_images_per_second", r.augment_images_per_second);
}

template <class Io, Like<RecordLayer> R>
void fields(Io& io, R& r) {
  io("name", r.name);
  io("type", r.type);
  io("output_shape", r.output_shape);
  io("parameters", r.parameters);
  io("flops_per_image", r.flops_per_image);
}

template <class Io, Like<RecordModel> R>
void fields(Io& io, R& r) {
  io("input_shape", r.input_shape);
  io("classes", r.classes);
  io("parameters", r.parameters);
  io("flops_per_image", r.flops_per_image);
  io("layers", r.layers);
  io("expanded_layers", r.expanded_layers);
}

template <class Io, Like<RecordEpoch> R>
void fields(Io& io, R& r) {
  io("epoch", r.epoch);
  io("train_loss", r.train_loss);
  io("test_loss", r.test_loss);
  io("test_accuracy", r.test_accuracy);
  io("val_loss", r.val_loss);
  io("val_accuracy", r.val_accuracy);
  io("seconds", r.seconds);
  io("images_per_second", r.images_per_second);
  io("learning_rate", r.learning_rate);
  io("grad_norm_mean", r.grad_norm_mean);
  io("momentum", r.momentum);
  io.figures(r.figures);
}

template <class Io, Like<RecordLossPoint> R>
void fields(Io& io, R& r) {
  io("step", r.step);
  io("epoch", r.epoch);
  io("loss", r.loss);
  io("lr", r.lr);
}

template <class Io, Like<RecordEvalPoint> R>
void fields(Io& io, R& r) {
  io("step", r.step);
  io("epoch", r.epoch);
  io("loss", r.loss);
  io("accuracy", r.accuracy);
}

template <class Io, Like<RecordCurves> R>
void fields(Io& io, R& r) {
  io("train", r.train);
  io("test", r.test);
  io("validation", r.validation);
}

template <class Io, Like<RecordConfusionPair> R>
void fields(Io& io, R& r) {
  io("true", r.truth);
  io("predicted", r.predicted);
  io("images", r.images);
}

template <class Io, Like<RecordMetrics> R>
void fields(Io& io, R& r) {
  io("test_accuracy", r.test_accuracy);
  io("test_loss", r.test_loss);
  io("test_images", r.test_images);
  io("per_class_accuracy", r.per_class_accuracy);
  io("classes", r.classes);
  io("confusion_matrix", r.confusion_matrix);
  io("confusion_pairs", r.confusion_pairs);
  io("confusion_matrix_omitted", r.confusion_matrix_omitted);
  io("val_accuracy", r.val_accuracy);
  io("val_loss", r.val_loss);
  io("val_images", r.val_images);
  io("best_epoch", r.best_epoch);
  io.figures(r.figures);
  io("per_class_precision_recall", r.per_class_precision_recall);
  io("val_per_class_precision_recall", r.val_per_class_precision_recall);
}

template <class Io, Like<RecordThroughput> R>
void fields(Io& io, R& r) {
  io("train_images_per_second", r.train_images_per_second);
  io("whole_run_images_per_second", r.whole_run_images_per_second);
  io("steps", r.steps);
  io("warmup_steps", r.warmup_steps);
  io("train_seconds", r.train_seconds);
  io("data_wait_seconds", r.data_wait_seconds);
  io("compute_seconds", r.compute_seconds);
  io("data_wait_fraction", r.data_wait_fraction);
  io("timed_seconds", r.timed_seconds);
  io("off_median_seconds", r.off_median_seconds);
  io("other_seconds", r.other_seconds);
  io("loader_workers", r.loader_workers);
  io("achieved_flops_per_second", r.achieved_flops_per_second);
}

template <class Io, Like<RecordStepTime> R>
void fields(Io& io, R& r) {
  io("steps", r.steps);
  io("median_seconds", r.median_seconds);
  io("p10_seconds", r.p10_seconds);
  io("p90_seconds", r.p90_seconds);
  io("mean_seconds", r.mean_seconds);
  io("images_per_second", r.images_per_second);
  io("median_step_images_per_second", r.median_step_images_per_second);
}

template <class Io, Like<RecordThreadChange> R>
void fields(Io& io, R& r) {
  io("step", r.step);
  io("threads", r.threads);
  io("free_cores", r.free_cores);
}

template <class Io, Like<RecordCpu> R>
void fields(Io& io, R& r) {
  io("process_cpu_seconds", r.process_cpu_seconds);
  io("wall_seconds", r.wall_seconds);
  io("cpu_time_over_wall", r.cpu_time_over_wall);
  io("utilisation", r.utilisation);
  io("threads", r.threads);
  io("threads_policy", r.threads_policy);
  io("thread_changes", r.thread_changes);
}

template <class Io, Like<RecordLossScaling> R>
void fields(Io& io, R& r) {
  io("final_scale", r.final_scale);
  io("skipped_steps", r.skipped_steps);
}

template <class Io, Like<RecordGpuUtilisation> R>
void fields(Io& io, R& r) {
  io("samples", r.samples);
  io("mean_gpu_percent", r.mean_gpu_percent);
  io("peak_gpu_percent", r.peak_gpu_percent);
  io("peak_memory_used_bytes", r.peak_memory_used_bytes);
  io("mean_sm_clock_mhz", r.mean_sm_clock_mhz);
  io("mean_power_watts", r.mean_power_watts);
  io("peak_power_watts", r.peak_power_watts);
}

template <class Io, Like<RecordGpu> R>
void fields(Io& io, R& r) {
  io("algorithms", r.algorithms);
  io("device_memory_bytes", r.device_memory_bytes);
  io("cuda_graph_fallback", r.cuda_graph_fallback);
  io("loss_scaling", r.loss_scaling);
  io("training_set_on_device", r.training_set_on_device);
  io("utilisation", r.utilisation);
}

template <class Io, Like<RecordBenchmark> R>
void fields(Io& io, R& r) {
  io("warmup_steps", r.warmup_steps);
  io("steps", r.steps);
  io("profile_steps", r.profile_steps);
  io("mean_loss", r.mean_loss);
}

template <class Io, Like<RecordTiming> R>
void fields(Io& io, R& r) {
  io("label", r.label);
  io("seconds", r.seconds);
}

template <class Io, Like<RecordLayerTime> R>
void fields(Io& io, R& r) {
  io("name", r.name);
  io("type", r.type);
  io("forward_seconds", r.forward_seconds);
  io("backward_seconds", r.backward_seconds);
}

template <class Io, Like<RecordProfile> R>
void fields(Io& io, R& r) {
  io("steps", r.steps);
  io("timings", r.timings);
  io("other", r.other);
  io("layers", r.layers);
  io("sum_seconds", r.sum_seconds);
  io("measured_step_seconds", r.measured_step_seconds);
  io("sum_over_measured", r.sum_over_measured);
}

template <class Io, Like<RecordSweepPoint> R>
void fields(Io& io, R& r) {
  io("sweep", r.sweep);
  io("id", r.id);
  io("index", r.index);
  io("values", r.values);
  io("overrides", r.overrides);
  io("point_sha256", r.point_sha256);
}

template <class Io, Like<RecordTensorboard> R>
void fields(Io& io, R& r) {
  io("path", r.path);
  io("error", r.error);
}

template <class Io, Like<RecordAsha> R>
void fields(Io& io, R& r) {
  io("metric", r.metric);
  io("mode", r.mode);
  io("rungs", r.rungs);
  io("reduction_factor", r.reduction_factor);
}

template <class Io, Like<RecordCheckpoint> R>
void fields(Io& io, R& r) {
  io("path", r.path);
  io("best_path", r.best_path);
  io("last_path", r.last_path);
  io("error", r.error);
  io("reloaded_test_accuracy", r.reloaded_test_accuracy);
  io("reload_matches", r.reload_matches);
  io("epochs_done", r.epochs_done);
  io("monitor", r.monitor);
  io("mode", r.mode);
  io("best_epoch", r.best_epoch);
  io("best_value", r.best_value);
}

template <class Io, Like<RecordResumedFrom> R>
void fields(Io& io, R& r) {
  io("path", r.path);
  io("sha256", r.sha256);
  io("config_sha256", r.config_sha256);
  io("epochs_done", r.epochs_done);
}

template <class Io, Like<RecordSegment> R>
void fields(Io& io, R& r) {
  io("started_at", r.started_at);
  io("finished_at", r.finished_at);
  io("ended", r.ended);
  io("first_epoch", r.first_epoch);
  io("epochs_done", r.epochs_done);
  io("hostname", r.hostname);
  io("config_sha256", r.config_sha256);
  io("argv", r.argv);
}

template <class Io, Like<RecordMachineLoad> R>
void fields(Io& io, R& r) {
  io("cores", r.cores);
  io("load_average_start", r.load_average_start);
  io("load_average_end", r.load_average_end);
}

template <class Io, Like<RecordProgress> R>
void fields(Io& io, R& r) {
  io("epochs_done", r.epochs_done);
  io("epochs_planned", r.epochs_planned);
  io("elapsed_seconds", r.elapsed_seconds);
  io("seconds_left", r.seconds_left);
}

template <class Io, Like<RecordWallTime> R>
void fields(Io& io, R& r) {
  io("total_seconds", r.total_seconds);
  io("startup_seconds", r.startup_seconds);
  io("training_seconds", r.training_seconds);
  io("evaluation_seconds", r.evaluation_seconds);
  io("checkpoint_seconds", r.checkpoint_seconds);
  io("progress_seconds", r.progress_seconds);
  io("other_seconds", r.other_seconds);
}

template <class Io, Like<RecordPrecisionChoice> R>
void fields(Io& io, R& r) {
  io("chosen", r.chosen);
  io("step_seconds", r.step_seconds);
  io("replayed", r.replayed);
}

template <class Io, Like<RecordMemory> R>
void fields(Io& io, R& r) {
  io("peak_rss_bytes", r.peak_rss_bytes);
  io("dataset_bytes", r.dataset_bytes);
  io("estimate", r.estimate);
}

template <class Io, Like<RunRecord> R>
void fields(Io& io, R& r) {
  io("schema_version", r.schema_version);
  io("mode", r.mode);
  io("status", r.status);
  io("error", r.error);
  io("stop_reason", r.stop_reason);
  io("name", r.name);
  io("run_id", r.run_id);
  io("config_file", r.config_file);
  io("config_sha256", r.config_sha256);
  io("config", r.config);
  io("seed", r.seed);
  io("divergence_threshold", r.divergence_threshold);
  io("device", r.device);
  io("backend", r.backend);
  io("environment", r.environment);
  io("data", r.data);
  io("model", r.model);
  io("epochs", r.epochs);
  io("curves", r.curves);
  io("metrics", r.metrics);
  io("throughput", r.throughput);
  io("step_time", r.step_time);
  io("cpu", r.cpu);
  io("gpu", r.gpu);
  io("benchmark", r.benchmark);
  io("profile", r.profile);
  io("sweep_point", r.sweep_point);
  io("tensorboard", r.tensorboard);
  io("asha", r.asha);
  io("checkpoint", r.checkpoint);
  io("resumed_from", r.resumed_from);
  io("segments", r.segments);
  io("machine_load", r.machine_load);
  io("precision_choice", r.precision_choice);
  io("wall_time", r.wall_time);
  io("progress", r.progress);
  io("memory", r.memory);
  io("argv", r.argv);
  io("tags", r.tags);
  io("started_at", r.started_at);
  io("finished_at", r.finished_at);
}

// ---- one value, both ways: nullopt when the JSON is not what the field holds ----

template <class T>
std::optional<T> decode(const json& value);

template <class Int>
std::optional<Int> decode_integer(const json& value) {
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) return std::nullopt;
    return static_cast<Int>(n);
  }
  if (!value.is_number_integer()) return std::nullopt;
  const auto n = value.get<std::int64_t>();
  if (n < std::numeric_limits<Int>::min() || n > std::numeric_limits<Int>::max()) {
    return std::nullopt;
  }
  return static_cast<Int>(n);
}

template <class T, class Parse>
std::optional<T> decode_named(const json& value, Parse parse) {
  if (!value.is_string()) return std::nullopt;
  return parse(value.get_ref<const std::string&>());
}

template <class T>
json encode(const T& value);

class Reader {
 public:
  explicit Reader(const json& object) : rest_(object) {}

  template <class T>
  void operator()(const char* key, std::optional<T>& field) {
    auto found = rest_.find(key);
    if (found == rest_.end()) return;
    if (std::optional<T> value = decode<T>(*found)) {
      field = std::move(value);
      rest_.erase(found);
    }
  }

  // The metrics' figures of the sets, flat beside the built-in ones: val_<figure> and
  // test_<figure> for every figure a metric gives (val_top5_accuracy, test_macro_f1).
  void figures(std::map<std::string, double>& out) {
    for (auto it = rest_.begin(); it != rest_.end();) {
      if (it->is_number() && is_set_figure_key(it.key())) {
        out[it.key()] = it->get<double>();
        it = rest_.erase(it);
      } else {
        ++it;
      }
    }
  }

  json rest() && { return rest_.empty() ? json() : std::move(rest_); }

 private:
  json rest_;
};

class Writer {
 public:
  template <class T>
  void operator()(const char* key, const std::optional<T>& field) {
    if (field) out_[key] = encode(*field);
  }

  void figures(const std::map<std::string, double>& in) {
    for (const auto& [key, value] : in) out_[key] = value;
  }

  // The fields written, then what the section did not model (a field present in both was
  // read from the typed value: it wins).
  json with(const Unmodelled& unmodelled) && {
    if (unmodelled.is_object()) {
      for (const auto& [key, value] : unmodelled.items()) {
        if (!out_.contains(key)) out_[key] = value;
      }
    }
    return std::move(out_);
  }

 private:
  json out_ = json::object();
};

template <class T>
std::optional<T> decode(const json& value) {
  if constexpr (Section<T>) {
    if (!value.is_object()) return std::nullopt;
    T section;
    Reader reader(value);
    fields(reader, section);
    section.unmodelled = std::move(reader).rest();
    return section;
  } else if constexpr (std::is_same_v<T, json>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) return std::nullopt;
    return value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) return std::nullopt;
    return value.get<bool>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!value.is_number()) return std::nullopt;
    return value.get<double>();
  } else if constexpr (std::is_integral_v<T>) {
    return decode_integer<T>(value);
  } else if constexpr (std::is_same_v<T, RunMode>) {
    return decode_named<T>(value, parse_run_mode);
  } else if constexpr (std::is_same_v<T, RunStatus>) {
    return decode_named<T>(value, parse_run_status);
  } else if constexpr (std::is_same_v<T, StopReason>) {
    return decode_named<T>(value, parse_stop_reason);
  } else if constexpr (std::is_same_v<T, Precision>) {
    return decode_named<T>(value, parse_precision);
  } else if constexpr (std::is_same_v<T, Device>) {
    return decode_named<T>(value, Device::parse);
  } else if constexpr (std::is_same_v<T, MonitorMode>) {
    return decode_named<T>(value,
                           [](std::string_view n) { return value_named(kMonitorModeNames, n); });
  } else if constexpr (std::is_same_v<T, std::vector<RecordClassAccuracy>>) {
    // {"cat": 0.5, "dog": null}: null for a class without images.
    if (!value.is_object()) return std::nullopt;
    T classes;
    for (const auto& [name, accuracy] : value.items()) {
      if (!accuracy.is_null() && !accuracy.is_number()) return std::nullopt;
      classes.push_back({name, decode<double>(accuracy)});
    }
    return classes;
  } else if constexpr (IsVector<T>::value) {
    if (!value.is_array()) return std::nullopt;
    T items;
    for (const json& item : value) {
      auto decoded = decode<typename T::value_type>(item);
      if (!decoded) return std::nullopt;  // the whole list stays as it was
      items.push_back(std::move(*decoded));
    }
    return items;
  } else if constexpr (IsMap<T>::value) {
    if (!value.is_object()) return std::nullopt;
    T entries;
    for (const auto& [key, item] : value.items()) {
      auto decoded = decode<typename T::mapped_type>(item);
      if (!decoded) return std::nullopt;
      entries.emplace(key, std::move(*decoded));
    }
    return entries;
  } else {
    static_assert(sizeof(T) == 0, "no JSON mapping for this field's type");
  }
}

template <class T>
json encode(const T& value) {
  if constexpr (Section<T>) {
    Writer writer;
    fields(writer, value);
    return std::move(writer).with(value.unmodelled);
  } else if constexpr (std::is_same_v<T, json> || std::is_same_v<T, std::string> ||
                       std::is_arithmetic_v<T>) {
    return value;
  } else if constexpr (std::is_same_v<T, RunMode>) {
    return mode_name(value);
  } else if constexpr (std::is_same_v<T, RunStatus>) {
    return status_name(value);
  } else if constexpr (std::is_same_v<T, StopReason>) {
    return stop_reason_name(value);
  } else if constexpr (std::is_same_v<T, Precision>) {
    return precision_name(value);
  } else if constexpr (std::is_same_v<T, Device>) {
    return value.name();
  } else if constexpr (std::is_same_v<T, MonitorMode>) {
    return name_in(kMonitorModeNames, value);
  } else if constexpr (std::is_same_v<T, std::vector<RecordClassAccuracy>>) {
    json classes = json::object();
    for (const auto& [name, accuracy] : value) {
      classes[name] = accuracy ? json(*accuracy) : json();
    }
    return classes;
  } else if constexpr (IsVector<T>::value) {
    json items = json::array();
    for (const auto& item : value) items.push_back(encode(item));
    return items;
  } else if constexpr (IsMap<T>::value) {
    json entries = json::object();
    for (const auto& [key, item] : value) entries[key] = encode(item);
    return entries;
  } else {
    static_assert(sizeof(T) == 0, "no JSON mapping for this field's type");
  }
}

// The value at a path of the config, when it has the type asked for.
template <class T>
std::optional<T> config_value(const json& config, const char* pointer) {
  const json::json_pointer at(pointer);
  if (!config.is_object() || !config.contains(at)) return std::nullopt;
  return decode<T>(config.at(at));
}

}  // namespace

RunRecord run_record_from_json(const json& report) {
  if (!report.is_object()) return {};
  return *decode<RunRecord>(report);
}

json run_record_json(const RunRecord& record) {
  return encode(record);
}

template <class Section>
Section section_from_json(const json& block) {
  return decode<Section>(block).value_or(Section{});
}
template RecordData section_from_json<RecordData>(const json&);
template RecordEnvironment section_from_json<RecordEnvironment>(const json&);

ReportedStatus RunRecord::reported_status() const {
  if (status) return ReportedStatus::of(*status);
  const bool has_one = unmodelled.is_object() && unmodelled.contains("status");
  return has_one ? ReportedStatus::unreadable() : ReportedStatus();
}

RecordConfigFacts RunRecord::config_facts() const {
  if (!config) return {};
  const json& c = *config;
  return {config_value<std::string>(c, "/name"),
          config_value<std::string>(c, "/dataset/root"),
          config_value<Device>(c, "/device"),
          config_value<int>(c, "/training/batch_size"),
          config_value<int>(c, "/training/epochs"),
          config_value<double>(c, "/model/width"),
          config_value<Precision>(c, "/training/precision")};
}

}  // namespace runner
