// TensorBoard's HParams dashboard data: the hparams plugin's HParamsPluginData messages (an
// experiment listing the hyperparameters and metrics, a session's start with its values, its
// end with its status), encoded by hand as the event file's other messages are. A sweep point's
// event file carries them, so `tensorboard --logdir SWEEP_DIR/tensorboard` compares the points.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner {

inline constexpr const char* kHParamsPlugin = "hparams";
inline constexpr const char* kHParamsExperimentTag = "_hparams_/experiment";
inline constexpr const char* kHParamsSessionStartTag = "_hparams_/session_start_info";
inline constexpr const char* kHParamsSessionEndTag = "_hparams_/session_end_info";

// A hyperparameter and its value: a number, string or boolean (anything else is its JSON text).
struct HParam {
  std::string name;
  nlohmann::json value;
};

// The plugin's session status (api.proto's Status).
enum class HParamsStatus { unknown = 0, success = 1, failure = 2, running = 3 };

// The experiment: each hyperparameter with its type, and the scalar tags that are its metrics.
std::string hparams_experiment(const std::vector<HParam>& hparams,
                               const std::vector<std::string>& metric_tags,
                               double time_created_secs);
// A session's start: its hyperparameters' values.
std::string hparams_session_start(const std::vector<HParam>& hparams, double start_time_secs);
// A session's end: how it ended (TensorBoard keeps the first end it reads).
std::string hparams_session_end(HParamsStatus status, double end_time_secs);

}  // namespace runner
