// memrep_bench's workloads check what they read: every workload passes on
// every rep that can run it, and a workload run against the wrong data — an
// empty rep, other keys, other versions — fails instead of reporting a fast
// number. Also the flags and the report's medians.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "flags.h"
#include "report.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {
namespace {

// Uninstrumented librocksdb publishes entries with atomics ThreadSanitizer
// cannot see, so a reader thread's decode of an entry another thread wrote
// looks like a race; the mixed workloads on RocksDB's reps run outside TSan.
#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderTsan = true;
#else
constexpr bool kUnderTsan = false;
#endif

Flags TinyFlags() {
  Flags f;
  f.num_operations = 600;
  f.num_threads = 2;
  f.item_size = 20;
  f.num_scans = 5;
  f.repeats = 1;
  f.bucket_count = 1024;
  f.progress = false;
  return f;
}

// A workload's plan, codec and values, kept alive together.
struct Scenario {
  explicit Scenario(const std::string& workload, Flags f = TinyFlags())
      : flags(std::move(f)),
        info(FindWorkload(workload)),
        plan(MakeKeyPlan(*info, flags)),
        keys(flags.key_size),
        values(flags.item_size, flags.seed) {
    input.flags = &flags;
    input.keys = &keys;
    input.values = &values;
    input.plan = &plan;
    input.label = workload;
  }

  std::unique_ptr<RepFactory> Factory(const std::string& rep) const {
    RepConfig config;
    config.bucket_count = flags.bucket_count;
    std::unique_ptr<RepFactory> f;
    EXPECT_TRUE(RepFactory::Make(rep, config, ExpectedArenaBytes(*info, flags), &f).ok());
    return f;
  }

  Flags flags;
  const WorkloadInfo* info;
  KeyPlan plan;
  KeyCodec keys;
  ValuePool values;
  WorkloadInput input;
};

TEST(BenchWorkloads, EveryWorkloadPassesOnEveryRepThatRunsIt) {
  for (const WorkloadInfo& workload : KnownWorkloads()) {
    Scenario scenario(workload.name);
    for (const std::string& rep : KnownReps()) {
      if (kUnderTsan && workload.kind == WorkloadKind::kMixed && rep != "sorted_hash") continue;
      std::unique_ptr<RepFactory> factory = scenario.Factory(rep);
      const Measurement m = RunWorkload(workload, *factory, scenario.input);
      const std::string what = workload.name + " on " + rep;
      ASSERT_TRUE(m.ok) << what << ": " << m.error;
      if (m.skipped) continue;
      EXPECT_GT(m.ops, 0u) << what;
      EXPECT_GT(m.seconds, 0) << what;
      EXPECT_GT(m.entries, 0u) << what;
      EXPECT_GT(m.bytes_per_entry(), 0) << what;
      if (workload.kind == WorkloadKind::kMixed) {
        EXPECT_EQ(m.write_ops, 600u) << what;
      }
      if (workload.name == "readrandom") {
        EXPECT_EQ(m.hits + m.misses, 600u) << what;
      }
    }
  }
}

TEST(BenchWorkloads, SkipsAreExplained) {
  Scenario scenario("concurrentfill");
  const Measurement m = RunWorkload(*scenario.info, *scenario.Factory("vector"), scenario.input);
  EXPECT_TRUE(m.ok);
  EXPECT_TRUE(m.skipped);
  EXPECT_NE(m.note.find("concurrent"), std::string::npos) << m.note;
  Scenario reads("readrandom");
  EXPECT_NE(SkipReason(*reads.info, *reads.Factory("vector"), reads.flags), "");
  reads.flags.freeze_before_reads = true;
  EXPECT_EQ(SkipReason(*reads.info, *reads.Factory("vector"), reads.flags), "");
}

// The read phases alone, on a rep that does not hold the data set.
class WrongDataTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WrongDataTest, ReadsOfAnEmptyRepFail) {
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload);
    std::unique_ptr<BenchRep> rep;
    ASSERT_TRUE(scenario.Factory(GetParam())->NewRep(&rep).ok());
    const Measurement m = RunPhase(*scenario.info, *rep, scenario.input);
    EXPECT_FALSE(m.ok) << workload << " on an empty " << GetParam() << " passed";
  }
}

