// A report.json as values (schemas/report.schema.json): what a run records, typed. Its JSON
// mapping lives in run_record_json.cpp alone; every reader of reports (summaries, status,
// compare, the pages, reproduce, predict, ASHA) takes a RunRecord instead of reading keys.
//
// Reading is lenient, as reports are kept for years and runs killed midway leave them short: a
// field that is absent, or of a type this runner does not write there, is absent here
// (std::nullopt), and what the record does not model (a newer runner's fields, a damaged
// value) is kept in the section's `unmodelled`, so a record written back is the JSON it was
// read from.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/config/device.h"
#include "runner/config/monitor_spec.h"
#include "runner/config/precision.h"
#include "runner/train/run_status.h"

namespace runner {

// The keys of a section the record does not model, with their values as read.
using Unmodelled = nlohmann::json;

// What built and ran the program (`environment`): the facts `reproduce` compares.
struct RecordEnvironment {
  std::optional<std::string> runner_version, git_commit;
  std::optional<bool> git_dirty;
  std::optional<std::string> compiler, compiler_flags, os, hostname, cpu_model;
  std::optional<std::string> onednn_version, onednn_isa, own_kernels;
  std::optional<int> threads;
  std::optional<Precision> precision;
  std::optional<std::string> omp_wait_policy, gomp_spincount;
  // The device's own facts (backends' DeviceInfo::details): the CPU's ...
  std::optional<std::string> cores, isa, max_threads;
  // ... and a GPU's.
  std::optional<std::string> gpu_name, memory, compute_capability, multiprocessors, driver;
  std::optional<std::string> cuda_runtime, cudnn_version, cublas_version;
  Unmodelled unmodelled;
};

struct RecordDataFile {
  std::optional<std::string> path, sha256;
  std::optional<std::int64_t> bytes;
  Unmodelled unmodelled;
};

// The data the run read (`data`).
struct RecordData {
  std::optional<std::string> name, root, sha256;
  std::optional<std::int64_t> train_images, validation_images, test_images;
  std::optional<std::vector<std::string>> class_names;
  std::optional<std::vector<RecordDataFile>> files;
  std::optional<nlohmann::json> splits;  // the format's own counts (image folders: per class)
  // dataset.augment's rate: training images augmented per second of one loader thread's time.
  std::optional<double> augment_images_per_second;
  Unmodelled unmodelled;
};

struct RecordLayer {
  std::optional<std::string> name, type, output_shape;
  std::optional<std::int64_t> parameters, flops_per_image;
  Unmodelled unmodelled;
};

struct RecordModel {
  std::optional<std::string> input_shape;
  std::optional<int> classes;
  std::optional<std::int64_t> parameters, flops_per_image;
  std::optional<std::vector<RecordLayer>> layers;
  // A model written with blocks: its expansion as a `model.layers` list of plain layers.
  std::optional<nlohmann::json> expanded_layers;
  Unmodelled unmodelled;
};

// One epoch's row (`epochs[]`).
struct RecordEpoch {
  std::optional<int> epoch;
  std::optional<double> train_loss, test_loss, test_accuracy, val_loss, val_accuracy;
  std::optional<double> seconds, images_per_second, learning_rate, grad_norm_mean, momentum;
  // The `metrics` list's figures of each set, by their report key (val_top5_accuracy).
  std::map<std::string, double> figures;
  Unmodelled unmodelled;
};

// A point of the training-loss curve (`curves.train[]`).
struct RecordLossPoint {
  std::optional<std::int64_t> step;
  std::optional<int> epoch;
  std::optional<double> loss, lr;
  Unmodelled unmodelled;
};

// A point of an evaluated set's curve (`curves.test[]`, `curves.validation[]`).
struct RecordEvalPoint {
  std::optional<std::int64_t> step;
  std::optional<int> epoch;
  std::optional<double> loss, accuracy;
  Unmodelled unmodelled;
};

struct RecordCurves {
  std::optional<std::vector<RecordLossPoint>> train;
  std::optional<std::vector<RecordEvalPoint>> test, validation;
  Unmodelled unmodelled;
};

// A class's accuracy in the test set; nullopt for a class the set has no images of.
struct RecordClassAccuracy {
  std::string name;
  std::optional<double> accuracy;
};

// A (true class, predicted class) pair and its test images: a mistake the model makes.
struct RecordConfusionPair {
  std::optional<std::string> truth, predicted;  // "true", "predicted": class names
  std::optional<std::int64_t> images;
  Unmodelled unmodelled;
};

// The kept model's figures on the test set, and the validation set's (`metrics`).
struct RecordMetrics {
  std::optional<double> test_accuracy, test_loss;
  std::optional<std::int64_t> test_images;
  // In the report's order (sorted by name, as JSON objects are written).
  std::optional<std::vector<RecordClassAccuracy>> per_class_accuracy;
  std::optional<std::vector<std::string>> classes;
  std::optional<std::vector<std::vector<std::int64_t>>> confusion_matrix;  // [true][predicted]
  // Beyond kConfusionMatrixClasses classes the matrix is left out (it grows with their square):
  // the most frequent mistakes instead, and why.
  std::optional<std::vector<RecordConfusionPair>> confusion_pairs;
  std::optional<std::string> confusion_matrix_omitted;
  std::optional<double> val_accuracy, val_loss;
  std::optional<std::int64_t> val_images;
  std::optional<int> best_epoch;
  // The `metrics` list's figures of the kept model on each set (test_macro_f1, val_top5_accuracy)
  std::map<std::string, double> figures;
  // per_class_precision_recall: {class: {precision, recall, f1, support}} of the test and the
  // validation set.
  std::optional<nlohmann::json> per_class_precision_recall, val_per_class_precision_recall;
  Unmodelled unmodelled;
};

struct RecordThroughput {
  std::optional<double> train_images_per_second, whole_run_images_per_second;
  std::optional<std::int64_t> steps, warmup_steps;
  std::optional<double> train_seconds, data_wait_seconds, compute_seconds, data_wait_fraction;
  // Where the whole run's rate falls short of the median step's: its time, timed_seconds (the
  // steps after the warm-up, device waits included), is the full-batch steps at the median
  // (step_time.steps x median), plus off_median_seconds (what those steps took beyond it: a
  // busy machine, data waits; negative when most steps off the median were faster), plus
  // other_seconds (a last partial batch of each epoch).
  std::optional<double> timed_seconds, off_median_seconds, other_seconds;
  std::optional<int> loader_workers;
  std::optional<double> achieved_flops_per_second;
  Unmodelled unmodelled;
};

struct RecordStepTime {
  std::optional<std::int64_t> steps;
  std::optional<double> median_seconds, p10_seconds, p90_seconds, mean_seconds;
  std::optional<double> images_per_second, median_step_images_per_second;
  Unmodelled unmodelled;
};

// From step `step` of the run on, `threads` compute threads (`cpu.thread_changes[]`).
struct RecordThreadChange {
  std::optional<std::int64_t> step;
  std::optional<int> threads;
  std::optional<double> free_cores;
  Unmodelled unmodelled;
};

struct RecordCpu {
  std::optional<double> process_cpu_seconds, wall_seconds, cpu_time_over_wall, utilisation;
  std::optional<int> threads;                 // at the first step
  std::optional<std::string> threads_policy;  // fixed | fitted | replayed
  std::optional<std::vector<RecordThreadChange>> thread_changes;
  Unmodelled unmodelled;
};

struct RecordLossScaling {
  std::optional<double> final_scale;
  std::optional<std::int64_t> skipped_steps;
  Unmodelled unmodelled;
};

struct RecordGpuUtilisation {
  std::optional<std::int64_t> samples;
  std::optional<double> mean_gpu_percent, peak_gpu_percent, peak_memory_used_bytes;
  std::optional<double> mean_sm_clock_mhz, mean_power_watts, peak_power_watts;
  Unmodelled unmodelled;
};

struct RecordGpu {
  std::optional<std::vector<std::string>> algorithms;
  std::optional<std::int64_t> device_memory_bytes;
  std::optional<std::string> cuda_graph_fallback;
  std::optional<RecordLossScaling> loss_scaling;
  std::optional<bool> training_set_on_device;
  std::optional<RecordGpuUtilisation> utilisation;
  Unmodelled unmodelled;
};

struct RecordBenchmark {
  std::optional<std::int64_t> warmup_steps, steps, profile_steps;
  std::optional<double> mean_loss;
  Unmodelled unmodelled;
};

struct RecordTiming {
  std::optional<std::string> label;
  std::optional<double> seconds;
  Unmodelled unmodelled;
};

struct RecordLayerTime {
  std::optional<std::string> name, type;
  std::optional<double> forward_seconds, backward_seconds;
  Unmodelled unmodelled;
};

// `runner bench --profile`: per-step medians grouped by layer (`profile`).
struct RecordProfile {
  std::optional<std::int64_t> steps;
  std::optional<std::vector<RecordTiming>> timings, other;
  std::optional<std::vector<RecordLayerTime>> layers;
  std::optional<double> sum_seconds, measured_step_seconds, sum_over_measured;
  Unmodelled unmodelled;
};

// The sweep point a run was (`sweep_point`).
struct RecordSweepPoint {
  std::optional<std::string> sweep, id;
  std::optional<int> index;
  // config path -> value ("training.batch_size": 16): values of any type, as the axes hold.
  std::optional<nlohmann::json> values;
  std::optional<std::vector<std::string>> overrides;
  std::optional<std::string> point_sha256;
  Unmodelled unmodelled;
};

struct RecordTensorboard {
  std::optional<std::string> path, error;
  Unmodelled unmodelled;
};

// A search trial's ASHA settings (`asha`).
struct RecordAsha {
  std::optional<std::string> metric;  // val_accuracy | val_loss | train_loss
  std::optional<MonitorMode> mode;
  std::optional<std::vector<int>> rungs;
  std::optional<int> reduction_factor;
  Unmodelled unmodelled;
};

struct RecordCheckpoint {
  std::optional<std::string> path, best_path, last_path, error;
  std::optional<double> reloaded_test_accuracy;
  std::optional<bool> reload_matches;
  std::optional<int> epochs_done;
  std::optional<Monitor> monitor;
  std::optional<MonitorMode> mode;
  // Written as null before an epoch was best: that null is kept in `unmodelled`.
  std::optional<int> best_epoch;
  std::optional<double> best_value;
  Unmodelled unmodelled;
};

struct RecordResumedFrom {
  std::optional<std::string> path, sha256, config_sha256;
  std::optional<int> epochs_done;
  Unmodelled unmodelled;
};

// One stretch of a run resumed in its own folder (`segments[]`): when it started and ended, how
// (a status name, or "killed" for a run that never wrote its final report), the epochs done when
// it started and when it ended, where it ran and the command.
struct RecordSegment {
  std::optional<std::string> started_at, finished_at, ended, hostname, config_sha256;
  std::optional<int> first_epoch, epochs_done;
  std::optional<std::vector<std::string>> argv;
  Unmodelled unmodelled;
};

// Where a running run is (`progress`, in the live report it rewrites after every epoch): the
// epochs done of those planned, the wall time so far and what is left at the mean epoch's pace.
struct RecordProgress {
  std::optional<int> epochs_done, epochs_planned;
  std::optional<double> elapsed_seconds, seconds_left;
  Unmodelled unmodelled;
};

// Where a train run's wall time went (`wall_time`), from the start of the run (config read) to
// just before its report is written: the report's and the page's own writes come after.
struct RecordWallTime {
  std::optional<double> total_seconds;
  std::optional<double> startup_seconds;     // config, data, compile: up to the first step
  std::optional<double> training_seconds;    // the epochs' steps (throughput.train_seconds)
  std::optional<double> evaluation_seconds;  // held-out sets after epochs, and the kept model's
  std::optional<double> checkpoint_seconds;  // writing checkpoints after epochs
  // After epochs: the live report, its page and TensorBoard's events (LiveReport, TensorBoardLog)
  std::optional<double> progress_seconds;
  std::optional<double> other_seconds;  // the rest: log lines, the loop itself
  Unmodelled unmodelled;
};

// What `training.precision: fastest` chose (`precision_choice`).
struct RecordPrecisionChoice {
  std::optional<Precision> chosen;
  std::optional<std::map<std::string, double>> step_seconds;  // by precision: the median step
  std::optional<bool> replayed;  // reproduce: the original's choice, not timed again
  Unmodelled unmodelled;
};

struct RecordMachineLoad {
  std::optional<int> cores;
  std::optional<double> load_average_start, load_average_end;
  Unmodelled unmodelled;
};

struct RecordMemory {
  std::optional<std::int64_t> peak_rss_bytes, dataset_bytes;
  // Bytes by part (parameters, activations, ..., total).
  std::optional<std::map<std::string, std::int64_t>> estimate;
  Unmodelled unmodelled;
};

// What the run's resolved config said, read from `config` for the summaries and pages (the
// config itself stays as written: reproduce reruns it).
struct RecordConfigFacts {
  std::optional<std::string> name, dataset_root;
  std::optional<Device> device;
  std::optional<int> batch_size, epochs;
  std::optional<double> width;
  std::optional<Precision> precision;
};

struct RunRecord {
  std::optional<int> schema_version;
  std::optional<RunMode> mode;
  std::optional<RunStatus> status;
  std::optional<std::string> error;
  std::optional<StopReason> stop_reason;
  std::optional<std::string> name, run_id, config_file, config_sha256;
  std::optional<nlohmann::json> config;  // the resolved config, as the run read it
  std::optional<std::int64_t> seed;
  // The mean loss above which the run counted as diverged (training.divergence_threshold).
  std::optional<double> divergence_threshold;
  std::optional<Device> device;
  std::optional<std::string> backend;  // onednn | cudnn
  std::optional<RecordEnvironment> environment;
  std::optional<RecordData> data;
  std::optional<RecordModel> model;
  std::optional<std::vector<RecordEpoch>> epochs;
  std::optional<RecordCurves> curves;
  std::optional<RecordMetrics> metrics;
  std::optional<RecordThroughput> throughput;
  std::optional<RecordStepTime> step_time;
  std::optional<RecordCpu> cpu;
  std::optional<RecordGpu> gpu;
  std::optional<RecordBenchmark> benchmark;
  std::optional<RecordProfile> profile;
  std::optional<RecordSweepPoint> sweep_point;
  std::optional<RecordTensorboard> tensorboard;
  std::optional<RecordAsha> asha;
  std::optional<RecordCheckpoint> checkpoint;
  std::optional<RecordResumedFrom> resumed_from;
  std::optional<std::vector<RecordSegment>> segments;  // a run resumed in place: every start
  std::optional<RecordMachineLoad> machine_load;
  std::optional<RecordPrecisionChoice> precision_choice;
  std::optional<RecordWallTime> wall_time;
  std::optional<RecordProgress> progress;  // a running run's live report only
  std::optional<RecordMemory> memory;
  std::optional<std::vector<std::string>> argv;
  // key -> string, number or boolean (the config's tags with --tag on top).
  std::optional<nlohmann::json> tags;
  std::optional<std::string> started_at, finished_at;
  Unmodelled unmodelled;

  // The status as a sweep point's evidence: none without one, unreadable when it is not one
  // this runner writes.
  ReportedStatus reported_status() const;
  // What the config said (empty without a config).
  RecordConfigFacts config_facts() const;
};

// A field of a section the record may lack: nullopt when either is absent.
template <class Section, class Field>
std::optional<Field> field_of(const std::optional<Section>& section,
                              std::optional<Field> Section::*field) {
  return section ? (*section).*field : std::nullopt;
}

// A section from the JSON another module writes it as (the data module's `data` block, a
// backend's device details): RecordData and RecordEnvironment.
template <class Section>
Section section_from_json(const nlohmann::json& block);

// A figure for a chart or a table: the value, or NaN when the record lacks it.
template <class Number>
double value_or_nan(const std::optional<Number>& value) {
  return value ? static_cast<double>(*value) : std::numeric_limits<double>::quiet_NaN();
}

// The record of a parsed report (any JSON value: one that is not an object reads as an empty
// record with the value nowhere, which callers refuse before).
RunRecord run_record_from_json(const nlohmann::json& report);

// The report's JSON: what was read, written back the same (numbers as numbers: an integer read
// into a double writes as that double).
nlohmann::json run_record_json(const RunRecord& record);

}  // namespace runner
