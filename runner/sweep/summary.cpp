// Building summary rows from reports.
#include "runner/sweep/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runner/config/device.h"
#include "runner/report/environment.h"
#include "runner/report/read_report.h"
#include "runner/sweep/summary_context.h"
#include "runner/sweep/summary_groups.h"
#include "runner/sweep/summary_search.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "runner/util/interrupt.h"
#include "runner/util/long_text.h"

namespace runner {
namespace {

using nlohmann::json;

// A report's summary row; a file that is not a report (corrupt, edited, another tool's JSON) is
// recorded in `unreadable` with the reason and left out, so one bad file does not hide the rest.
// Reports are read leniently (not against the whole schema): older runners wrote fewer fields.
json row_or_note(const std::filesystem::path& path, json& unreadable) {
  auto note = [&](const std::string& why) {
    unreadable.push_back({{"report", path.string()}, {"error", path.string() + ": " + why}});
    return json();
  };
  std::string text;
  try {
    text = read_regular_file(path, kMaxReportBytes, "a JSON report");
  } catch (const UserError& error) {  // its message names the file
    unreadable.push_back({{"report", path.string()}, {"error", error.what()}});
    return json();
  }
  const json report = parse_bounded_json(text, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.is_object()) return note("not a JSON report");
  const RunRecord record = run_record_from_json(report);
  if (std::string why = record_problem(record); !why.empty()) {
    return note("not a report of this runner (" + why + ")");
  }
  return summary_row(record, path.string());
}

template <class T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json();
}

// The last epoch's training loss, or a benchmark's mean loss.
json final_loss(const RunRecord& report) {
  if (report.benchmark) return or_null(report.benchmark->mean_loss);
  if (!report.epochs || report.epochs->empty()) return nullptr;
  return or_null(report.epochs->back().train_loss);
}

// Each epoch's training and test loss (train mode), for the loss-versus-epoch plot; the groups
// key their statistics on the epoch (record_problem has checked it is a whole number from 1).
json epoch_losses(const RunRecord& report) {
  json out = json::array();
  for (const RecordEpoch& epoch : report.epochs.value_or(std::vector<RecordEpoch>{})) {
    out.push_back({{"epoch", or_null(epoch.epoch)},
                   {"train_loss", or_null(epoch.train_loss)},
                   {"test_loss", or_null(epoch.test_loss)}});
  }
  return out;
}

// The seed of the point's values (repeats, a seed axis), else the one the run used.
json seed_of(const RunRecord& report) {
  const auto values = field_of(report.sweep_point, &RecordSweepPoint::values);
  if (values && values->is_object() && values->contains("seed")) return (*values)["seed"];
  return or_null(report.seed);
}

json machine_of(const RunRecord& report) {
  const std::string host = field_of(report.environment, &RecordEnvironment::hostname).value_or("");
  const std::string cpu = field_of(report.environment, &RecordEnvironment::cpu_model).value_or("");
  if (host.empty() && cpu.empty()) return nullptr;
  return cpu.empty() ? host : fmt::format("{} ({})", host, cpu);
}

json commit_of(const RunRecord& report) {
  const std::string commit =
      field_of(report.environment, &RecordEnvironment::git_commit).value_or("");
  if (commit.empty()) return nullptr;
  const bool dirty = field_of(report.environment, &RecordEnvironment::git_dirty).value_or(false);
  return dirty ? commit + " (dirty)" : commit;
}

// The machine's load while the point ran (`machine_load`): the higher of the load averages at
// its start and end, and whether that was above the cores (a busy machine: noisy timings).
void add_load(json& row, const RunRecord& report) {
  const RecordMachineLoad load = report.machine_load.value_or(RecordMachineLoad{});
  row["cores"] = or_null(load.cores);
  row["load_average"] = nullptr;
  row["busy"] = nullptr;
  if (!load.load_average_start && !load.load_average_end) return;
  const double average =
      std::max(load.load_average_start.value_or(0.0), load.load_average_end.value_or(0.0));
  row["load_average"] = average;
  if (load.cores) row["busy"] = average > *load.cores;
}

// The loss per step and accuracy per epoch as the report holds them, for the sweep's curve
// plots (train mode only).
json curves_of(const RunRecord& report) {
  if (!report.curves) return nullptr;
  RunRecord curves_only;
  curves_only.curves = report.curves;
  return run_record_json(curves_only)["curves"];
}

bool is_gpu(const json& device) {
  if (!device.is_string()) return false;
  const auto parsed = Device::parse(device.get<std::string>());
  return parsed && parsed->is_cuda();
}

// What a GPU row and its CPU row share: everything but the device.
std::string match_key(const json& row) {
  json values = row["values"];
  values.erase("device");
  return json{values, row["batch_size"], row["width"]}.dump();
}

// A field of a point of sweep.json when it has the type `fits` accepts, else null: a forged or
// damaged plan must not end `runner report` with a raw type error or reach the summary.
json planned(const json& point, const char* key, bool (json::*fits)() const noexcept) {
  return point.contains(key) && (point[key].*fits)() ? point[key] : json();
}

json missing_row(const json& point) {
  json row = summary_row(RunRecord{}, "");
  row["id"] = point["id"];
  row["index"] = planned(point, "index", &json::is_number_integer);
  row["status"] = "missing";
  row["device"] = planned(point, "device", &json::is_string);
  row["batch_size"] = planned(point, "batch_size", &json::is_number_integer);
  row["width"] = planned(point, "width", &json::is_number);
  const json values = planned(point, "values", &json::is_object);
  row["values"] = values.is_object() ? values : json::object();
  row["seed"] = planned(row["values"], "seed", &json::is_number);
  row["estimated_memory_bytes"] = planned(point, "estimated_memory_bytes", &json::is_number);
  row["report"] = nullptr;
  return row;
}

// The point's folder name from sweep.json: a text naming a folder inside the sweep's, else "".
std::string planned_id(const json& point) {
  if (!point.is_object() || !point.contains("id") || !point["id"].is_string()) return "";
  const std::string id = point["id"].get<std::string>();
  const bool inside = !id.empty() && id != "." && id != ".." && id.find('/') == std::string::npos;
  return inside ? id : "";
}

}  // namespace

