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

namespace runner {
namespace {

using nlohmann::json;

// The value at a JSON pointer ("/step_time/median_seconds"), or null.
json at(const json& value, const char* pointer) {
  json::json_pointer p(pointer);
  return value.contains(p) ? value[p] : json();
}

// A report's summary row; a file that is not a report (corrupt, edited, another tool's JSON) is
// recorded in `unreadable` with the reason and left out, so one bad file does not hide the rest.
// Reports are read leniently (not against the whole schema): older runners wrote fewer fields.
json row_or_note(const std::filesystem::path& path, json& unreadable) {
  auto note = [&](const std::string& why) {
    unreadable.push_back({{"report", path.string()}, {"error", path.string() + ": " + why}});
    return json();
  };
  auto listed = [&](const UserError& error) {  // its message names the file
    unreadable.push_back({{"report", path.string()}, {"error", error.what()}});
    return json();
  };
  std::string text;
  try {
    text = read_regular_file(path, kMaxReportBytes, "a JSON report");
  } catch (const UserError& error) {
    return listed(error);
  }
  json report = parse_bounded_json(text, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.is_object()) return note("not a JSON report");
  if (report.contains("status")) {
    if (std::string why = status_problem(report); !why.empty()) {
      return note("not a report of this runner (" + why + ")");
    }
  }
  try {
    return summary_row(report, path.string());
  } catch (const json::exception& error) {  // a field of the wrong type
    std::string what = error.what();
    return note("not a report of this runner (" + what.substr(what.find("] ") + 2) + ")");
  } catch (const UserError& error) {  // a value summary_row checks itself
    return listed(error);
  }
}

// The last epoch's training loss. No const operator[] on a key that may be missing: nlohmann
// does not check it (report_fuzzer read past a map's end with an epoch without train_loss).
json final_loss(const json& report) {
  if (report.contains("benchmark")) return at(report, "/benchmark/mean_loss");
  const json epochs = at(report, "/epochs");
  if (!epochs.is_array() || epochs.empty() || !epochs.back().is_object()) return nullptr;
  return epochs.back().value("train_loss", json());
}

// Each epoch's training and test loss (train mode), for the loss-versus-epoch plot. The groups
// key their statistics on the epoch as an int: any other number (a string, 1.5, 1e300 once
// escaped group_rows as a type_error or a float-to-int overflow) is a UserError naming the file.
json epoch_losses(const json& report, const std::string& report_path) {
  json out = json::array();
  if (!report.contains("epochs") || !report["epochs"].is_array()) return out;
  for (const json& epoch : report["epochs"]) {
    const json& number = epoch.at("epoch");
    if (!number.is_number_integer() || number < 1 || number > std::numeric_limits<int>::max()) {
      throw UserError(fmt::format(
          "{}: not a report of this runner (epochs: epoch {}, expected a whole number from 1)",
          report_path, number.dump()));
    }
    out.push_back({{"epoch", number},
                   {"train_loss", epoch.value("train_loss", json())},
                   {"test_loss", epoch.value("test_loss", json())}});
  }
  return out;
}

// The seed of the point's values (repeats, a seed axis), else the one the run used.
json seed_of(const json& report) {
  json from_values = at(report, "/sweep_point/values/seed");
  return from_values.is_null() ? at(report, "/seed") : from_values;
}

json machine_of(const json& report) {
  std::string host = text_at(report, "/environment/hostname");
  std::string cpu = text_at(report, "/environment/cpu_model");
  if (host.empty() && cpu.empty()) return nullptr;
  return cpu.empty() ? host : fmt::format("{} ({})", host, cpu);
}

json commit_of(const json& report) {
  std::string commit = text_at(report, "/environment/git_commit");
  if (commit.empty()) return nullptr;
  return at(report, "/environment/git_dirty") == true ? commit + " (dirty)" : commit;
}

// The machine's load while the point ran (`machine_load`): the higher of the load averages at
// its start and end, and whether that was above the cores (a busy machine: noisy timings).
void add_load(json& row, const json& report) {
  json cores = at(report, "/machine_load/cores");
  json start = at(report, "/machine_load/load_average_start");
  json end = at(report, "/machine_load/load_average_end");
  row["cores"] = cores;
  row["load_average"] = nullptr;
  row["busy"] = nullptr;
  if (!start.is_number() && !end.is_number()) return;
  double load = std::max(start.is_number() ? start.get<double>() : 0.0,
                         end.is_number() ? end.get<double>() : 0.0);
  row["load_average"] = load;
  if (cores.is_number()) row["busy"] = load > cores.get<double>();
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
  json row = summary_row(json::object(), "");
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

json summary_row(const json& report, const std::string& report_path) {
  json row;
  row["id"] =
      report.contains("sweep_point") ? at(report, "/sweep_point/id") : at(report, "/run_id");
  row["index"] = at(report, "/sweep_point/index");
  // A report without a status is shown as missing; one with a status this runner does not know
  // is a UserError (its folder's summary lists it as unreadable).
  row["status"] =
      report.contains("status") ? status_name(report_status(report, report_path)) : "missing";
  row["error"] = at(report, "/error");
  row["mode"] = at(report, "/mode");
  row["experiment"] = report.contains("name") ? report["name"] : at(report, "/config/name");
  row["device"] = report.contains("device") ? report["device"] : at(report, "/config/device");
  row["batch_size"] = at(report, "/config/training/batch_size");
  row["width"] = at(report, "/config/model/width");
  // Reports from before training.precision ran FP32.
  json precision = at(report, "/config/training/precision");
  row["precision"] = precision.is_null() && report.contains("config") ? json("fp32") : precision;
  json values = at(report, "/sweep_point/values");  // a mapping, as swept_axes and groups expect
  row["values"] = values.is_object() ? values : json::object();
  row["images_per_second"] = at(report, "/step_time/images_per_second");
  row["whole_run_images_per_second"] = at(report, "/throughput/train_images_per_second");
  row["step_time_median_seconds"] = at(report, "/step_time/median_seconds");
  row["step_time_p10_seconds"] = at(report, "/step_time/p10_seconds");
  row["step_time_p90_seconds"] = at(report, "/step_time/p90_seconds");
  row["cpu_utilisation"] = at(report, "/cpu/utilisation");
  json gpu_percent = at(report, "/gpu/utilisation/mean_gpu_percent");
  row["gpu_utilisation"] = gpu_percent.is_number() ? json(gpu_percent.get<double>() / 100) : json();
  row["gpu_memory_bytes"] = at(report, "/gpu/device_memory_bytes");
  row["threads"] = at(report, "/environment/threads");
  row["peak_memory_bytes"] = at(report, "/memory/peak_rss_bytes");
  row["estimated_memory_bytes"] = at(report, "/memory/estimate/total");
  row["flops_per_image"] = at(report, "/model/flops_per_image");
  json ips = row["images_per_second"], flops = row["flops_per_image"];
  // Training runs forward and backward: about three times the forward FLOPs.
  row["achieved_flops_per_second"] = ips.is_number() && flops.is_number()
                                         ? json(3.0 * flops.get<double>() * ips.get<double>())
                                         : json();
  row["test_accuracy"] = at(report, "/metrics/test_accuracy");
  row["test_loss"] = at(report, "/metrics/test_loss");
  // Validation figures (dataset.validation_split): null for runs without a validation set.
  row["val_accuracy"] = at(report, "/metrics/val_accuracy");
  row["val_loss"] = at(report, "/metrics/val_loss");
  row["best_epoch"] = at(report, "/metrics/best_epoch");
  row["stop_reason"] = at(report, "/stop_reason");
  row["final_loss"] = final_loss(report);
  row["speedup_over_cpu"] = nullptr;
  row["seed"] = seed_of(report);
  row["epochs"] =
      reported_mode(row) == RunMode::train ? at(report, "/config/training/epochs") : json();
  row["machine"] = machine_of(report);
  row["commit"] = commit_of(report);
  row["started_at"] = at(report, "/started_at");
  row["finished_at"] = at(report, "/finished_at");
  add_load(row, report);
  row["epoch_losses"] = epoch_losses(report, report_path);
  // The loss per step and accuracy per epoch, for the sweep's curve plots (train mode only).
  if (report.contains("curves") && report["curves"].is_object()) row["curves"] = report["curves"];
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
                                   (dir / kSweepManifest).string(), point.dump().substr(0, 80))}});
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
