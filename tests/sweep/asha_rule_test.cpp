// ASHA's promotion rule against hand-computed tables, its rungs, and its records in the sweep
// folder: scripted metric sequences stand in for trials (no training), as a fake trial runner
// behind record_at_rung, the call every launcher's trials make.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <map>

#include "runner/sweep/asha.h"
#include "runner/sweep/rung_records.h"
#include "runner/util/errors.h"
#include "runner/util/files.h"
#include "test_support.h"

namespace runner::testing {
namespace {

using Values = std::vector<std::optional<double>>;

// Each value's decision when recorded one after another at one rung.
std::vector<bool> decisions(const Values& values, bool maximize, int reduction_factor) {
  std::vector<bool> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Values earlier(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(asha_verdict(earlier, values[i], maximize, reduction_factor).continued);
  }
  return out;
}

TEST(AshaRule, TheTopThirdOfThoseRecordedSoFarGoOnAsComputedByHand) {
  // n: trials at the rung with this one; quota max(1, n / 3); rank among them, earlier ties first.
  //   0.50: n1 q1 rank1 on | 0.40: n2 q1 rank2 stop | 0.60: n3 q1 rank1 on | 0.30: n4 q1 rank4
  //   stop | 0.70: n5 q1 rank1 on | 0.20: n6 q2 rank6 stop | 0.65: n7 q2 rank2 on | 0.60: n8 q2
  //   rank4 (0.60, 0.70, 0.65 recorded earlier rank ahead) stop | 0.66: n9 q3 rank2 on
  const Values values = {0.50, 0.40, 0.60, 0.30, 0.70, 0.20, 0.65, 0.60, 0.66};
  EXPECT_EQ(decisions(values, true, 3),
            (std::vector<bool>{true, false, true, false, true, false, true, false, true}));
  const RungVerdict last = asha_verdict(Values(values.begin(), values.end() - 1), 0.66, true, 3);
  EXPECT_EQ(last.rank, 2);
  EXPECT_EQ(last.of, 9);
  EXPECT_EQ(last.quota, 3);
}

TEST(AshaRule, LowerIsBetterForALossAndAHalfGoesOnWithFactorTwo) {
  // Losses, factor 2: 1.0 on (n1 q1) | 2.0 stop (n2 q1 rank2) | 0.5 on (n3 q1) | 0.9 on (n4 q2
  // rank2: only 0.5 is lower) | 0.9 stop (n5 q2 rank3: the earlier 0.9 ties ahead)
  EXPECT_EQ(decisions({1.0, 2.0, 0.5, 0.9, 0.9}, false, 2),
            (std::vector<bool>{true, false, true, true, false}));
}

TEST(AshaRule, AFigureThatIsNotFiniteNeverGoesOnAndRanksBelowEveryOther) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(asha_verdict({}, nan, true, 3).continued);  // even the first at its rung
  EXPECT_FALSE(asha_verdict({}, std::nullopt, true, 3).continued);
  // An earlier NaN or missing figure ranks below a finite one, in either mode.
  EXPECT_EQ(asha_verdict({nan, std::nullopt}, 0.1, true, 3).rank, 1);
  EXPECT_EQ(asha_verdict({nan, std::nullopt}, 5.0, false, 3).rank, 1);
  EXPECT_TRUE(asha_verdict({nan}, 0.1, true, 3).continued);
}

TEST(AshaRule, RungsAreMinEpochsTimesTheFactorsPowersBelowTheTrialsEpochs) {
  AshaSpec spec;
  spec.min_epochs = 1;
  spec.reduction_factor = 3;
  EXPECT_EQ(asha_rungs(spec, 27), (std::vector<int>{1, 3, 9}));
  EXPECT_EQ(asha_rungs(spec, 28), (std::vector<int>{1, 3, 9, 27}));
  EXPECT_TRUE(asha_rungs(spec, 1).empty());
  spec.min_epochs = 2;
  spec.reduction_factor = 2;
  EXPECT_EQ(asha_rungs(spec, 16), (std::vector<int>{2, 4, 8}));
  spec.min_epochs = 1'000'000;
  spec.reduction_factor = 1000;
  // The next, 10^12, would overflow an int: the rungs stop below the epochs first.
  EXPECT_EQ(asha_rungs(spec, 2'000'000'000), (std::vector<int>{1'000'000, 1'000'000'000}));
}

// A scripted trial: its figure after each epoch.
struct ScriptedTrial {
  std::string id;
  std::vector<double> curve;  // curve[e - 1]: after epoch e
};

// Runs the trials one after another as a sweep would (each to its end or its stop) and returns
// the epochs each trained.
std::map<std::string, int> run_scripted(const std::filesystem::path& dir, const AshaSpec& spec,
                                        const std::vector<ScriptedTrial>& trials, int epochs) {
  std::map<std::string, int> trained;
  const std::vector<int> rungs = asha_rungs(spec, epochs);
  for (const ScriptedTrial& trial : trials) {
    int epoch = 1;
    for (; epoch <= epochs; ++epoch) {
      if (std::find(rungs.begin(), rungs.end(), epoch) == rungs.end()) continue;
      RungEntry entry{trial.id, "sha-" + trial.id, epoch, trial.curve[epoch - 1], false};
      if (!record_at_rung(dir, spec, entry).continued) break;
    }
    trained[trial.id] = std::min(epoch, epochs);
  }
  return trained;
}

