// Pieces of the report (schemas/report.schema.json) as sections of its RunRecord, and where runs
// are written.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runner/graph/graph.h"
#include "runner/graph/memory_estimate.h"
#include "runner/report/run_record.h"
#include "runner/train/trainer.h"
#include "runner/util/process_stats.h"

namespace runner {

RecordModel model_record(const Graph& graph, const ModelSpec& spec);
std::vector<RecordEpoch> epoch_records(const std::vector<EpochRecord>& epochs);
// The test set's figures: accuracy, loss, images, accuracy per class (null for a class without
// images), the class names in the model's order and the confusion matrix in that order
// (confusion_matrix[true][predicted], image counts).
// With the `metrics` list's figures of the set (test_top5_accuracy, ...) and tables.
RecordMetrics metrics_record(const Evaluation& evaluation,
                             const std::vector<std::string>& class_names,
                             const std::vector<MetricSpec>& metric_specs = {});

// The confusion matrix grows with the square of the classes (5,000 made a 276 MB report): up to
// this many classes it is written whole, beyond them only the most frequent mistakes.
inline constexpr std::size_t kConfusionMatrixClasses = 100;
inline constexpr std::size_t kConfusionPairs = 100;
// A class's cell of the per-class table: "54.0 %", or "n/a" for a class the evaluated set has no
// images of (not 0.0 %).
std::string class_accuracy_text(const Evaluation& evaluation, int k);
// The validation set's (val_accuracy, val_loss, val_images and the `metrics` list's figures)
// added to `metrics`.
void add_validation_metrics(RecordMetrics& metrics, const Evaluation& validation,
                            const std::vector<std::string>& class_names = {},
                            const std::vector<MetricSpec>& metric_specs = {});
// The rates and where the timed seconds went; `step_time` is step_time_record's for the same
// outcome (its median, mean and count split the seconds).
RecordThroughput throughput_record(const TrainingOutcome& outcome, std::int64_t flops_per_image,
                                   const RecordStepTime& step_time);
// The timed steps' spread (median, p10, p90, mean) and the images per second of the median step.
RecordStepTime step_time_record(const TrainingOutcome& outcome, int batch_size);
// Process CPU time over wall time during the training steps, and per thread (the utilisation).
// The steps' CPU use, and their threads: at the start, and how and when they changed.
RecordCpu cpu_record(const TrainingOutcome& outcome, const StepThreads& threads);
// "2", or "2 (fitted to the machine's load: 1 from step 40, 2 from step 900)".
std::string threads_text(const RecordCpu& cpu);
std::map<std::string, std::int64_t> memory_estimate_record(const MemoryEstimate& estimate);
// GPU runs: each convolution's algorithms, the device memory the program holds, fp16's loss
// scaling (final scale, skipped steps) and, where NVML sampled, the utilisation while it
// trained. None for a program that is not on a GPU.
std::optional<RecordGpu> gpu_record(const ProgramFacts& facts,
                                    const DeviceUtilization* utilisation);

// A new folder <root>/<name>/<run id>; the id is the start time plus a short config hash.
std::filesystem::path new_run_directory(const std::filesystem::path& root, const std::string& name,
                                        const std::string& config_sha256);

// Writes <dir>/report.json atomically; returns its path.
std::filesystem::path write_report(const std::filesystem::path& dir, const RunRecord& report);

}  // namespace runner
