// The image caches' readers from arbitrary bytes: the decoded-image cache
// (<fingerprint>-CxHxW.images) and the per-root hash cache (hashes-*.txt). Run by the report fuzz
// target on each input, beside the report readers, and so by sweep_tests on its crash inputs.
#pragma once

#include <filesystem>
#include <string>

namespace runner::fuzzing {

// Writes `text` in `folder` (one the caller owns) as each cache and reads it back as a run does:
// as the decoded cache of a fixed key as it is, and after that key's valid header with the counts
// of images and of skipped bytes taken from the text's first 16 bytes; a set whose skipped files
// are cut from the text, written and read back; the hash cache of a folder as it is and after
// its valid first line. A cache that does not parse must read as absent, and one the runner wrote
// as what was written: anything else, or anything escaping, is a defect (an abort).
void check_cache_files(const std::string& text, const std::filesystem::path& folder);

}  // namespace runner::fuzzing