json summary_row(const RunRecord& report, const std::string& report_path) {
  if (std::string why = record_problem(report); !why.empty()) {
    throw UserError(fmt::format("{}: {}", report_path, why));
  }
  const RecordConfigFacts config = report.config_facts();
  json row;
  row["id"] = report.sweep_point ? or_null(report.sweep_point->id) : or_null(report.run_id);
  row["index"] = or_null(field_of(report.sweep_point, &RecordSweepPoint::index));
  // A report without a status is shown as missing.
  row["status"] = report.status ? status_name(*report.status) : "missing";
  row["error"] = or_null(report.error);
  row["mode"] = report.mode ? json(mode_name(*report.mode)) : json();
  row["experiment"] = report.name ? json(*report.name) : or_null(config.name);
  const std::optional<Device> device = report.device ? report.device : config.device;
  row["device"] = device ? json(device->name()) : json();
  row["batch_size"] = or_null(config.batch_size);
  row["width"] = or_null(config.width);
  // What the run computed in (a `fastest` config names no precision); reports from before
  // training.precision ran FP32.
  const std::optional<Precision> ran = field_of(report.environment, &RecordEnvironment::precision);
  const std::optional<Precision> precision =
      ran                ? ran
      : config.precision ? config.precision
                         : (report.config ? std::optional(Precision::fp32) : std::nullopt);
  row["precision"] = precision ? json(precision_name(*precision)) : json();
  // A mapping, as swept_axes and groups expect.
  const auto values = field_of(report.sweep_point, &RecordSweepPoint::values);
  row["values"] = values && values->is_object() ? *values : json::object();
  const auto step_time = [&](auto field) { return or_null(field_of(report.step_time, field)); };
  row["images_per_second"] = step_time(&RecordStepTime::images_per_second);
  row["whole_run_images_per_second"] =
      or_null(field_of(report.throughput, &RecordThroughput::train_images_per_second));
  row["step_time_median_seconds"] = step_time(&RecordStepTime::median_seconds);
  row["step_time_p10_seconds"] = step_time(&RecordStepTime::p10_seconds);
  row["step_time_p90_seconds"] = step_time(&RecordStepTime::p90_seconds);
  row["cpu_utilisation"] = or_null(field_of(report.cpu, &RecordCpu::utilisation));
  const auto gpu_percent = field_of(field_of(report.gpu, &RecordGpu::utilisation),
                                    &RecordGpuUtilisation::mean_gpu_percent);
  row["gpu_utilisation"] = gpu_percent ? json(*gpu_percent / 100) : json();
  row["gpu_memory_bytes"] = or_null(field_of(report.gpu, &RecordGpu::device_memory_bytes));
  row["threads"] = or_null(field_of(report.environment, &RecordEnvironment::threads));
  row["peak_memory_bytes"] = or_null(field_of(report.memory, &RecordMemory::peak_rss_bytes));
  const auto estimate = field_of(report.memory, &RecordMemory::estimate);
  row["estimated_memory_bytes"] =
      estimate && estimate->count("total") ? json(estimate->at("total")) : json();
  const auto flops = field_of(report.model, &RecordModel::flops_per_image);
  row["flops_per_image"] = or_null(flops);
  const auto ips = field_of(report.step_time, &RecordStepTime::images_per_second);
  // Training runs forward and backward: about three times the forward FLOPs.
  row["achieved_flops_per_second"] =
      ips && flops ? json(3.0 * static_cast<double>(*flops) * *ips) : json();
  const auto metric = [&](auto field) { return or_null(field_of(report.metrics, field)); };
  row["test_accuracy"] = metric(&RecordMetrics::test_accuracy);
  row["test_loss"] = metric(&RecordMetrics::test_loss);
  // Validation figures (dataset.validation_split): null for runs without a validation set.
  row["val_accuracy"] = metric(&RecordMetrics::val_accuracy);
  row["val_loss"] = metric(&RecordMetrics::val_loss);
  row["best_epoch"] = metric(&RecordMetrics::best_epoch);
  // The `metrics` list's figures (val_macro_f1, test_top5_accuracy), as a search's metric reads.
  if (report.metrics) {
    for (const auto& [key, value] : report.metrics->figures) row[key] = value;
  }
  row["stop_reason"] = report.stop_reason ? json(stop_reason_name(*report.stop_reason)) : json();
  row["final_loss"] = final_loss(report);
  row["speedup_over_cpu"] = nullptr;
  row["seed"] = seed_of(report);
  row["epochs"] = report.mode == RunMode::train ? or_null(config.epochs) : json();
  row["machine"] = machine_of(report);
  row["commit"] = commit_of(report);
  row["started_at"] = or_null(report.started_at);
  row["finished_at"] = or_null(report.finished_at);
  add_load(row, report);
  row["epoch_losses"] = epoch_losses(report);
  if (report.curves) row["curves"] = curves_of(report);
  row["report"] = report_path;
  return row;
}

