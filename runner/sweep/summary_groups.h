// A point's repeats grouped: the summary rows that differ only in their seed (repeats, or a
// `seed` axis) form a point group, with the mean, standard deviation, min and max of each figure.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace runner {

// n, mean, std, min and max of `values`. std is the sample standard deviation (divided by n - 1);
// it is null below two values, and mean, min and max are null without any.
nlohmann::json sample_stats(const std::vector<double>& values);

// The row figures a group has statistics of (over its completed runs).
inline constexpr const char* kGroupedFigures[] = {"images_per_second",
                                                  "step_time_median_seconds",
                                                  "step_time_p10_seconds",
                                                  "step_time_p90_seconds",
                                                  "cpu_utilisation",
                                                  "gpu_utilisation",
                                                  "speedup_over_cpu",
                                                  "test_accuracy",
                                                  "test_loss",
                                                  "val_accuracy",
                                                  "val_loss",
                                                  "final_loss"};

// The config paths the rows vary (their `values`), in first-seen order, `seed` left out: it is
// what repeats vary, and the CSVs give it a column of its own.
std::vector<std::string> swept_axes(const nlohmann::json& rows);

// The rows' point groups, in the order of their first rows: id (the point id without the seed),
// values (without the seed), device, batch_size, width, mode, points (the runs' ids), seeds,
// runs, completed, busy (a run saw more load than cores; null without load figures), stats (per
// kGroupedFigures) and epochs (per epoch, the training and test loss over the runs). Rows without
// sweep values (plain runs) are groups of their own.
nlohmann::json group_rows(const nlohmann::json& rows);

}  // namespace runner
