#include "runner/html/run_page.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runner/report/run_record.h"
#include "test_support.h"

namespace runner {
namespace {

using nlohmann::json;
using testing::TempDir;

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

// The page of a report as its JSON reads (leniently) into a record.
std::string page_of(const json& report, const std::filesystem::path& file = "r.json") {
  return run_page(run_record_from_json(report), file);
}

TEST(RunPage, HoldsEveryPartOfTheRun) {
  const std::string page = page_of(sample_report(), "/runs/x/report.json");
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
  EXPECT_TRUE(has(page, "<dt>seed</dt><dd>3</dd>")) << "integers as the report writes them";
  EXPECT_TRUE(has(page, "<dt>epochs saved</dt><dd>2</dd>"));
  EXPECT_TRUE(has(page, "aa  10  /data/x.bin")) << "the files read";
  EXPECT_FALSE(has(page, "src=")) << "no image or script from anywhere";
}

TEST(RunPage, AChangingLearningRateIsDrawn) {
  json report = sample_report();
  for (auto& point : report["curves"]["train"]) point["lr"] = 0.1 / point["step"].get<double>();
  const std::string page = page_of(report);
  EXPECT_FALSE(has(page, "throughout (constant)"));
  EXPECT_TRUE(has(page, "<title>Learning rate</title>"));
}

TEST(RunPage, EpochsShorterThanTheLogIntervalStillHaveALossCurve) {
  json report = sample_report();
  report["curves"]["train"] = json::array();
  const std::string page = page_of(report);
  EXPECT_TRUE(has(page, "training loss (per-epoch mean)"));
  EXPECT_TRUE(has(page, "fewer steps than training.log_every"));
}

TEST(RunPage, AShortOrForgedReportLeavesPartsOutInsteadOfFailing) {
  EXPECT_NO_THROW(page_of(json::object()));
  EXPECT_NO_THROW(page_of(json::array()));
  json forged = sample_report();
  forged["curves"]["train"] = "not a list";
  forged["metrics"]["confusion_matrix"] = {{"x", nullptr}, 5};
  forged["epochs"] = {{{"epoch", "one"}}, 7};
  forged["step_time"] = 12;
  forged["argv"] = {1, {{"a", 2}}};
  forged["name"] = "\xff\xfe";
  std::string page;
  ASSERT_NO_THROW(page = page_of(forged));
  EXPECT_TRUE(has(page, "\xEF\xBF\xBD")) << "bytes that are not UTF-8 replaced";
  const std::string empty = page_of(json::object());
  EXPECT_FALSE(has(empty, "Confusion matrix"));
  EXPECT_FALSE(has(empty, "<svg"));
}

TEST(RunPage, NamesTheGpuAndCudaRuntimeTheEnvironmentHolds) {
  json report = sample_report();
  report["device"] = "cuda";
  report["backend"] = "cudnn";
  report["environment"] = {{"gpu_name", "NVIDIA H100 80GB HBM3"},
                           {"cuda_runtime", "12.4"},
                           {"cudnn_version", "9.1.0"},
                           {"precision", "fp16"}};
  const std::string page = page_of(report);
  EXPECT_TRUE(
      has(page, "cudnn, cuDNN 9.1.0, CUDA 12.4, GPU NVIDIA H100 80GB HBM3, precision fp16"));
}

TEST(RunPage, LeadsWithTheWholeRunRateAndSaysHowTheThreadsFollowedTheMachine) {
  json report = sample_report();
  report["throughput"]["whole_run_images_per_second"] = 900.0;
  report["step_time"]["median_step_images_per_second"] = 1000.0;
  report["cpu"] = {{"threads", 2},
                   {"threads_policy", "fitted"},
                   {"thread_changes",
                    {{{"step", 40}, {"threads", 1}, {"free_cores", 0.9}},
                     {{"step", 900}, {"threads", 2}, {"free_cores", 1.9}}}}};
  const std::string page = page_of(report);
  EXPECT_TRUE(has(page, "2 (fitted to the machine&#39;s load: 1 from step 40, 2 from step 900)") ||
              has(page, "2 (fitted to the machine's load: 1 from step 40, 2 from step 900)"))
      << page;
  EXPECT_LT(page.find("images/s (whole run)"), page.find("images/s (median step)"));
  report["wall_time"] = {{"total_seconds", 12.34},    {"startup_seconds", 0.81},
                         {"training_seconds", 10.9},  {"evaluation_seconds", 0.4},
                         {"checkpoint_seconds", 0.1}, {"other_seconds", 0.13}};
  EXPECT_TRUE(has(page_of(report),
                  "12.3 s: start-up 0.8 s, training 10.9 s, evaluation 0.4 s, checkpoints "
                  "0.1 s, other 0.1 s"));
}

TEST(RunPage, FiguresOfTheWrongTypeAreLeftOut) {
  json report = sample_report();
  report["seed"] = "three";
  report["metrics"]["test_accuracy"] = "0.9";
  report["metrics"]["per_class_accuracy"]["dog"] = "high";
  report["step_time"]["median_step_images_per_second"] = "fast";
  report["data"]["train_images"] = "many";
  report["machine_load"]["cores"] = "two";
  report["checkpoint"]["epochs_done"] = 2.5;
  report["epochs"].push_back(7);  // an epoch that is not an object: no epoch is read
  std::string page;
  ASSERT_NO_THROW(page = page_of(report));
  EXPECT_FALSE(has(page, "<dt>seed</dt>"));
  EXPECT_FALSE(has(page, "test accuracy 90.00 %"));
  EXPECT_FALSE(has(page, "images (median step)"));
  EXPECT_TRUE(has(page, "5,000 validation, 10,000 test") && !has(page, "training, 5,000"));
  EXPECT_FALSE(has(page, "busy")) << "no load without the cores";
  EXPECT_FALSE(has(page, "epochs saved"));
  EXPECT_FALSE(has(page, "<section id=\"epochs\">"));
  EXPECT_FALSE(has(page, "Accuracy per class")) << "the accuracies are read together";
  EXPECT_TRUE(has(page, "dog → cat (3)")) << "the confusion matrix is whole";
  EXPECT_TRUE(has(page, "<section id=\"curves\">")) << "the logged curve needs no epochs";
}

// Past 100 classes the report lists the most frequent mistakes instead of a matrix: the page
// shows them, and no heat map.
TEST(RunPage, ManyClassesShowTheirMostFrequentMistakes) {
  json report = sample_report();
  json& metrics = report["metrics"];
  metrics.erase("confusion_matrix");
  metrics["confusion_pairs"] =
      json::array({{{"true", "cat"}, {"predicted", "dog"}, {"images", 7}},
                   {{"true", "dog"}, {"predicted", "<fox>"}, {"images", 2}}});
  metrics["confusion_matrix_omitted"] = "150 classes: the matrix is written up to 100";
  const std::string page = run_page(run_record_from_json(report), "r.json");
  EXPECT_TRUE(has(page, "Most frequent mistakes"));
  EXPECT_TRUE(has(page, "cat → dog (7)"));
  EXPECT_TRUE(has(page, "&lt;fox&gt;"));
  EXPECT_TRUE(has(page, "150 classes: the matrix is written up to 100"));
  EXPECT_FALSE(has(page, "confusion-table"));
}

TEST(RunPage, ARunsPageWriterWritesReportHtmlBesideTheReport) {
  TempDir tmp;
  const auto page = write_page_of_run(run_record_from_json(sample_report()), tmp / "report.json");
  EXPECT_EQ(page, tmp / "report.html");
  std::stringstream text;
  text << std::ifstream(page).rdbuf();
  EXPECT_TRUE(has(text.str(), "<h1>lenet &lt;cifar&gt;</h1>"));
}

}  // namespace
}  // namespace runner
