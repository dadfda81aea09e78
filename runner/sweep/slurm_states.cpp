// Reading squeue's and sacct's lines about a job array's tasks.
#include "runner/sweep/slurm_states.h"

#include <charconv>
#include <set>
#include <sstream>
#include <vector>

namespace runner {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

// A whole non-negative number, or -1.
int number(const std::string& text) {
  int value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= 0 ? value : -1;
}

// "3", "[3-5,7%2]" -> {3, 4, 5, 7}; empty when it is neither.
std::vector<int> task_numbers(std::string text) {
  std::vector<int> tasks;
  if (text.size() > 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
    text = text.substr(0, text.find('%'));  // the throttle
  }
  for (const std::string& part : split(text, ',')) {
    std::size_t dash = part.find('-');
    int low = number(part.substr(0, dash));
    int high = dash == std::string::npos ? low : number(part.substr(dash + 1));
    if (low < 0 || high < low || high - low > 1'000'000) return {};
    for (int t = low; t <= high; ++t) tasks.push_back(t);
  }
  return tasks;
}

}  // namespace

TaskPhase task_phase(const std::string& state) {
  static const std::set<std::string> pending = {"PENDING",     "REQUEUED",      "REQUEUE_HOLD",
                                                "REQUEUE_FED", "RESV_DEL_HOLD", "CONFIGURING"};
  static const std::set<std::string> running = {"RUNNING",   "COMPLETING", "SUSPENDED",
                                                "STAGE_OUT", "SIGNALING",  "RESIZING"};
  if (pending.count(state)) return TaskPhase::pending;
  if (running.count(state)) return TaskPhase::running;
  return TaskPhase::ended;
}

std::map<int, std::string> parse_task_states(const std::string& output, const std::string& job_id) {
  std::map<int, std::string> states;
  const std::string prefix = job_id + "_";
  for (std::string line : split(output, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields = split(line, '|');
    if (fields.size() < 2 || !fields[0].starts_with(prefix)) continue;
    std::string state = split(fields[1] + " ", ' ').front();  // "CANCELLED by 0"
    if (state.empty()) continue;
    for (int task : task_numbers(fields[0].substr(prefix.size()))) states[task] = state;
  }
  return states;
}

}  // namespace runner
