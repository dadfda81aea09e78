// The device value (runner/config/device.h): every spelling a config may use parses and is written
// back as it was given; anything else is refused, in the config and on predict's command line.
#include "runner/config/device.h"

#include <gtest/gtest.h>

#include "runner/config/load_config.h"
#include "runner/util/errors.h"
#include "test_support.h"

namespace runner {
namespace {

TEST(Device, EachSpellingParsesAndIsWrittenBackAsGiven) {
  for (const char* text : {"auto", "cpu", "cuda", "cuda:0", "cuda:3", "cuda:12"}) {
    auto device = Device::parse(text);
    ASSERT_TRUE(device) << text;
    EXPECT_EQ(device->name(), text);
  }
  EXPECT_TRUE(Device::parse("auto")->is_auto());
  EXPECT_TRUE(Device::parse("cpu")->is_cpu());
  EXPECT_EQ(Device::parse("cuda")->gpu_index(), 0);
  EXPECT_FALSE(Device::parse("cuda")->index);
  EXPECT_EQ(Device::parse("cuda:3")->index, 3);
}

TEST(Device, OtherTextIsRefused) {
  for (const char* text :
       {"", "tpu", "CPU", "cuda:", "cuda:-1", "cuda:1x", "cuda0", " cpu", "gpu"}) {
    EXPECT_FALSE(Device::parse(text)) << text;
  }
}

TEST(Device, AnIndexTooLongForAnIntNamesNoGpu) {
  auto device = Device::parse("cuda:99999999999999999999");
  ASSERT_TRUE(device);
  EXPECT_TRUE(device->is_cuda());
  EXPECT_GE(device->gpu_index(), 1 << 30);
}

TEST(Device, AConfigWithAnUnknownDeviceNamesTheFieldAndTheChoices) {
  const auto config = (testing::source_dir() / "configs" / "tiny_synthetic.yaml").string();
  try {
    load_experiment(config, {"device=tpu"});
    FAIL() << "device tpu was accepted";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("device"), std::string::npos) << message;
    EXPECT_NE(message.find("tpu"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace runner
