// dataset.validation_split: stratified counts per class, seeded rows, disjoint from the training
// rows and in file order, the same whatever the loader's workers, and the user errors.
#include "runner/data/validation_split.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "csv_dataset_helpers.h"
#include "runner/data/dataset.h"
#include "runner/data/planned_split.h"
#include "test_support.h"

namespace runner {
namespace {

const SourceLocation kWhere{"c.yaml", "dataset.validation_split"};

// Rows whose 4-byte image is the row's index (little-endian), labelled by `labels`: each row
// can be told apart and traced back.
DatasetSplits numbered_rows(const std::vector<std::int32_t>& labels, int classes) {
  DatasetSplits splits;
  Dataset& train = splits.train;
  train.name = "numbered";
  train.channels = 1, train.height = 1, train.width = 4;
  for (int k = 0; k < classes; ++k) train.class_names.push_back(fmt::format("c{}", k));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    train.labels.push_back(labels[i]);
    for (int b = 0; b < 4; ++b) train.images.push_back(static_cast<std::uint8_t>(i >> (8 * b)));
  }
  splits.test = train;
  return splits;
}

// Uneven classes: 50, 31, 7 and 2 rows, interleaved.
std::vector<std::int32_t> uneven_labels() {
  std::vector<std::int32_t> labels;
  const int counts[] = {50, 31, 7, 2};
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 4; ++k) {
      if (round < counts[k]) labels.push_back(k);
    }
  }
  return labels;
}

std::vector<std::uint32_t> row_ids(const Dataset& data) {
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < data.size(); ++i) {
    std::uint32_t id = 0;
    for (int b = 0; b < 4; ++b) id |= std::uint32_t(data.images[i * 4 + b]) << (8 * b);
    ids.push_back(id);
  }
  return ids;
}

DatasetSplits split(double fraction, std::uint64_t seed) {
  DatasetSplits splits = numbered_rows(uneven_labels(), 4);
  hold_out_validation(splits, fraction, seed, kWhere);
  return splits;
}

TEST(ValidationSplit, HoldsOutRoundedShareOfEachClass) {
  const DatasetSplits s = split(0.25, 7);
  std::map<int, int> held, kept;
  for (auto label : s.validation.labels) ++held[label];
  for (auto label : s.train.labels) ++kept[label];
  // round(0.25 x 50) = 13 (12.5 rounds away from 0), round(7.75) = 8, round(1.75) = 2,
  // round(0.5) = 1.
  EXPECT_EQ(held, (std::map<int, int>{{0, 13}, {1, 8}, {2, 2}, {3, 1}}));
  EXPECT_EQ(kept, (std::map<int, int>{{0, 37}, {1, 23}, {2, 5}, {3, 1}}));
  EXPECT_EQ(s.validation.class_names, s.train.class_names);
  EXPECT_EQ(s.validation.image_bytes(), 4u);
  EXPECT_EQ(s.test.size(), 90u);  // the test set is left alone
}

TEST(ValidationSplit, RowsAreDisjointCompleteAndInFileOrder) {
  const DatasetSplits s = split(0.25, 7);
  const auto train = row_ids(s.train), held = row_ids(s.validation);
  EXPECT_TRUE(std::is_sorted(train.begin(), train.end()));
  EXPECT_TRUE(std::is_sorted(held.begin(), held.end()));
  std::set<std::uint32_t> all(train.begin(), train.end());
  for (auto id : held) EXPECT_TRUE(all.insert(id).second) << "row " << id << " is in both";
  EXPECT_EQ(all.size(), 90u);
  EXPECT_EQ(*all.rbegin(), 89u);
  const auto labels = uneven_labels();  // each row keeps its label
  for (std::size_t i = 0; i < held.size(); ++i) EXPECT_EQ(s.validation.labels[i], labels[held[i]]);
}

