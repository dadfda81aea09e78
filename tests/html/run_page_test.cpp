#include "runner/html/run_page.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

using nlohmann::json;

// A report as `runner run` writes it, with the parts the page reads.
json sample_report() {
  json train = json::array(), validation = json::array();
  for (int step = 8; step <= 64; step += 8)
    train.push_back(
        {{"step", step}, {"epoch", step <= 32 ? 1 : 2}, {"loss", 2.0 / step}, {"lr", 0.02}});
  validation.push_back({{"step", 32}, {"epoch", 1}, {"loss", 0.5}, {"accuracy", 0.75}});
  validation.push_back({{"step", 64}, {"epoch", 2}, {"loss", 0.25}, {"accuracy", 0.875}});
  return {
      {"name", "lenet <cifar>"},
      {"run_id", "20261126-120000-abcdef12"},
      {"mode", "train"},
      {"status", "completed"},
      {"stop_reason", "epochs"},
      {"seed", 3},
      {"argv", {"runner", "run", "configs/a b.yaml", "--set", "training.epochs=2"}},
      {"tags", {{"team", "vision"}}},
      {"environment",
       {{"git_commit", "0123456789ab"},
        {"git_dirty", true},
        {"hostname", "vm"},
        {"onednn_version", "2.6.3"},
        {"precision", "bf16"}}},
      {"device", "cpu"},
      {"backend", "onednn"},
      {"data",
       {{"name", "cifar10"},
        {"sha256", "feedbeef"},
        {"train_images", 45000},
        {"validation_images", 5000},
        {"test_images", 10000},
        {"class_names", {"cat", "dog"}},
        {"files", {{{"path", "/data/x.bin"}, {"bytes", 10}, {"sha256", "aa"}}}}}},
      {"curves", {{"train", train}, {"validation", validation}}},
      {"epochs",
       {{{"epoch", 1}, {"train_loss", 1.0}, {"val_accuracy", 0.75}},
        {{"epoch", 2}, {"train_loss", 0.5}, {"val_accuracy", 0.875}}}},
      {"metrics",
       {{"test_accuracy", 0.9},
        {"test_images", 40},
        {"classes", {"cat", "dog"}},
        {"per_class_accuracy", {{"cat", 0.95}, {"dog", 0.85}}},
        {"confusion_matrix", {{19, 1}, {3, 17}}}}},
      {"step_time",
       {{"median_seconds", 0.002},
        {"median_step_images_per_second", 16000},
        {"p10_seconds", 0.0019},
        {"p90_seconds", 0.0025},
        {"steps", 100}}},
      {"machine_load", {{"load_average_start", 3.5}, {"load_average_end", 1.0}, {"cores", 2}}},
      {"memory", {{"peak_rss_bytes", 150 << 20}, {"estimate", {{"total", 1 << 20}}}}},
      {"model",
       {{"layers",
         {{{"name", "conv1"},
           {"type", "conv2d"},
           {"output_shape", "6x28x28"},
           {"parameters", 456},
           {"flops_per_image", 705600}}}},
        {"parameters", 62006}}},
      {"checkpoint", {{"path", "/runs/x/model.safetensors"}, {"epochs_done", 2}}},
      {"config", {{"name", "lenet"}, {"training", {{"epochs", 2}}}}},
  };
}

bool has(const std::string& page, const std::string& text) {
  return page.find(text) != std::string::npos;
}

TEST(RunPage, HoldsEveryPartOfTheRun) {
  const std::string page = run_page(sample_report(), "/runs/x/report.json");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(has(page, "Content-Security-Policy")) << "nothing may be fetched";
  EXPECT_TRUE(has(page, "<h1>lenet &lt;cifar&gt;</h1>"));
  EXPECT_TRUE(has(page, "runner run &#39;configs/a b.yaml&#39; --set training.epochs=2"))
      << "the command line, quoted for a shell";
  EXPECT_TRUE(has(page, "team=vision"));
  EXPECT_TRUE(has(page, "0123456789ab (with uncommitted changes)"));
  EXPECT_TRUE(has(page, "oneDNN 2.6.3") && has(page, "precision bf16"));
  EXPECT_TRUE(has(page, "45,000 training, 5,000 validation, 10,000 test"));
  EXPECT_TRUE(has(page, "feedbeef"));
  EXPECT_TRUE(has(page, "<svg class=\"chart\"")) << "the loss curve";
  EXPECT_TRUE(has(page, "Learning rate: 0.02 throughout (constant)")) << "no axis of its own";
  EXPECT_TRUE(has(page, "87.50 %")) << "validation accuracy per epoch";
  EXPECT_TRUE(has(page, "Confusion matrix") && has(page, "dog → cat (3)"));
  EXPECT_TRUE(has(page, "95.00 %"));
  EXPECT_TRUE(has(page, "16,000/s"));
  EXPECT_TRUE(has(page, "busy: the timings are noisy")) << "load 3.5 on 2 cores";
  EXPECT_TRUE(has(page, "150.0 MiB"));
  EXPECT_TRUE(has(page, "705,600"));
  EXPECT_TRUE(has(page, "/runs/x/model.safetensors"));
  EXPECT_TRUE(has(page, "runner reproduce /runs/x/report.json"));
  EXPECT_TRUE(has(page, "&quot;epochs&quot;: 2")) << "the resolved config";
  EXPECT_FALSE(has(page, "src=")) << "no image or script from anywhere";
}

TEST(RunPage, AChangingLearningRateIsDrawn) {
  json report = sample_report();
  for (auto& point : report["curves"]["train"]) point["lr"] = 0.1 / point["step"].get<double>();
  const std::string page = run_page(report, "r.json");
  EXPECT_FALSE(has(page, "throughout (constant)"));
  EXPECT_TRUE(has(page, "<title>Learning rate</title>"));
}

TEST(RunPage, EpochsShorterThanTheLogIntervalStillHaveALossCurve) {
  json report = sample_report();
  report["curves"]["train"] = json::array();
  const std::string page = run_page(report, "r.json");
  EXPECT_TRUE(has(page, "training loss (per-epoch mean)"));
  EXPECT_TRUE(has(page, "fewer steps than training.log_every"));
}

TEST(RunPage, AShortOrForgedReportLeavesPartsOutInsteadOfFailing) {
  EXPECT_NO_THROW(run_page(json::object(), "r.json"));
  EXPECT_NO_THROW(run_page(json::array(), "r.json"));
  json forged = sample_report();
  forged["curves"]["train"] = "not a list";
  forged["metrics"]["confusion_matrix"] = {{"x", nullptr}, 5};
  forged["epochs"] = {{{"epoch", "one"}}, 7};
  forged["step_time"] = 12;
  forged["argv"] = {1, {{"a", 2}}};
  forged["name"] = "\xff\xfe";
  std::string page;
  ASSERT_NO_THROW(page = run_page(forged, "r.json"));
  EXPECT_TRUE(has(page, "\xEF\xBF\xBD")) << "bytes that are not UTF-8 replaced";
  const std::string empty = run_page(json::object(), "r.json");
  EXPECT_FALSE(has(empty, "Confusion matrix"));
  EXPECT_FALSE(has(empty, "<svg"));
}

}  // namespace
}  // namespace runner