void add_speedups(json& rows) {
  for (json& gpu : rows) {
    gpu["speedup_over_cpu"] = nullptr;
    if (!is_gpu(gpu["device"]) || !reported_status(gpu).is(RunStatus::completed) ||
        !gpu["images_per_second"].is_number())
      continue;
    for (const json& cpu : rows) {
      if (cpu["device"] != "cpu" || !reported_status(cpu).is(RunStatus::completed) ||
          !cpu["images_per_second"].is_number() || match_key(cpu) != match_key(gpu) ||
          cpu["images_per_second"].get<double>() <= 0) {
        continue;
      }
      gpu["speedup_over_cpu"] =
          gpu["images_per_second"].get<double>() / cpu["images_per_second"].get<double>();
      break;
    }
  }
}

json summarize_folder(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw UserError(fmt::format(
        "{}: not a folder; expected a sweep folder (e.g. results/sweeps/<name>)", dir.string()));
  }
  json rows = json::array();
  json unreadable = json::array();
  json manifest = read_json_leniently(dir / kSweepManifest);
  // Named by its last folder, also when given as "results/" or ".".
  std::filesystem::path normal = std::filesystem::absolute(dir).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  std::string name = normal.filename().string();
  if (manifest.is_object() && manifest.contains("points") && manifest["points"].is_array()) {
    if (manifest.contains("name") && manifest["name"].is_string()) name = manifest["name"];
    for (const json& point : manifest["points"]) {
      throw_if_interrupted("summarising the sweep");
      const std::string id = planned_id(point);
      if (id.empty()) {
        unreadable.push_back(
            {{"report", (dir / kSweepManifest).string()},
             {"error", fmt::format("{}: a point without a folder name ({}): left out",
                                   (dir / kSweepManifest).string(), shortened(point.dump(), 80))}});
        continue;
      }
      auto path = dir / id / "report.json";
      std::error_code ignored;
      json row = std::filesystem::exists(path, ignored) ? row_or_note(path, unreadable) : json();
      rows.push_back(row.is_object() ? row : missing_row(point));
    }
  } else {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      throw_if_interrupted("looking for reports");
      if (entry.path().filename() == "report.json") paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
      throw_if_interrupted("summarising the reports");
      json row = row_or_note(path, unreadable);
      if (row.is_object()) rows.push_back(std::move(row));
    }
    if (rows.empty() && !unreadable.empty())
      throw UserError(unreadable[0]["error"].get<std::string>());
    if (rows.empty()) {
      throw UserError(fmt::format("{}: no {} and no report.json below it; expected a sweep folder",
                                  dir.string(), kSweepManifest));
    }
  }
  add_speedups(rows);
  json summary = {{"schema_version", 1},
                  {"sweep", name},
                  {"directory", dir.string()},
                  {"created_at", timestamp_now()},
                  {"context", summary_context(manifest, rows)},
                  {"axes", swept_axes(rows)},
                  {"points", rows},
                  {"groups", group_rows(rows)}};
  if (!unreadable.empty()) summary["unreadable_reports"] = unreadable;
  if (json search = search_summary(manifest); search.is_object()) {
    if (json asha = asha_summary(manifest, dir, rows); asha.is_object()) search["asha"] = asha;
    summary["best"] = best_point(search, rows);
    summary["search"] = std::move(search);
  }
  return summary;
}

}  // namespace runner
