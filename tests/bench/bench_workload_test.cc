// memrep_bench's workloads check what they read: every workload passes on
// every rep that can run it, and a workload run against the wrong data — an
// empty rep, other keys, other versions — fails instead of reporting a fast
// number. Also the flags and the report's medians.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "flags.h"
#include "memrep/memtable.h"
#include "report.h"
#include "standalone_face.h"
#include "workload_ops.h"
#include "workloads.h"

namespace memrep::bench {
namespace {

// Uninstrumented librocksdb publishes entries with atomics ThreadSanitizer
// cannot see, so a reader thread's decode of an entry another thread wrote
// looks like a race; the mixed workloads on RocksDB's reps (not memrep's)
// run outside TSan.
#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderTsan = true;
#else
constexpr bool kUnderTsan = false;
#endif

const KnownRep& Known(const std::string& name) {
  static const std::vector<KnownRep> reps = KnownReps();
  for (const KnownRep& rep : reps) {
    if (rep.name == name) return rep;
  }
  ADD_FAILURE() << "no rep " << name;
  return reps.front();
}

// The first rep whose traits satisfy `want`, or "" if none.
std::string FirstRepWhere(bool (*want)(const RepTraits&)) {
  for (const KnownRep& rep : KnownReps()) {
    if (want(rep.traits)) return rep.name;
  }
  return "";
}

const KnownRep& FirstMemrepRep() {
  static const std::vector<KnownRep> reps = KnownReps();
  for (const KnownRep& rep : reps) {
    if (rep.memrep) return rep;
  }
  ADD_FAILURE() << "memrep::ListReps() lists no rep";
  return reps.front();
}

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
        keys(flags.key_size, flags.shared_prefix),
        values(flags.item_size, flags.seed) {
    input.flags = &flags;
    input.keys = &keys;
    input.values = &values;
    input.plan = &plan;
    input.label = workload;
  }

  std::unique_ptr<RepFactory> Factory(const std::string& rep) const {
    RepConfig config = RepConfigOf(flags);
    std::unique_ptr<RepFactory> f;
    Status s = RepFactory::Make(rep, config, ExpectedArenaBytes(*info, flags), &f);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return f;
  }

