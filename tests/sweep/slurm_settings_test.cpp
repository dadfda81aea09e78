// A sweep file's launcher: block: read, checked with file, line and field, and overridden by the
// command line's options.
#include "runner/sweep/slurm_settings.h"

#include <gtest/gtest.h>

#include "runner/util/errors.h"
#include "test_support.h"

namespace runner::testing {
namespace {

std::string sweep_file(const std::string& launcher) {
  return "name: s\nbase: tiny.yaml\nsweep:\n  grid:\n    training.batch_size: [8, 16]\n" + launcher;
}

// The UserError's message, or "" when reading succeeds.
std::string error_of(const TempDir& tmp, const std::string& launcher) {
  try {
    read_launcher_block(tmp.write("s.yaml", sweep_file(launcher)));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SlurmSettings, TheLauncherBlockIsRead) {
  TempDir tmp;
  auto file =
      tmp.write("s.yaml", sweep_file("launcher:\n  type: slurm\n  partition: gpu\n  time: 30\n"
                                     "  cpus_per_task: 2\n  mem: 16G\n  gpus_per_task: 1\n"
                                     "  account: a1\n  qos: q\n  max_parallel: 3\n"
                                     "  extra: [--constraint=a100]\n"));
  LauncherSettings settings = read_launcher_block(file);
  ASSERT_TRUE(settings.type);
  EXPECT_EQ(*settings.type, LauncherType::slurm);
  const SlurmSettings& s = settings.slurm;
  EXPECT_EQ(s.partition, "gpu");
  EXPECT_EQ(s.time, "30");  // a number is minutes, as Slurm reads it
  EXPECT_EQ(s.cpus_per_task, 2);
  EXPECT_EQ(s.mem, "16G");
  EXPECT_EQ(s.gpus_per_task, 1);
  EXPECT_EQ(s.account, "a1");
  EXPECT_EQ(s.qos, "q");
  EXPECT_EQ(s.max_parallel, 3);
  EXPECT_EQ(s.extra, std::vector<std::string>{"--constraint=a100"});
  EXPECT_FALSE(read_launcher_block(tmp.write("t.yaml", sweep_file(""))).type);
}

TEST(SlurmSettings, BadValuesNameTheFileLineAndField) {
  TempDir tmp;
  struct Case {
    std::string launcher, expected;
  } cases[] = {
      {"launcher:\n  type: slurm\n  time: 2 hours\n",
       "s.yaml:8:9: launcher.time: found '2 hours', expected a Slurm time limit"},
      {"launcher:\n  type: slurm\n  mem: lots\n", "launcher.mem: found 'lots', expected megabytes"},
      {"launcher:\n  type: slurm\n  partition: \"a b\"\n",
       "launcher.partition: found 'a b', expected a Slurm name"},
      {"launcher:\n  type: slurm\n  extra: [\"--x=1\\n#SBATCH --y\"]\n",
       "launcher.extra[0]: found"},
      {"launcher:\n  type: slurm\n  extra: [constraint]\n",
       "expected one sbatch option on one line, starting with -"},
      {"launcher:\n  type: slurm\n  max_parallel: 0\n", "launcher.max_parallel"},
      {"launcher:\n  type: pbs\n", "launcher.type"},
      {"launcher:\n  type: slurm\n  gpus: 1\n", "gpus"},
      {"launcher:\n  partition: gpu\n", "type"},
  };
  for (const Case& c : cases) {
    std::string message = error_of(tmp, c.launcher);
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << c.launcher << "gave: " << (message.empty() ? "no error" : message);
    EXPECT_NE(message.find("s.yaml"), std::string::npos) << message;
  }
}

TEST(SlurmSettings, FlagsWinOverTheFile) {
  SlurmSettings file;
  file.partition = "cpu";
  file.time = "60";
  file.cpus_per_task = 4;
  file.gpus_per_task = 1;
  file.extra = {"--exclusive"};
  SlurmSettings flags{"gpu", "", "", "", "", -1, 0, 8, {"--constraint=a100"}};
  SlurmSettings s = merged_settings(file, flags);
  EXPECT_EQ(s.partition, "gpu");
  EXPECT_EQ(s.time, "60");
  EXPECT_EQ(s.cpus_per_task, 4);  // -1: not given
  EXPECT_EQ(s.gpus_per_task, 0);  // given as 0: no GPUs
  EXPECT_EQ(s.max_parallel, 8);
  EXPECT_EQ(s.extra, (std::vector<std::string>{"--exclusive", "--constraint=a100"}));
}

TEST(SlurmSettings, ValuesSlurmAcceptsPass) {
  for (const char* time : {"30", "10:00", "2:00:00", "1-0", "1-12:00", "1-12:00:00", "UNLIMITED"})
    EXPECT_EQ(slurm_value_problem("time", time), "") << time;
  for (const char* mem : {"4096", "16G", "512M"}) EXPECT_EQ(slurm_value_problem("mem", mem), "");
  EXPECT_EQ(slurm_value_problem("partition", "gpu,cpu"), "");
  EXPECT_NE(slurm_value_problem("time", "1:2:3:4"), "");
  EXPECT_NE(slurm_value_problem("qos", "a\nb"), "");
}

}  // namespace
}  // namespace runner::testing