TEST(ValidationSplit, SameSeedSameRowsAnotherSeedOthers) {
  EXPECT_EQ(row_ids(split(0.25, 7).validation), row_ids(split(0.25, 7).validation));
  EXPECT_NE(row_ids(split(0.25, 7).validation), row_ids(split(0.25, 8).validation));
  // Not simply the first rows of each class.
  const auto held = row_ids(split(0.25, 7).validation);
  EXPECT_NE(std::vector<std::uint32_t>(held.begin(), held.begin() + 4),
            (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

TEST(ValidationSplit, NothingHappensForZeroOrAValidationSetTheFormatRead) {
  DatasetSplits none = split(0, 7);
  EXPECT_EQ(none.train.size(), 90u);
  EXPECT_EQ(none.validation.size(), 0u);
  DatasetSplits own = numbered_rows(uneven_labels(), 4);
  own.validation = own.test;
  hold_out_validation(own, 0.25, 7, kWhere);
  EXPECT_EQ(own.train.size(), 90u);
  EXPECT_EQ(own.validation.size(), 90u);
}

std::string error_of(double fraction, const std::vector<std::int32_t>& labels) {
  DatasetSplits splits = numbered_rows(labels, 3);
  std::string message = "no error";
  try {
    hold_out_validation(splits, fraction, 0, kWhere);
  } catch (const UserError& e) {
    message = e.what();
  }
  return message;
}

TEST(ValidationSplit, AClassLeftWithoutTrainingRowsIsAUserError) {
  // Class c2 has one row: round(0.5 x 1) = 1 holds it all out.
  const std::string message = error_of(0.5, {0, 0, 0, 0, 1, 1, 1, 1, 2});
  EXPECT_NE(message.find("c.yaml: dataset.validation_split: found 0.5"), std::string::npos)
      << message;
  EXPECT_NE(message.find("all 1 training image of class 'c2'"), std::string::npos) << message;
}

TEST(ValidationSplit, AnEmptyValidationSetIsAUserError) {
  const std::string message = error_of(0.1, {0, 0, 1, 1, 2, 2});  // round(0.2) = 0 everywhere
  EXPECT_NE(message.find("dataset.validation_split: found 0.1, which holds out no image of the 6"),
            std::string::npos)
      << message;
}

// `runner validate` splits the labels the format lists by the same rule as `run` splits the
// loaded data: the same training images are left, and the same splits are refused with the same
// words (validate once called them valid).
std::string planned_or_error(const DatasetSpec& spec, std::int64_t* train) {
  try {
    *train = planned_training_images(spec, kWhere).value_or(-1);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string loaded_or_error(const DatasetSpec& spec, std::int64_t* train) {
  DatasetSplits splits = load_dataset(spec);
  try {
    hold_out_validation(splits, spec.validation_split, 0, kWhere);
  } catch (const UserError& e) {
    return e.what();
  }
  *train = static_cast<std::int64_t>(splits.train.size());
  return "";
}

TEST(ValidationSplit, ValidatePlansTheSplitRunMakes) {
  DatasetSpec spec;
  spec.name = "synthetic";
  spec.synthetic = {1, 2, 2, 5, 37, 4};  // 37 training images, 5 classes
  for (double fraction : {0.2, 0.5, 0.0001, 0.9999}) {
    for (std::int64_t limit : {0, 12}) {
      spec.validation_split = fraction;
      spec.train_limit = limit;
      std::int64_t planned = -2, loaded = -3;
      const std::string plan_error = planned_or_error(spec, &planned);
      EXPECT_EQ(plan_error, loaded_or_error(spec, &loaded)) << fraction << ", limit " << limit;
      if (plan_error.empty()) EXPECT_EQ(planned, loaded) << fraction << ", limit " << limit;
    }
  }
  spec.validation_split = 0;
  EXPECT_EQ(planned_training_images(spec, kWhere), std::nullopt);  // no split: nothing to plan
}

TEST(ValidationSplit, ValidateRefusesASplitThatEmptiesACsvClass) {
  testing::TempDir tmp;
  // One image per class: a split of 0.5 holds each out whole, as `run` would refuse.
  DatasetSpec spec =
      testing::csv_test_dataset(tmp.path(), "images/a.png,0\nimages/b.png,1\nimages/c.png,2\n");
  spec.validation_split = 0.5;
  std::int64_t planned = 0, loaded = 0;
  const std::string message = planned_or_error(spec, &planned);
  EXPECT_NE(message.find("c.yaml: dataset.validation_split: found 0.5, which holds out all 1 "
                         "training image of class '0'"),
            std::string::npos)
      << message;
  EXPECT_EQ(message, loaded_or_error(spec, &loaded));
}

}  // namespace
}  // namespace runner
