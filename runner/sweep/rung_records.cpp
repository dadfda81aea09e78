#include "runner/sweep/rung_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/report/read_report.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/file_lock.h"
#include "runner/util/files.h"
#include "runner/util/long_text.h"

namespace runner {
namespace {

using nlohmann::json;

json entry_json(const RungEntry& e) {
  return {{"id", e.id},
          {"point_sha256", e.point_sha},
          {"rung", e.rung},
          {"value", e.value ? json(*e.value) : json()},
          {"continued", e.continued}};
}

std::optional<RungEntry> entry_from(const json& item) {
  if (!item.is_object()) return std::nullopt;
  RungEntry e;
  e.id = text_at(item, "/id");
  e.point_sha = text_at(item, "/point_sha256");
  const json rung = item.value("rung", json());
  const json value = item.value("value", json());
  const json continued = item.value("continued", json());
  if (e.id.empty() || !rung.is_number_integer() || !continued.is_boolean()) return std::nullopt;
  if (!value.is_null() && !value.is_number()) return std::nullopt;
  e.rung = rung.get<int>();
  if (value.is_number() && std::isfinite(value.get<double>())) e.value = value.get<double>();
  e.continued = continued.get<bool>();
  return e;
}

// The verdict of `entries[at]` against the entries at its rung before it.
RungVerdict verdict_at(const std::vector<RungEntry>& entries, std::size_t at,
                       const AshaSpec& spec) {
  std::vector<std::optional<double>> earlier;
  for (std::size_t i = 0; i < at; ++i) {
    if (entries[i].rung == entries[at].rung) earlier.push_back(entries[i].value);
  }
  return asha_verdict(earlier, entries[at].value, spec.maximize, spec.reduction_factor);
}

// The records `file` (the parsed asha.json) holds; entries of other shapes are left out.
std::vector<RungEntry> entries_in(const json& file) {
  std::vector<RungEntry> entries;
  if (!file.is_object() || !file.contains("records") || !file["records"].is_array()) return entries;
  for (const json& item : file["records"]) {
    if (auto entry = entry_from(item)) entries.push_back(std::move(*entry));
  }
  return entries;
}

// Before the records are written again: a record this runner cannot read is a UserError naming
// it, and the file stays as it is (rewriting it would drop that decision without a word).
void refuse_unreadable_records(const json& file, const std::filesystem::path& path) {
  const auto refuse = [&](const std::string& what) {
    throw UserError(fmt::format(
        "{}: {}; expected records of id, point_sha256, rung (a whole number), value (a number or "
        "null) and continued (true or false): the file is left as it is; mend it, or move it "
        "away to start the rungs afresh",
        path.string(), what));
  };
  if (!file.contains("records")) return;
  if (!file["records"].is_array())
    refuse("records: found " + shortened(file["records"].dump(), 80));
  for (std::size_t i = 0; i < file["records"].size(); ++i) {
    const json& item = file["records"][i];
    if (!entry_from(item))
      refuse(fmt::format("records[{}]: found {}", i, shortened(item.dump(), 120)));
  }
}

}  // namespace

std::vector<RungEntry> read_rung_records(const std::filesystem::path& sweep_dir) {
  return entries_in(read_json_leniently(sweep_dir / kRungRecords));
}

std::vector<RungCount> rung_counts(const std::vector<RungEntry>& entries) {
  std::vector<RungCount> counts;
  for (const RungEntry& e : entries) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const RungCount& c) { return c.rung == e.rung; });
    if (it == counts.end()) it = counts.insert(counts.end(), RungCount{e.rung, 0, 0});
    ++it->recorded;
    it->continued += e.continued;
  }
  std::sort(counts.begin(), counts.end(),
            [](const RungCount& a, const RungCount& b) { return a.rung < b.rung; });
  return counts;
}

std::string rung_counts_text(const std::vector<RungCount>& counts) {
  if (counts.empty()) return "no rung reached yet";
  std::string text;
  for (const RungCount& c : counts) {
    text += fmt::format("{}after epoch {}: {} recorded, {} went on", text.empty() ? "" : "; ",
                        c.rung, c.recorded, c.continued);
  }
  return text;
}

RungVerdict record_at_rung(const std::filesystem::path& sweep_dir, const AshaSpec& spec,
                           RungEntry entry) {
  FileLock lock(sweep_dir / kRungLock);
  const std::filesystem::path file = sweep_dir / kRungRecords;
  const json recorded = read_json_leniently(file);
  std::error_code ignored;
  if (!recorded.is_object() && std::filesystem::exists(file, ignored)) {
    // Rewriting it would lose every decision made so far.
    throw UserError(fmt::format(
        "{}: not readable as the sweep's ASHA records (a JSON object); move it away to start "
        "the rungs afresh",
        file.string()));
  }
  if (recorded.is_object()) refuse_unreadable_records(recorded, file);
  std::vector<RungEntry> entries = entries_in(recorded);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const RungEntry& e = entries[i];
    if (e.id == entry.id && e.point_sha == entry.point_sha && e.rung == entry.rung) {
      RungVerdict verdict = verdict_at(entries, i, spec);
      verdict.continued = e.continued;  // as decided then, whatever the rule says now
      return verdict;
    }
  }
  std::erase_if(entries, [&](const RungEntry& e) {
    return e.id == entry.id && e.point_sha != entry.point_sha;
  });
  entries.push_back(entry);
  RungVerdict verdict = verdict_at(entries, entries.size() - 1, spec);
  entries.back().continued = verdict.continued;
  json records = json::array();
  for (const RungEntry& e : entries) records.push_back(entry_json(e));
  write_json_atomically(file, {{"records", records}});
  return verdict;
}

}  // namespace runner