TEST(AshaRecords, ScriptedTrialsStopWhereTheHandComputedTableSays) {
  TempDir tmp;
  AshaSpec spec;
  spec.min_epochs = 1;
  spec.reduction_factor = 2;
  // 4 epochs: rungs after epochs 1 and 2. By hand:
  //   rung 1: a 0.5 on (n1) | b 0.6 on (n2 q1 rank1) | c 0.4 stop (n3 q1) | d 0.7 on (n4 q2 rank1)
  //   rung 2: a 0.55 on (n1) | b 0.58 on (n2 q1 rank1) | d 0.56 stop (n3 q1 rank2)
  const std::vector<ScriptedTrial> trials = {{"a", {0.5, 0.55, 0.6, 0.6}},
                                             {"b", {0.6, 0.58, 0.7, 0.7}},
                                             {"c", {0.4, 0.9, 0.9, 0.9}},
                                             {"d", {0.7, 0.56, 0.8, 0.8}}};
  const auto trained = run_scripted(tmp.path(), spec, trials, 4);
  EXPECT_EQ(trained, (std::map<std::string, int>{{"a", 4}, {"b", 4}, {"c", 1}, {"d", 2}}));
  const auto counts = rung_counts(read_rung_records(tmp.path()));
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].rung, 1);
  EXPECT_EQ(counts[0].recorded, 4);
  EXPECT_EQ(counts[0].continued, 3);
  EXPECT_EQ(counts[1].recorded, 3);
  EXPECT_EQ(counts[1].continued, 2);
  EXPECT_EQ(rung_counts_text(counts),
            "after epoch 1: 4 recorded, 3 went on; after epoch 2: 3 recorded, 2 went on");

  // Running them all again (a resumed sweep) changes nothing: each gets its recorded decision.
  EXPECT_EQ(run_scripted(tmp.path(), spec, trials, 4), trained);
  EXPECT_EQ(read_rung_records(tmp.path()).size(), 7u);
}

TEST(AshaRecords, ARecordedTrialKeepsItsDecisionAndAChangedOneIsRecordedAnew) {
  TempDir tmp;
  AshaSpec spec;
  spec.reduction_factor = 2;
  record_at_rung(tmp.path(), spec, {"a", "one", 1, 0.9, false});
  EXPECT_FALSE(record_at_rung(tmp.path(), spec, {"b", "one", 1, 0.1, false}).continued);
  // The same trial again, with another figure (a rerun that is not bit-exact): the decision stands.
  EXPECT_FALSE(record_at_rung(tmp.path(), spec, {"b", "one", 1, 0.95, false}).continued);
  // Its config changed: the old record goes and the new one is judged.
  EXPECT_TRUE(record_at_rung(tmp.path(), spec, {"b", "two", 1, 0.95, false}).continued);
  const auto records = read_rung_records(tmp.path());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].point_sha, "two");
}

TEST(AshaRecords, ADamagedRecordsFileIsRefusedNotOverwritten) {
  TempDir tmp;
  write_file_atomically(tmp / kRungRecords, "{\"records\": [");
  AshaSpec spec;
  try {
    record_at_rung(tmp.path(), spec, {"a", "one", 1, 0.9, false});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("asha.json"), std::string::npos) << error.what();
  }
  EXPECT_EQ(read_file(tmp / kRungRecords), "{\"records\": [");
  // Entries of other shapes (a hand-edited file) are left out when read.
  write_file_atomically(tmp / kRungRecords,
                        R"({"records": [{"id": "a", "rung": "1"}, 7, {"id": "b", "point_sha256": )"
                        R"("s", "rung": 1, "value": 0.5, "continued": true}]})");
  const auto records = read_rung_records(tmp.path());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].id, "b");
  // ... but not dropped by the next record: a record of another type is refused, named, and the
  // file stays as it was.
  const std::string forged =
      R"({"records": [{"id": "b", "point_sha256": "s", "rung": 1, "value": 0.5, )"
      R"("continued": true}, {"id": "c", "point_sha256": "t", "rung": 1, "value": "high", )"
      R"("continued": false}]})";
  write_file_atomically(tmp / kRungRecords, forged);
  try {
    record_at_rung(tmp.path(), spec, {"d", "u", 1, 0.7, false});
    FAIL() << "a record of another type was dropped";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("records[1]: found"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("\"high\""), std::string::npos) << error.what();
  }
  EXPECT_EQ(read_file(tmp / kRungRecords), forged);
}

TEST(AshaRecords, ProcessesRecordingAtOnceLoseNothingAndKeepTheQuota) {
  TempDir tmp;
  AshaSpec spec;
  spec.reduction_factor = 3;
  constexpr int kProcesses = 4, kTrialsEach = 15;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int t = 0; t < kTrialsEach; ++t) {
        const int trial = p * kTrialsEach + t;
        const std::string id = "t" + std::to_string(trial);
        record_at_rung(tmp.path(), spec, {id, "s", 1, std::fmod(trial * 0.618, 1.0), false});
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto records = read_rung_records(tmp.path());
  ASSERT_EQ(records.size(), static_cast<std::size_t>(kProcesses * kTrialsEach));
  // Every decision is the rule's in the order recorded: no two processes decided on one state.
  Values earlier;
  int went_on = 0;
  for (const RungEntry& e : records) {
    EXPECT_EQ(e.continued, asha_verdict(earlier, e.value, true, 3).continued) << e.id;
    earlier.push_back(e.value);
    went_on += e.continued;
  }
  EXPECT_GE(went_on, 1);
  EXPECT_LE(went_on, kProcesses * kTrialsEach);
}

}  // namespace
}  // namespace runner::testing