  Flags flags;
  const WorkloadInfo* info;
  KeyPlan plan;
  KeyCodec keys;
  ValuePool values;
  WorkloadInput input;
};

// The writes and reads a run of 600 operations counted.
void ExpectCounts(const WorkloadInfo& workload, const Measurement& m, const std::string& what) {
  if (workload.name == "mix8020") {
    // n operations: n / 5 Puts, the rest Gets.
    EXPECT_EQ(m.write_ops, 120u) << what;
    EXPECT_EQ(m.hits + m.misses, 480u) << what;
  } else if (workload.kind == WorkloadKind::kMixed) {
    EXPECT_EQ(m.write_ops, 600u) << what;
  }
  if (workload.name == "readrandom" || workload.name == "multiget") {
    EXPECT_EQ(m.hits + m.misses, 600u) << what;
  }
}

TEST(BenchWorkloads, EveryWorkloadPassesOnEveryRepThatRunsIt) {
  for (const WorkloadInfo& workload : KnownWorkloads()) {
    Scenario scenario(workload.name);
    for (const std::string& rep : KnownRepNames()) {
      if (kUnderTsan && workload.kind == WorkloadKind::kMixed && !Known(rep).memrep) continue;
      std::unique_ptr<RepFactory> factory = scenario.Factory(rep);
      const Measurement m = RunWorkload(workload, *factory, scenario.input);
      const std::string what = workload.name + " on " + rep;
      ASSERT_TRUE(m.ok) << what << ": " << m.error;
      if (m.skipped) continue;
      EXPECT_GT(m.ops, 0u) << what;
      EXPECT_GT(m.seconds, 0) << what;
      EXPECT_GT(m.entries, 0u) << what;
      EXPECT_GT(m.bytes_per_entry(), 0) << what;
      EXPECT_GE(m.background_cpu_seconds, 0) << what << ": the pool's CPU was not measured";
      ExpectCounts(workload, m, what);
    }
  }
}

// Skips follow the traits: a rep without concurrent inserts skips
// concurrentfill; one whose point reads are linear while it is mutable skips
// readrandom (unless frozen first) and the mixed workloads; others run them.
TEST(BenchWorkloads, SkipsFollowTheTraits) {
  const std::string serial = FirstRepWhere([](const RepTraits& t) { return !t.concurrent_insert; });
  const std::string concurrent =
      FirstRepWhere([](const RepTraits& t) { return t.concurrent_insert; });
  ASSERT_NE(serial, "");
  ASSERT_NE(concurrent, "");
  Scenario scenario("concurrentfill");
  const Measurement m = RunWorkload(*scenario.info, *scenario.Factory(serial), scenario.input);
  EXPECT_TRUE(m.ok);
  EXPECT_TRUE(m.skipped) << serial;
  EXPECT_NE(m.note.find("concurrent"), std::string::npos) << m.note;
  EXPECT_EQ(SkipReason(*scenario.info, *scenario.Factory(concurrent), scenario.flags), "");

  const std::string linear = FirstRepWhere(
      [](const RepTraits& t) { return t.point_read_while_mutable == RepTraits::Cost::kLinear; });
  const std::string sublinear = FirstRepWhere(
      [](const RepTraits& t) { return t.point_read_while_mutable != RepTraits::Cost::kLinear; });
  ASSERT_NE(linear, "");
  ASSERT_NE(sublinear, "");
  Scenario reads("readrandom");
  EXPECT_NE(SkipReason(*reads.info, *reads.Factory(linear), reads.flags), "");
  EXPECT_EQ(SkipReason(*reads.info, *reads.Factory(sublinear), reads.flags), "");
  Scenario mixed("readwrite");
  EXPECT_NE(SkipReason(*mixed.info, *mixed.Factory(linear), mixed.flags), "");
  EXPECT_EQ(SkipReason(*mixed.info, *mixed.Factory(sublinear), mixed.flags), "");
  reads.flags.freeze_before_reads = true;
  EXPECT_EQ(SkipReason(*reads.info, *reads.Factory(linear), reads.flags), "");
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
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j)
      ASSERT_TRUE(inserter.Put(2 * j + 1, j + 1));
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
        for (uint32_t key : reader)
          met |= (key == 600 ||
                  (std::string(workload) == "seekrandom" && key <= 600 && key + 12 > 600));
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

// Every rep but those whose point reads sort the whole mutable rep.
std::vector<std::string> RepsWithSublinearReads() {
  std::vector<std::string> names;
  for (const KnownRep& rep : KnownReps()) {
    if (rep.traits.point_read_while_mutable != RepTraits::Cost::kLinear) names.push_back(rep.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(RepsWithSublinearReads, WrongDataTest,
                         ::testing::ValuesIn(RepsWithSublinearReads()), [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(BenchChecks, GetChecksNameWhatWasWrong) {
  const VersionRule rule{100, false};
  GetResult hit{true, 6, true};
  EXPECT_EQ(CheckGet(10, hit, rule), "");                        // key 10 is index 5, seq 6
  EXPECT_NE(CheckGet(11, hit, rule), "");                        // an absent key found
  EXPECT_NE(CheckGet(10, GetResult{}, rule), "");                // a present key missed
  EXPECT_NE(CheckGet(10, GetResult{true, 7, true}, rule), "");   // a wrong version
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
  // A memrep rep by its canonical name runs under its bench name.
  const KnownRep& memrep_rep = FirstMemrepRep();
  const std::string reps_arg = "--memtablerep=skiplist," + memrep_rep.canonical_name;
  Flags f;
  EXPECT_EQ(f.reps, DefaultReps());
  ASSERT_TRUE(parse({"--benchmarks=fillseq,readrandom", reps_arg.c_str(), "-num_operations=5000",
                     "--key_distribution=zipfian", "--zipf_theta=0.8", "--freeze_before_reads",
                     "--progress=false", "--json=/tmp/x.json"},
                    &f)
                  .ok());
  EXPECT_EQ(f.benchmarks, (std::vector<std::string>{"fillseq", "readrandom"}));
  EXPECT_EQ(f.reps, (std::vector<std::string>{"skip_list", memrep_rep.name}));
  EXPECT_TRUE(f.rep_options.empty());
  EXPECT_FALSE(f.list_reps);
  EXPECT_EQ(f.num_operations, 5000u);
  EXPECT_EQ(f.key_distribution, KeyDistribution::kZipfian);
  EXPECT_DOUBLE_EQ(f.zipf_theta, 0.8);
  EXPECT_TRUE(f.freeze_before_reads);
  EXPECT_FALSE(f.progress);
  EXPECT_EQ(f.json_path, "/tmp/x.json");
  EXPECT_EQ(f.face, BenchFace::kRep);
  EXPECT_EQ(f.shared_prefix, 0u);
  ASSERT_TRUE(
      parse({"--face=standalone", "--key_size=32", "--shared_prefix=24", "--batch_size=10"}, &f)
          .ok());
  EXPECT_EQ(f.face, BenchFace::kStandalone);
  EXPECT_EQ(f.shared_prefix, 24u);
  EXPECT_EQ(f.batch_size, 10u);
  ASSERT_TRUE(parse({"--key_size=16", "--shared_prefix=12"}, &f).ok());  // 4 bytes left: enough
  ASSERT_TRUE(parse({"--benchmarks=all", "--memtablerep=all", "--list_reps"}, &f).ok());
  EXPECT_EQ(f.benchmarks.size(), KnownWorkloads().size());
  EXPECT_EQ(f.reps, KnownRepNames());
  EXPECT_TRUE(f.list_reps);

  for (std::vector<const char*> bad :
       std::vector<std::vector<const char*>>{{"--num_operations=lots"},
                                             {"--num_operations=0"},
                                             {"--num_operations=-5"},
                                             {"--num_threads=100000"},
                                             {"--benchmarks=fillrandom,fly"},
                                             {"--benchmarks=readseq,readseq"},
                                             {"--memtablerep=btree"},
                                             {"--memtablerep="},
                                             {"--memtablerep=skip_list,skiplist"},  // one rep twice
                                             {"--memtablerep=id=no.SuchRep;x=1"},
                                             {"--sorted_hash_options=max_runs=4"},
                                             {"--key_size=4"},
                                             {"--zipf_theta=1"},
                                             {"--read_miss_ratio=2"},
                                             {"--key_distribution=normal"},
                                             {"--no_such_flag=1"},
                                             {"--num_operations"},
                                             {"stray"},
                                             {"--progress=maybe"},
                                             {"--key_size=8", "--prefix_length=9"},
                                             {"--face=library"},
                                             {"--batch_size=0"},
                                             {"--shared_prefix=16"},  // key_size 16: no byte left
                                             {"--key_size=16", "--shared_prefix=13"}}) {
    Flags g;
    Status s = parse(bad, &g);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad[0];
    EXPECT_FALSE(s.message().empty());
  }
  EXPECT_NE(Usage().find("--num_operations"), std::string::npos);
  EXPECT_NE(Usage().find("--shared_prefix"), std::string::npos);
  EXPECT_NE(Usage().find("--face"), std::string::npos);
  // The message says what is wrong and what to do.
  Flags g;
  Status s = parse({"--key_size=16", "--shared_prefix=14"}, &g);
  EXPECT_NE(s.message().find("--shared_prefix=14 leaves 2 byte(s) of --key_size=16"),
            std::string::npos)
      << s.message();
}

// Keys that share a 24-byte prefix: every workload passes on every rep that
// runs it, at the rep level.
TEST(BenchWorkloads, SharedPrefixKeysPassEveryWorkload) {
  Flags f = TinyFlags();
  f.key_size = 32;
  f.shared_prefix = 24;
  f.prefix_length = 32;  // RocksDB's hash reps: one key per bucket
  for (const WorkloadInfo& workload : KnownWorkloads()) {
    Scenario scenario(workload.name, f);
    for (const std::string& rep : KnownRepNames()) {
      if (kUnderTsan && workload.kind == WorkloadKind::kMixed && !Known(rep).memrep) continue;
      const Measurement m = RunWorkload(workload, *scenario.Factory(rep), scenario.input);
      ASSERT_TRUE(m.ok) << workload.name << " on " << rep << ": " << m.error;
      if (!m.skipped) {
        EXPECT_GT(m.ops, 0u) << workload.name << " on " << rep;
      }
    }
  }
}

Flags StandaloneFlags(uint32_t key_size, uint32_t shared_prefix) {
  Flags f = TinyFlags();
  f.face = BenchFace::kStandalone;
  f.key_size = key_size;
  f.shared_prefix = shared_prefix;
  f.batch_size = 64;
  return f;
}

// --face=standalone: memrep's reps through memrep::MemTable pass every
// workload they run, with today's keys and with keys sharing a prefix.
TEST(BenchStandaloneFace, EveryWorkloadPassesOnMemrepsRepsThroughMemTable) {
  for (const Flags& f : {StandaloneFlags(16, 0), StandaloneFlags(32, 24)}) {
    for (const WorkloadInfo& workload : KnownWorkloads()) {
      Scenario scenario(workload.name, f);
      for (const KnownRep& rep : KnownReps()) {
        if (!rep.memrep) continue;
        const std::string what = workload.name + " on " + rep.name + " (shared_prefix " +
                                 std::to_string(f.shared_prefix) + ")";
        const Measurement m = RunWorkload(workload, *scenario.Factory(rep.name), scenario.input);
        ASSERT_TRUE(m.ok) << what << ": " << m.error;
        EXPECT_EQ(m.face, BenchFace::kStandalone) << what;
        if (m.skipped) continue;
        EXPECT_GT(m.ops, 0u) << what;
        EXPECT_GT(m.seconds, 0) << what;
        EXPECT_GT(m.entries, 0u) << what;
        EXPECT_GT(m.bytes_per_entry(), 0) << what;  // MemTable::MemoryUsage()
        EXPECT_EQ(m.note.find(kRepLevelNote), std::string::npos) << what;
        ExpectCounts(workload, m, what);
      }
    }
  }
}

// The brief's scenario, from the command line: fillrandom and readrandom on
// memrep.SortedHash and memrep.Trie through --face=standalone, 32-byte keys
// sharing 24 bytes, no values.
TEST(BenchStandaloneFace, SortedHashAndTrieFillAndReadThroughMemTable) {
  std::vector<const char*> args = {"memrep_bench",
                                   "--face=standalone",
                                   "--benchmarks=fillrandom,readrandom,fillbatch,seekrandom",
                                   "--memtablerep=skip_list,memrep.SortedHash,memrep.Trie",
                                   "--num_operations=3000",
                                   "--key_size=32",
                                   "--shared_prefix=24",
                                   "--item_size=0",
                                   "--batch_size=100",
                                   "--repeats=1",
                                   "--progress=false"};
  Flags flags;
  bool help = false;
  ASSERT_TRUE(ParseFlags(static_cast<int>(args.size()), args.data(), &flags, &help).ok());
  std::vector<RunRecord> runs;
  for (const std::string& name : flags.benchmarks) {
    Scenario scenario(name, flags);
    for (const std::string& rep : flags.reps) {
      RunRecord record{name, rep, 0,
                       RunWorkload(*scenario.info, *scenario.Factory(rep), scenario.input)};
      ASSERT_TRUE(record.m.ok) << name << " on " << rep << ": " << record.m.error;
      ASSERT_FALSE(record.m.skipped) << name << " on " << rep;
      const bool memrep_rep = rep != "skip_list";
      EXPECT_EQ(record.m.face, memrep_rep ? BenchFace::kStandalone : BenchFace::kRep) << rep;
      // RocksDB's reps stay at the rep level, and the table says so.
      EXPECT_EQ(record.m.note.starts_with(kRepLevelNote), !memrep_rep) << record.m.note;
      if (name == "readrandom") {
        EXPECT_EQ(record.m.hits + record.m.misses, 3000u) << rep;
      }
      runs.push_back(std::move(record));
    }
  }
  const std::string table = FormatTable(flags, Summarize(runs, flags));
  EXPECT_NE(table.find("rep level: rows; hits"), std::string::npos) << table;
  EXPECT_NE(table.find("face=standalone"), std::string::npos) << table;
  EXPECT_NE(table.find("shared_prefix=24"), std::string::npos) << table;
  EXPECT_NE(table.find("MemTable: MemoryUsage()"), std::string::npos) << table;
}

// The standalone face's checks fail on wrong data, as the rep level's do.
TEST(BenchStandaloneFace, ReadsOfWrongDataFail) {
  const KnownRep& rep = FirstMemrepRep();
  for (const char* workload : {"readrandom", "readseq", "seekrandom"}) {
    Scenario scenario(workload, StandaloneFlags(16, 0));
    auto open = [&] {
      std::unique_ptr<MemTable> table;
      Status s = OpenStandaloneTable(*scenario.Factory(rep.name), scenario.flags, &table);
      EXPECT_TRUE(s.ok()) << s.ToString();
      return table;
    };
    auto put = [&](MemTable& table, uint64_t key_number, SequenceNumber seq) {
      ASSERT_TRUE(
          table.Put(scenario.keys.Make(key_number), scenario.values.ValueFor(seq), seq).ok());
    };
    std::unique_ptr<MemTable> empty = open();
    EXPECT_FALSE(RunStandalonePhase(*scenario.info, *empty, scenario.input).ok)
        << workload << " on an empty table passed";

    std::unique_ptr<MemTable> other_keys = open();
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j) put(*other_keys, 2 * j + 1, j + 1);
    EXPECT_FALSE(RunStandalonePhase(*scenario.info, *other_keys, scenario.input).ok)
        << workload << " on other keys passed";

    // The right keys with sequences (and so values) the data set does not have.
    std::unique_ptr<MemTable> other_versions = open();
    for (uint64_t j = 0; j < scenario.plan.num_keys; ++j) put(*other_versions, 2 * j, j + 5001);
    EXPECT_FALSE(RunStandalonePhase(*scenario.info, *other_versions, scenario.input).ok)
        << workload << " on other versions passed";

    std::unique_ptr<MemTable> right = open();
    ASSERT_TRUE(FillStandaloneDataSet(*right, scenario.input).ok());
    const Measurement m = RunStandalonePhase(*scenario.info, *right, scenario.input);
    EXPECT_TRUE(m.ok) << workload << ": " << m.error;
  }
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

  // The JSON records the options strings --memtablerep gave.
  flags.rep_options["sorted_hash"] = "id=memrep.SortedHash;max_runs=4";
  const std::string path = ::testing::TempDir() + "bench_report_test.json";
  ASSERT_TRUE(WriteJson(path, flags, runs, summaries).ok());
  std::ifstream in(path);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"rep_options\": {\"sorted_hash\": \"id=memrep.SortedHash;max_runs=4\"}"),
            std::string::npos)
      << json;
  EXPECT_EQ(FormatCount(1234567), "1.23M");
}

}  // namespace
}  // namespace memrep::bench
