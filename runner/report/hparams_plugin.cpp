// The field numbers are those of TensorBoard's plugins/hparams api.proto and plugin_data.proto,
// and google/protobuf/struct.proto's Value.
#include "runner/report/hparams_plugin.h"

#include "runner/report/protobuf_wire.h"

namespace runner {

using namespace protobuf;

namespace {

constexpr std::uint64_t kPluginDataVersion = 0;

// api.proto's DataType.
enum DataType : std::uint64_t { kString = 1, kBool = 2, kFloat64 = 3 };

DataType type_of(const nlohmann::json& value) {
  if (value.is_boolean()) return kBool;
  if (value.is_number()) return kFloat64;
  return kString;
}

// google.protobuf.Value: number_value (2), string_value (3) or bool_value (4).
std::string value_message(const nlohmann::json& value) {
  std::string out;
  switch (type_of(value)) {
    case kBool:
      varint_field(out, 4, value.get<bool>() ? 1 : 0);
      break;
    case kFloat64:
      double_field(out, 2, value.get<double>());
      break;
    case kString:
      bytes_field(out, 3, value.is_string() ? value.get<std::string>() : value.dump());
      break;
  }
  return out;
}

// HParamsPluginData: version (1) and one of experiment (2), session_start_info (3),
// session_end_info (4).
std::string plugin_data(unsigned field, const std::string& message) {
  std::string out;
  varint_field(out, 1, kPluginDataVersion);
  bytes_field(out, field, message);
  return out;
}

}  // namespace

std::string hparams_experiment(const std::vector<HParam>& hparams,
                               const std::vector<std::string>& metric_tags,
                               double time_created_secs) {
  std::string experiment;
  double_field(experiment, 3, time_created_secs);  // Experiment.time_created_secs
  for (const HParam& h : hparams) {
    std::string info;
    bytes_field(info, 1, h.name);             // HParamInfo.name
    varint_field(info, 4, type_of(h.value));  // HParamInfo.type
    bytes_field(experiment, 4, info);         // Experiment.hparam_infos
  }
  for (const std::string& tag : metric_tags) {
    std::string name;
    bytes_field(name, 2, tag);  // MetricName.tag (group "": the session's own run)
    std::string info;
    bytes_field(info, 1, name);        // MetricInfo.name
    bytes_field(experiment, 5, info);  // Experiment.metric_infos
  }
  return plugin_data(2, experiment);
}

std::string hparams_session_start(const std::vector<HParam>& hparams, double start_time_secs) {
  std::string start;
  for (const HParam& h : hparams) {
    std::string entry;  // a map<string, Value> entry: key (1), value (2)
    bytes_field(entry, 1, h.name);
    bytes_field(entry, 2, value_message(h.value));
    bytes_field(start, 1, entry);  // SessionStartInfo.hparams
  }
  double_field(start, 5, start_time_secs);  // SessionStartInfo.start_time_secs
  return plugin_data(3, start);
}

std::string hparams_session_end(HParamsStatus status, double end_time_secs) {
  std::string end;
  varint_field(end, 1, static_cast<std::uint64_t>(status));  // SessionEndInfo.status
  double_field(end, 2, end_time_secs);                       // SessionEndInfo.end_time_secs
  return plugin_data(4, end);
}

}  // namespace runner