TEST_P(WrongDataTest, ReadsOfOtherKeysFail) {
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload);
    std::unique_ptr<BenchRep> rep;
    ASSERT_TRUE(scenario.Factory(GetParam())->NewRep(&rep).ok());
    // The odd key numbers instead of the even ones.
    Inserter inserter(rep->rep(), scenario.keys, scenario.values, false);
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j) ASSERT_TRUE(inserter.Put(2 * j + 1, j + 1));
    const Measurement m = RunPhase(*scenario.info, *rep, scenario.input);
    EXPECT_FALSE(m.ok) << workload << " on other keys passed";
  }
}

TEST_P(WrongDataTest, ReadsOfOtherVersionsFail) {
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload);
    std::unique_ptr<BenchRep> rep;
    ASSERT_TRUE(scenario.Factory(GetParam())->NewRep(&rep).ok());
    // The right keys with sequences the data set does not have.
    Inserter inserter(rep->rep(), scenario.keys, scenario.values, false);
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j) {
      ASSERT_TRUE(inserter.Put(2 * j, j + 1 + 5000));
    }
    const Measurement m = RunPhase(*scenario.info, *rep, scenario.input);
    EXPECT_FALSE(m.ok) << workload << " on other versions passed";
  }
}

TEST_P(WrongDataTest, ReadsOfMissingKeysFail) {
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload);
    std::unique_ptr<BenchRep> rep;
    ASSERT_TRUE(scenario.Factory(GetParam())->NewRep(&rep).ok());
    // The data set but one key.
    Inserter inserter(rep->rep(), scenario.keys, scenario.values, false);
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j) {
      if (j == 300) continue;
      ASSERT_TRUE(inserter.Put(2 * j, j + 1));
    }
    Measurement m = RunPhase(*scenario.info, *rep, scenario.input);
    if (std::string(workload) == "readseq") {
      EXPECT_FALSE(m.ok) << "readseq without a key passed";
    } else {
      // Random reads may not meet the key; when they pass, they did not.
      bool met = false;
      for (const auto& reader : scenario.plan.read_keys) {
        for (uint32_t key : reader) met |= (key == 600 || (std::string(workload) == "seekrandom" &&
                                                           key <= 600 && key + 12 > 600));
      }
      if (met) {
        EXPECT_FALSE(m.ok) << workload << " without a key it reads passed";
      }
    }
  }
}

TEST_P(WrongDataTest, ReadsOfTheDataSetPass) {
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload);
    std::unique_ptr<BenchRep> rep;
    ASSERT_TRUE(scenario.Factory(GetParam())->NewRep(&rep).ok());
    ASSERT_TRUE(FillDataSet(*rep, scenario.input).ok());
    const Measurement m = RunPhase(*scenario.info, *rep, scenario.input);
    EXPECT_TRUE(m.ok) << workload << ": " << m.error;
  }
}

INSTANTIATE_TEST_SUITE_P(SomeReps, WrongDataTest,
                         ::testing::Values("skip_list", "hash_skiplist", "sorted_hash"),
                         [](const auto& info) { return info.param; });

TEST(BenchChecks, GetChecksNameWhatWasWrong) {
  const VersionRule rule{100, false};
  GetResult hit{true, 6, true};
  EXPECT_EQ(CheckGet(10, hit, rule), "");  // key 10 is index 5, seq 6
  EXPECT_NE(CheckGet(11, hit, rule), "");  // an absent key found
  EXPECT_NE(CheckGet(10, GetResult{}, rule), "");  // a present key missed
  EXPECT_NE(CheckGet(10, GetResult{true, 7, true}, rule), "");  // a wrong version
  EXPECT_NE(CheckGet(10, GetResult{true, 6, false}, rule), "");  // a wrong value
  const VersionRule rewriting{100, true};
  EXPECT_EQ(CheckGet(10, GetResult{true, 150, true}, rewriting), "");  // the writer's
  EXPECT_NE(CheckGet(10, GetResult{true, 250, true}, rewriting), "");  // nobody's
}

