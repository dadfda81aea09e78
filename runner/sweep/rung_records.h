// ASHA's records in the sweep folder (asha.json): each trial's figure at each rung it reached
// and whether it went on, in the order recorded. Every process of a sweep (the sweep itself, its
// --jobs children, its Slurm tasks) records and decides under one lock (asha.lock), so two trials
// never both take the last place of a rung; a trial that runs again (resumed after Ctrl-C or
// kill -9) gets the decision it had, and nothing is run twice or lost.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/sweep/asha.h"

namespace runner {

inline constexpr const char* kRungRecords = "asha.json";
inline constexpr const char* kRungLock = "asha.lock";

// The records under `sweep_dir`, in the order recorded; entries the runner does not write (a
// forged or damaged file) are left out. Empty when there is no file.
std::vector<RungEntry> read_rung_records(const std::filesystem::path& sweep_dir);

// How many trials were recorded at each rung and how many of them went on, by rung.
struct RungCount {
  int rung = 0;  // epochs
  int recorded = 0;
  int continued = 0;
};
std::vector<RungCount> rung_counts(const std::vector<RungEntry>& entries);

// "after epoch 1: 8 recorded, 2 went on; after epoch 3: 2 recorded, 1 went on", or "no rung
// reached yet".
std::string rung_counts_text(const std::vector<RungCount>& counts);

// Records `entry` (its `continued` is decided here) and returns the verdict: against the trials
// recorded at the rung before it. A trial recorded there already with the same point_sha gets
// its recorded decision; records of its id with another point_sha (the point changed) are
// dropped first.
RungVerdict record_at_rung(const std::filesystem::path& sweep_dir, const AshaSpec& spec,
                           RungEntry entry);

}  // namespace runner
