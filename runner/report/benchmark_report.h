// The report pieces of a benchmark: its settings and loss, and the per-layer profile grouped by
// layer (forward, backward) with its sum against the measured step time.
#pragma once

#include "runner/graph/graph.h"
#include "runner/report/run_record.h"
#include "runner/train/benchmark.h"

namespace runner {

RecordBenchmark benchmark_record(const BenchmarkSpec& spec, const BenchmarkOutcome& outcome);

// {timings, layers, other, sum_seconds, measured_step_seconds, sum_over_measured}: a label is a
// layer's when it is the layer's name (forward) or starts with it and a space or a dot (backward
// when it says "backward" or "grad", else forward, like a weight reorder before the forward).
RecordProfile profile_record(const std::vector<StepTiming>& profile, int profile_steps,
                             const Graph& graph, double measured_step_seconds);

}  // namespace runner