TEST(BenchFlags, ParsesAndRefuses) {
  auto parse = [](std::vector<const char*> args, Flags* f) {
    args.insert(args.begin(), "memrep_bench");
    bool help = false;
    return ParseFlags(static_cast<int>(args.size()), args.data(), f, &help);
  };
  Flags f;
  ASSERT_TRUE(parse({"--benchmarks=fillseq,readrandom", "--memtablerep=skiplist,sorted_hash",
                     "-num_operations=5000", "--key_distribution=zipfian", "--zipf_theta=0.8",
                     "--freeze_before_reads", "--progress=false", "--json=/tmp/x.json"},
                    &f)
                  .ok());
  EXPECT_EQ(f.benchmarks, (std::vector<std::string>{"fillseq", "readrandom"}));
  EXPECT_EQ(f.reps, (std::vector<std::string>{"skip_list", "sorted_hash"}));
  EXPECT_EQ(f.num_operations, 5000u);
  EXPECT_EQ(f.key_distribution, KeyDistribution::kZipfian);
  EXPECT_DOUBLE_EQ(f.zipf_theta, 0.8);
  EXPECT_TRUE(f.freeze_before_reads);
  EXPECT_FALSE(f.progress);
  EXPECT_EQ(f.json_path, "/tmp/x.json");
  ASSERT_TRUE(parse({"--benchmarks=all", "--memtablerep=all"}, &f).ok());
  EXPECT_EQ(f.benchmarks.size(), KnownWorkloads().size());
  EXPECT_EQ(f.reps, KnownReps());

  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"--num_operations=lots"},     {"--num_operations=0"},
           {"--num_operations=-5"},       {"--num_threads=100000"},
           {"--benchmarks=fillrandom,fly"}, {"--benchmarks=readseq,readseq"},
           {"--memtablerep=btree"},       {"--memtablerep="},
           {"--key_size=4"},              {"--zipf_theta=1"},
           {"--read_miss_ratio=2"},       {"--key_distribution=normal"},
           {"--no_such_flag=1"},          {"--num_operations"},
           {"stray"},                     {"--progress=maybe"},
           {"--key_size=8", "--prefix_length=9"}}) {
    Flags g;
    Status s = parse(bad, &g);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad[0];
    EXPECT_FALSE(s.message().empty());
  }
  EXPECT_NE(Usage().find("--num_operations"), std::string::npos);
}

TEST(BenchReport, MediansAndRatios) {
  Flags flags;
  flags.benchmarks = {"fillrandom"};
  flags.reps = {"sorted_hash", "skip_list"};
  auto run = [](const char* rep, uint64_t ops, double seconds) {
    RunRecord r{"fillrandom", rep, 0, Measurement()};
    r.m.ops = ops;
    r.m.seconds = seconds;
    return r;
  };
  const std::vector<RunRecord> runs = {run("skip_list", 100, 1), run("skip_list", 300, 1),
                                       run("skip_list", 200, 1), run("sorted_hash", 800, 1),
                                       run("sorted_hash", 1000, 1)};
  const std::vector<Summary> summaries = Summarize(runs, flags);
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].rep, "sorted_hash");
  EXPECT_DOUBLE_EQ(summaries[0].Get("ops_per_sec"), 900);  // median of two: the mean
  EXPECT_DOUBLE_EQ(summaries[1].Get("ops_per_sec"), 200);
  EXPECT_DOUBLE_EQ(summaries[0].ratio, 4.5);
  EXPECT_DOUBLE_EQ(summaries[1].ratio, 1.0);
  EXPECT_NE(FormatTable(flags, summaries).find("4.50x"), std::string::npos);
  EXPECT_EQ(FormatCount(1234567), "1.23M");
}

}  // namespace
}  // namespace memrep::bench
