#include "runner/report/event_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "runner/report/protobuf_wire.h"
#include "runner/util/crc32c.h"
#include "runner/util/errors.h"
#include "runner/util/folders.h"

namespace runner {

using namespace protobuf;

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace

double event_wall_time() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

EventFileWriter::EventFileWriter(const FolderInside& dir) {
  create_folders_inside(dir, "the TensorBoard folder");
  path_ = dir.path() / fmt::format("events.out.tfevents.{}.{}",
                                   static_cast<long long>(event_wall_time()), host_name());
  std::error_code ignored;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path_, ignored))) {
    throw UserError(
        fmt::format("{}: is a symbolic link, not an event file: nothing is written "
                    "through it (remove the link)",
                    path_.string()));
  }
  out_.open(path_, std::ios::binary | std::ios::app);
  if (!out_) {
    throw UserError(fmt::format("{}: cannot create the TensorBoard event file: {}", path_.string(),
                                std::strerror(errno)));
  }
  std::string version;
  bytes_field(version, 3, "brain.Event:2");  // Event.file_version
  write_event(0, version);
  flush();
}

void EventFileWriter::scalar(const std::string& tag, std::int64_t step, double value) {
  std::string summary_value;
  bytes_field(summary_value, 1, tag);  // Summary.Value.tag
  key(summary_value, 2, kFixed32);     // Summary.Value.simple_value (float)
  little_endian(summary_value, static_cast<float>(value));
  std::string summary;
  bytes_field(summary, 1, summary_value);  // Summary.value
  std::string what;
  bytes_field(what, 5, summary);  // Event.summary
  write_event(step, what);
}

void EventFileWriter::text(const std::string& tag, std::int64_t step, const std::string& markdown) {
  std::string plugin;
  bytes_field(plugin, 1, "text");  // PluginData.plugin_name
  std::string metadata;
  bytes_field(metadata, 1, plugin);  // SummaryMetadata.plugin_data
  std::string dim;
  key(dim, 1, kVarint);  // TensorShapeProto.Dim.size
  varint(dim, 1);
  std::string shape;
  bytes_field(shape, 2, dim);  // TensorShapeProto.dim
  std::string tensor;
  key(tensor, 1, kVarint);  // TensorProto.dtype = DT_STRING
  varint(tensor, 7);
  bytes_field(tensor, 2, shape);     // TensorProto.tensor_shape
  bytes_field(tensor, 8, markdown);  // TensorProto.string_val
  tensor_summary(tag, step, tensor, metadata);
}

void EventFileWriter::plugin_summary(const std::string& tag, std::int64_t step,
                                     const std::string& plugin_name, const std::string& content) {
  std::string plugin;
  bytes_field(plugin, 1, plugin_name);  // PluginData.plugin_name
  bytes_field(plugin, 2, content);      // PluginData.content
  std::string metadata;
  bytes_field(metadata, 1, plugin);  // SummaryMetadata.plugin_data
  // An empty float tensor as the value: the summary's data is its metadata.
  std::string shape;
  bytes_field(shape, 2, "");  // TensorShapeProto.dim: one dimension of size 0
  std::string tensor;
  varint_field(tensor, 1, 1);     // TensorProto.dtype = DT_FLOAT
  bytes_field(tensor, 2, shape);  // TensorProto.tensor_shape
  tensor_summary(tag, step, tensor, metadata);
}

void EventFileWriter::tensor_summary(const std::string& tag, std::int64_t step,
                                     const std::string& tensor, const std::string& metadata) {
  std::string summary_value;
  bytes_field(summary_value, 1, tag);       // Summary.Value.tag
  bytes_field(summary_value, 8, tensor);    // Summary.Value.tensor
  bytes_field(summary_value, 9, metadata);  // Summary.Value.metadata
  std::string summary;
  bytes_field(summary, 1, summary_value);  // Summary.value
  std::string what;
  bytes_field(what, 5, summary);  // Event.summary
  write_event(step, what);
}

void EventFileWriter::write_event(std::int64_t step, const std::string& what) {
  if (!error_.empty()) return;
  std::string event;
  key(event, 1, kFixed64);  // Event.wall_time
  little_endian(event, event_wall_time());
  key(event, 2, kVarint);  // Event.step
  varint(event, static_cast<std::uint64_t>(step));
  event += what;
  std::string length;
  little_endian(length, static_cast<std::uint64_t>(event.size()));
  std::string record = length;
  little_endian(record, masked_crc32c(length));
  record += event;
  little_endian(record, masked_crc32c(event));
  out_.write(record.data(), static_cast<std::streamsize>(record.size()));
  if (!out_) error_ = fmt::format("{}: writing failed: {}", path_.string(), std::strerror(errno));
}

void EventFileWriter::flush() {
  if (!error_.empty()) return;
  out_.flush();
  if (!out_) error_ = fmt::format("{}: writing failed: {}", path_.string(), std::strerror(errno));
}

void remove_event_files(const FolderInside& dir) {
  if (!first_link_inside(dir).empty()) return;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir.path(), error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().filename().string().rfind("events.out.tfevents.", 0) == 0 &&
        it->is_regular_file(error)) {
      std::filesystem::remove(it->path(), error);
    }
  }
}

}  // namespace runner
