// The head of summary.md.
#include "runner/sweep/summary_header.h"

#include <fmt/format.h>

#include "runner/report/read_report.h"
#include "runner/sweep/summary_context.h"
#include "runner/sweep/summary_groups.h"

namespace runner {
namespace {

using nlohmann::json;

std::string joined(const json& values, const char* separator) {
  std::vector<std::string> parts;
  for (const json& v : values) parts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  return fmt::format("{}", fmt::join(parts, separator));
}

std::string mode_text(const json& context) {
  const json& mode = context["mode"];
  const std::optional<RunMode> run_mode = reported_mode(context);
  if (run_mode == RunMode::benchmark && context["benchmark"].is_object()) {
    const json& b = context["benchmark"];
    return fmt::format("benchmark, {} warm-up and {} timed steps per run",
                       b.value("warmup_steps", 0), b.value("steps", 0));
  }
  if (run_mode == RunMode::train && !context["epochs"].empty()) {
    bool one = context["epochs"] == json{1};
    return fmt::format("train, {} epoch{}", joined(context["epochs"], " or "), one ? "" : "s");
  }
  return mode.is_string() ? mode.get<std::string>() : "unknown";
}

std::string runs_text(const json& summary, const json& groups) {
  const json& rows = summary["points"];
  int completed = 0, stopped = 0, busy = 0;
  for (const json& row : rows) {
    completed += reported_status(row).is(RunStatus::completed);
    stopped += reported_status(row).is(RunStatus::stopped_early);
    busy += row.value("busy", json()) == true;
  }
  std::size_t most = 0;
  for (const json& g : groups) most = std::max(most, g["runs"].get<std::size_t>());
  std::string out = fmt::format(
      "{} point group{}, {} run{} ({} completed{})", groups.size(), groups.size() == 1 ? "" : "s",
      rows.size(), rows.size() == 1 ? "" : "s", completed,
      stopped ? fmt::format(", {} stopped early by ASHA", stopped) : std::string());
  if (most > 1) out += fmt::format("; up to {} runs per point (seeds)", most);
  if (busy > 0) {
    out += fmt::format(
        "\n- busy machine: {} run{} started or ended with a load average above the cores "
        "(marked busy below): their timings are noisy",
        busy, busy == 1 ? "" : "s");
  }
  return out;
}

}  // namespace

std::string summary_header(const json& summary) {
  std::string out = fmt::format("# Sweep {}\n\n", summary["sweep"].get<std::string>());
  const json context =
      summary.contains("context") ? summary["context"] : summary_context(json(), summary["points"]);
  const json groups =
      summary.contains("groups") ? summary["groups"] : group_rows(summary["points"]);
  auto listed = [&](const char* field) {
    return context[field].empty() ? std::string("unknown") : joined(context[field], "; ");
  };
  std::string date = context["started_at"].is_string()
                         ? fmt::format("{} to {}", context["started_at"].get<std::string>(),
                                       context["finished_at"].is_string()
                                           ? context["finished_at"].get<std::string>()
                                           : "?")
                         : "no runs yet";
  out += fmt::format("- mode: {}\n", mode_text(context));
  out += fmt::format("- runs: {}\n", runs_text(summary, groups));
  out += fmt::format("- machine: {}\n", listed("machines"));
  out += fmt::format("- commit: {}\n", listed("commits"));
  out += fmt::format("- date: {} (summary made {})\n", date,
                     summary.value("created_at", std::string("?")));
  return out;
}

}  // namespace runner
