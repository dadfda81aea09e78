// The dataset formats are declared in the data module's registry and in the schema: the name enum
// and the dataset keys must be the same in both (issue 23), as for the layer kinds.
#include <gtest/gtest.h>

#include <set>

#include "runner/config/schema_file.h"
#include "runner/data/dataset_format.h"

namespace runner {
namespace {

TEST(DatasetFormatRegistry, SchemaEnumListsExactlyTheRegisteredFormats) {
  auto schema = load_schema("experiment.schema.json");
  std::set<std::string> in_schema;
  for (const auto& name : schema["definitions"]["dataset"]["properties"]["name"]["enum"]) {
    in_schema.insert(name.get<std::string>());
  }
  const auto names = dataset_format_names();
  EXPECT_EQ(in_schema, std::set<std::string>(names.begin(), names.end()));
}

TEST(DatasetFormatRegistry, SchemaKeysAreTheCommonOnesAndTheFormatsOwn) {
  auto schema = load_schema("experiment.schema.json");
  std::set<std::string> in_schema;
  for (const auto& [key, value] : schema["definitions"]["dataset"]["properties"].items()) {
    in_schema.insert(key);
  }
  std::set<std::string> registered(common_dataset_keys().begin(), common_dataset_keys().end());
  for (const DatasetFormat& format : dataset_formats()) {
    for (const std::string& key : format.keys) {
      EXPECT_EQ(std::count(common_dataset_keys().begin(), common_dataset_keys().end(), key), 0)
          << format.name << " declares the common key " << key;
      registered.insert(key);
    }
  }
  EXPECT_EQ(in_schema, registered);
}

TEST(DatasetFormatRegistry, FormatsAreUniqueAndComplete) {
  EXPECT_EQ(dataset_format_names().size(), dataset_formats().size());
  for (const DatasetFormat& format : dataset_formats()) {
    EXPECT_TRUE(format.read && format.write && format.image && format.class_names &&
                format.planned_records && format.load)
        << format.name;
    EXPECT_EQ(find_dataset_format(format.name), &format);
  }
  EXPECT_EQ(find_dataset_format("no_such_format"), nullptr);
}

}  // namespace
}  // namespace runner
