// TensorBoard event files (events.out.tfevents.<seconds>.<host>): TFRecord framing (the length,
// its masked CRC-32C, the record, its masked CRC-32C) around tensorflow.Event protocol buffers.
// The few messages written here (file_version, scalar, text and plugin summaries) are encoded by
// hand in the protobuf wire format: fixed messages of a handful of fields, where Debian's
// libprotobuf would add protoc to the build, a generated file and a 3 MB library to every binary
// (and the GPU bundle) for the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "runner/util/folders.h"

namespace runner {

class EventFileWriter {
 public:
  // Creates `dir` and a new event file in it, and writes its file_version event. A UserError
  // naming the file when it cannot be made, or the link when one is where `dir` goes.
  explicit EventFileWriter(const FolderInside& dir);

  // A scalar summary (TensorBoard's Scalars tab) of `tag` at global step `step`.
  void scalar(const std::string& tag, std::int64_t step, double value);
  // A text summary (the Text tab; markdown) of `tag` at `step`.
  void text(const std::string& tag, std::int64_t step, const std::string& markdown);
  // A summary whose data is a plugin's `content` (SummaryMetadata.plugin_data), as the hparams
  // plugin reads its protos.
  void plugin_summary(const std::string& tag, std::int64_t step, const std::string& plugin_name,
                      const std::string& content);
  // Hands what was written to the file system, so a running TensorBoard shows it.
  void flush();

  const std::filesystem::path& path() const { return path_; }
  // Why a write failed ("" while none did); writes after a failure are dropped.
  const std::string& error() const { return error_; }

 private:
  // A summary of one value: an encoded TensorProto and SummaryMetadata.
  void tensor_summary(const std::string& tag, std::int64_t step, const std::string& tensor,
                      const std::string& metadata);
  void write_event(std::int64_t step, const std::string& what);
  std::filesystem::path path_;
  std::ofstream out_;
  std::string error_;
};

// Seconds since the Unix epoch: an event's wall_time, and the hparams plugin's times.
double event_wall_time();

// Removes the event files in `dir` (events.out.tfevents.*), nothing else; no error when there
// are none or no such folder. None when a link is where `dir` goes: they would be the target's.
void remove_event_files(const FolderInside& dir);

}  // namespace runner
