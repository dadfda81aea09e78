#include "runner/html/run_page.h"

#include <fmt/format.h>

#include "runner/html/html_page.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
#include "runner/html/record_text.h"
#include "runner/html/run_sections.h"
#include "runner/util/command_line.h"
#include "runner/util/figure_text.h"
#include "runner/util/files.h"

namespace runner {
namespace {

using nlohmann::json;

std::string code(const std::string& text) {
  return text.empty() ? "" : "<code>" + escape_html(text) + "</code>";
}

// The tags as "key=value, ...": a map of any values, shown as they are.
std::string tags_text(const std::optional<json>& tags) {
  if (!tags || !tags->is_object()) return "";
  std::string out;
  for (const auto& [key, value] : tags->items())
    out += (out.empty() ? "" : ", ") + key + "=" + value_text(value);
  return out;
}

// A running run's page reloads itself this often (its live report is rewritten every epoch).
constexpr int kLiveRefreshSeconds = 10;

std::string status_html(const RunRecord& record) {
  std::string out =
      fmt::format("<span class=\"status-{0}\">{0}</span>", escape_html(text_of(record.status)));
  // Running all its epochs is how a run ends by default: only another reason is news.
  if (record.stop_reason && *record.stop_reason != StopReason::epochs)
    out += " (" + escape_html(text_of(record.stop_reason)) + ")";
  if (auto error = text_of(record.error); !error.empty())
    out += ": <span class=\"bad\">" + escape_html(error) + "</span>";
  if (record.progress) {  // a live report: where the run is
    const RecordProgress& p = *record.progress;
    out += fmt::format(", epoch {} of {}", p.epochs_done.value_or(0), p.epochs_planned.value_or(0));
    if (p.seconds_left) out += fmt::format(", about {:.0f} s left", *p.seconds_left);
    out += fmt::format(" (this page reloads every {} s)", kLiveRefreshSeconds);
  }
  if (record.segments && record.segments->size() > 1) {  // one run, resumed in its folder
    std::vector<std::string> stretches;
    for (const RecordSegment& s : *record.segments) {
      stretches.push_back(fmt::format("epochs {}-{} {} ({})", s.first_epoch.value_or(0) + 1,
                                      s.epochs_done.value_or(0), text_of(s.ended),
                                      text_of(s.started_at)));
    }
    out += "; ran in " + escape_html(fmt::format("{}", fmt::join(stretches, ", then ")));
  }
  return out;
}

std::string header_html(const RunRecord& record, const RunPageLinks& links) {
  std::string out = fmt::format(
      "<h1>{}</h1>\n<p>run {} · {} · {}</p>\n", escape_html(text_of(record.name)),
      escape_html(text_of(record.run_id)), escape_html(text_of(record.mode)), status_html(record));
  const RecordMetrics& metrics = or_empty(record.metrics);
  std::vector<std::string> headline;
  if (auto accuracy = figure_of(metrics.test_accuracy, "share"); !accuracy.empty())
    headline.push_back("test accuracy " + accuracy);
  if (auto val = figure_of(metrics.val_accuracy, "share"); !val.empty())
    headline.push_back("validation accuracy " + val);
  const auto& rate = or_empty(record.step_time).median_step_images_per_second;
  if (auto text = figure_of(rate, "rate"); !text.empty())
    headline.push_back(text + " images (median step)");
  if (!headline.empty())
    out += "<p><strong>" + escape_html(fmt::format("{}", fmt::join(headline, " · "))) +
           "</strong></p>\n";
  out += "<nav>";
  if (!links.up.empty())
    out +=
        fmt::format("<a href=\"{}\">↑ {}</a>", escape_html(links.up), escape_html(links.up_text));
  for (const char* part : {"ran", "data", "curves", "epochs", "classes", "performance", "model",
                           "reproduce", "config"})
    out += fmt::format("<a href=\"#{0}\">{0}</a>", part);
  return out + "</nav>\n";
}

std::string machine_text(const RecordEnvironment& env) {
  std::string out = text_of(env.hostname);
  if (auto cpu = text_of(env.cpu_model); !cpu.empty()) out += " (" + cpu + ")";
  if (auto cores = text_of(env.cores); !cores.empty()) out += ", " + cores + " cores";
  if (auto os = text_of(env.os); !os.empty()) out += ", " + os;
  return out;
}

std::string backend_text(const RunRecord& record) {
  const RecordEnvironment& env = or_empty(record.environment);
  std::string out = text_of(record.backend);
  for (const auto& [label, value] :
       std::vector<std::pair<const char*, std::string>>{{"oneDNN", text_of(env.onednn_version)},
                                                        {"ISA", text_of(env.onednn_isa)},
                                                        {"cuDNN", text_of(env.cudnn_version)},
                                                        {"CUDA", text_of(env.cuda_runtime)},
                                                        {"GPU", text_of(env.gpu_name)},
                                                        {"own kernels", text_of(env.own_kernels)},
                                                        {"precision", text_of(env.precision)}}) {
    if (!value.empty()) out += fmt::format(", {} {}", label, value);
  }
  return out;
}

std::string ran_section(const RunRecord& record) {
  const RecordEnvironment& env = or_empty(record.environment);
  std::string commit = text_of(env.git_commit);
  if (env.git_dirty == true) commit += " (with uncommitted changes)";
  const std::string argv = record.argv ? shell_command(*record.argv) : "";
  return section("ran", "What ran",
                 facts_list({{"experiment", escape_html(text_of(record.name))},
                             {"status", status_html(record)},
                             {"tags", escape_html(tags_text(record.tags))},
                             {"command line", code(argv)},
                             {"config file", code(text_of(record.config_file))},
                             {"config SHA-256", code(text_of(record.config_sha256))},
                             {"seed", escape_html(text_of(record.seed))},
                             {"started", escape_html(text_of(record.started_at))},
                             {"finished", escape_html(text_of(record.finished_at))},
                             {"commit", code(commit)},
                             {"runner", escape_html(text_of(env.runner_version) + " built by " +
                                                    text_of(env.compiler))},
                             {"machine", escape_html(machine_text(env))},
                             {"device", escape_html(text_of(record.device))},
                             {"backend", escape_html(backend_text(record))},
                             {"threads", escape_html(text_of(env.threads))}}));
}

// "45,000 training, 5,000 validation, 10,000 test": the sets the data has.
std::string image_counts(const RecordData& data) {
  std::string counts;
  for (const auto& [n, label] : std::vector<std::pair<std::optional<std::int64_t>, const char*>>{
           {data.train_images, "training"},
           {data.validation_images, "validation"},
           {data.test_images, "test"}}) {
    if (n) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", grouped_digits(*n), label);
  }
  return counts;
}

std::string files_read(const std::vector<RecordDataFile>& files) {
  std::string list;
  for (const RecordDataFile& file : files)
    list +=
        fmt::format("{}  {}  {}\n", text_of(file.sha256), text_of(file.bytes), text_of(file.path));
  return collapsible(fmt::format("{} file(s) read", files.size()),
                     "<pre>" + escape_html(list) + "</pre>");
}

std::string data_section(const RunRecord& record) {
  if (!record.data) return "";
  const RecordData& data = *record.data;
  const std::string classes =
      data.class_names ? fmt::format("{}", fmt::join(*data.class_names, ", ")) : "";
  std::string body = facts_list({
      {"format", escape_html(text_of(data.name))},
      {"root", code(text_of(record.config_facts().dataset_root))},
      {"images", escape_html(image_counts(data))},
      {"classes", escape_html(classes)},
      {"fingerprint (SHA-256)", code(text_of(data.sha256))},
  });
  if (data.files && !data.files->empty()) body += files_read(*data.files);
  return section("data", "Data", body);
}

std::string checkpoint_facts(const RecordCheckpoint& checkpoint) {
  std::string kept = text_of(checkpoint.path);
  if (checkpoint.best_epoch) {
    kept += fmt::format(" (epoch {}, the best by {})", *checkpoint.best_epoch,
                        text_of(checkpoint.monitor));
  }
  return facts_list({{"checkpoint", code(kept)},
                     {"last epoch's", code(text_of(checkpoint.last_path))},
                     {"epochs saved", escape_html(text_of(checkpoint.epochs_done))},
                     {"not saved", escape_html(text_of(checkpoint.error))}});
}

std::string reproduce_section(const RunRecord& record, const std::filesystem::path& report_file) {
  std::string body = record.checkpoint ? checkpoint_facts(*record.checkpoint)
                                       : "<p>No checkpoint was saved (set "
                                         "<code>checkpoint.path</code> to keep the weights).</p>\n";
  body += "<p>Rerun it and compare every figure:</p>\n<pre>" +
          escape_html(shell_command(
              {"runner", "reproduce", std::filesystem::absolute(report_file).string()})) +
          "</pre>\n";
  return section("reproduce", "Checkpoint and reproducing", body);
}

std::string config_section(const RunRecord& record) {
  if (!record.config || record.config->is_null()) return "";
  return section("config", "Resolved config",
                 collapsible("the config as it ran (every default filled in)",
                             "<pre>" +
                                 escape_html(record.config->dump(2, ' ', false,
                                                                 json::error_handler_t::replace)) +
                                 "</pre>"));
}

}  // namespace

std::string run_page(const RunRecord& record, const std::filesystem::path& report_file,
                     const RunPageLinks& links) {
  const std::string body =
      ran_section(record) + data_section(record) + curves_section(record) + epochs_section(record) +
      classes_section(record) + performance_section(record) + profile_section(record) +
      layers_section(record) + reproduce_section(record, report_file) + config_section(record);
  const bool running = record.status && *record.status == RunStatus::running;
  return html_page(fmt::format("{} {}", text_of(record.name), text_of(record.run_id)),
                   header_html(record, links), body, running ? kLiveRefreshSeconds : 0);
}

std::filesystem::path write_run_page(const RunRecord& record,
                                     const std::filesystem::path& report_file,
                                     const RunPageLinks& links) {
  const auto path = report_file.parent_path() / "report.html";
  write_file_atomically(path, run_page(record, report_file, links));
  return path;
}

std::filesystem::path write_page_of_run(const RunRecord& report,
                                        const std::filesystem::path& report_file) {
  return write_run_page(report, report_file);
}

}  // namespace runner
