#include "runner/html/run_page.h"

#include <fmt/format.h>

#include "runner/html/html_page.h"
#include "runner/html/html_text.h"
#include "runner/html/json_fields.h"
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

std::string tags_text(const json& tags) {
  if (!tags.is_object()) return "";
  std::string out;
  for (const auto& [key, value] : tags.items())
    out += (out.empty() ? "" : ", ") + key + "=" + value_text(value);
  return out;
}

std::string argv_text(const json& argv) {
  if (!argv.is_array()) return "";
  std::vector<std::string> words;
  for (const json& word : argv) words.push_back(value_text(word));
  return shell_command(words);
}

std::string status_html(const json& report) {
  const std::string status = text_field(report, "/status");
  std::string out = fmt::format("<span class=\"status-{0}\">{0}</span>", escape_html(status));
  if (auto reason = text_field(report, "/stop_reason"); !reason.empty() && reason != "epochs")
    out += " (" + escape_html(reason) + ")";
  if (auto error = text_field(report, "/error"); !error.empty())
    out += ": <span class=\"bad\">" + escape_html(error) + "</span>";
  return out;
}

std::string header_html(const json& report, const RunPageLinks& links) {
  std::string out = fmt::format("<h1>{}</h1>\n<p>run {} · {} · {}</p>\n",
                                escape_html(text_field(report, "/name")),
                                escape_html(text_field(report, "/run_id")),
                                escape_html(text_field(report, "/mode")), status_html(report));
  std::vector<std::string> headline;
  const double accuracy = number_field(report, "/metrics/test_accuracy");
  if (std::isfinite(accuracy))
    headline.push_back("test accuracy " + figure_text(accuracy, "share"));
  const double val = number_field(report, "/metrics/val_accuracy");
  if (std::isfinite(val)) headline.push_back("validation accuracy " + figure_text(val, "share"));
  const double rate = number_field(report, "/step_time/median_step_images_per_second");
  if (std::isfinite(rate)) headline.push_back(figure_text(rate, "rate") + " images (median step)");
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

std::string machine_text(const json& env) {
  std::string out = text_field(env, "/hostname");
  if (auto cpu = text_field(env, "/cpu_model"); !cpu.empty()) out += " (" + cpu + ")";
  if (auto cores = text_field(env, "/cores"); !cores.empty()) out += ", " + cores + " cores";
  if (auto os = text_field(env, "/os"); !os.empty()) out += ", " + os;
  return out;
}

std::string backend_text(const json& report) {
  const json& env = field(report, "/environment");
  std::string out = text_field(report, "/backend");
  for (const auto& [key, label] :
       std::vector<std::pair<const char*, const char*>>{{"/onednn_version", "oneDNN"},
                                                        {"/onednn_isa", "ISA"},
                                                        {"/cudnn_version", "cuDNN"},
                                                        {"/cuda_runtime_version", "CUDA"},
                                                        {"/gpu_name", "GPU"},
                                                        {"/own_kernels", "own kernels"},
                                                        {"/precision", "precision"}}) {
    if (auto value = text_field(env, key); !value.empty())
      out += fmt::format(", {} {}", label, value);
  }
  return out;
}

std::string ran_section(const json& report) {
  const json& env = field(report, "/environment");
  std::string commit = text_field(env, "/git_commit");
  if (field(env, "/git_dirty") == json(true)) commit += " (with uncommitted changes)";
  return section("ran", "What ran",
                 facts_list({{"experiment", escape_html(text_field(report, "/name"))},
                             {"status", status_html(report)},
                             {"tags", escape_html(tags_text(field(report, "/tags")))},
                             {"command line", code(argv_text(field(report, "/argv")))},
                             {"config file", code(text_field(report, "/config_file"))},
                             {"config SHA-256", code(text_field(report, "/config_sha256"))},
                             {"seed", escape_html(text_field(report, "/seed"))},
                             {"started", escape_html(text_field(report, "/started_at"))},
                             {"finished", escape_html(text_field(report, "/finished_at"))},
                             {"commit", code(commit)},
                             {"runner", escape_html(text_field(env, "/runner_version") +
                                                    " built by " + text_field(env, "/compiler"))},
                             {"machine", escape_html(machine_text(env))},
                             {"device", escape_html(text_field(report, "/device"))},
                             {"backend", escape_html(backend_text(report))},
                             {"threads", escape_html(text_field(env, "/threads"))}}));
}

std::string data_section(const json& report) {
  const json& data = field(report, "/data");
  if (!data.is_object()) return "";
  std::string counts;
  for (const auto& [key, label] :
       std::vector<std::pair<const char*, const char*>>{{"/train_images", "training"},
                                                        {"/validation_images", "validation"},
                                                        {"/test_images", "test"}}) {
    const double n = number_field(data, key);
    if (std::isfinite(n))
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", grouped_digits(n), label);
  }
  std::string body = facts_list({
      {"format", escape_html(text_field(data, "/name"))},
      {"root", code(text_field(report, "/config/dataset/root"))},
      {"images", escape_html(counts)},
      {"classes", escape_html(value_text(field(data, "/class_names")))},
      {"fingerprint (SHA-256)", code(text_field(data, "/sha256"))},
  });
  const json& files = field(data, "/files");
  if (files.is_array() && !files.empty()) {
    std::string list;
    for (const json& file : files)
      list += fmt::format("{}  {}  {}\n", text_field(file, "/sha256"), text_field(file, "/bytes"),
                          text_field(file, "/path"));
    body += collapsible(fmt::format("{} file(s) read", files.size()),
                        "<pre>" + escape_html(list) + "</pre>");
  }
  return section("data", "Data", body);
}

std::string reproduce_section(const json& report, const std::filesystem::path& report_file) {
  const json& checkpoint = field(report, "/checkpoint");
  std::string body;
  if (checkpoint.is_object()) {
    std::string kept = text_field(checkpoint, "/path");
    if (auto epoch = text_field(checkpoint, "/best_epoch"); !epoch.empty())
      kept += fmt::format(" (epoch {}, the best by {})", epoch, text_field(checkpoint, "/monitor"));
    body += facts_list({{"checkpoint", code(kept)},
                        {"last epoch's", code(text_field(checkpoint, "/last_path"))},
                        {"epochs saved", escape_html(text_field(checkpoint, "/epochs_done"))},
                        {"not saved", escape_html(text_field(checkpoint, "/error"))}});
  } else {
    body +=
        "<p>No checkpoint was saved (set <code>checkpoint.path</code> to keep the weights).</p>\n";
  }
  body += "<p>Rerun it and compare every figure:</p>\n<pre>" +
          escape_html(shell_command(
              {"runner", "reproduce", std::filesystem::absolute(report_file).string()})) +
          "</pre>\n";
  return section("reproduce", "Checkpoint and reproducing", body);
}

std::string config_section(const json& report) {
  const json& config = field(report, "/config");
  if (config.is_null()) return "";
  return section(
      "config", "Resolved config",
      collapsible("the config as it ran (every default filled in)",
                  "<pre>" +
                      escape_html(config.dump(2, ' ', false, json::error_handler_t::replace)) +
                      "</pre>"));
}

}  // namespace

std::string run_page(const json& report, const std::filesystem::path& report_file,
                     const RunPageLinks& links) {
  const std::string body =
      ran_section(report) + data_section(report) + curves_section(report) + epochs_section(report) +
      classes_section(report) + performance_section(report) + profile_section(report) +
      layers_section(report) + reproduce_section(report, report_file) + config_section(report);
  return html_page(fmt::format("{} {}", text_field(report, "/name"), text_field(report, "/run_id")),
                   header_html(report, links), body);
}

std::filesystem::path write_run_page(const json& report, const std::filesystem::path& report_file,
                                     const RunPageLinks& links) {
  const auto path = report_file.parent_path() / "report.html";
  write_file_atomically(path, run_page(report, report_file, links));
  return path;
}

std::filesystem::path write_page_of_run(const nlohmann::json& report,
                                        const std::filesystem::path& report_file) {
  return write_run_page(report, report_file);
}

}  // namespace runner
