// memrep.Auto: its statistics, its policy's decision table, its options, and
// its choices across the memtables of a lineage (the standalone face).
#include "memrep/auto.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "auto/policy.h"
#include "auto/workload_recorder.h"
#include "memrep/memtable.h"
#include "memrep/registry.h"
#include "registry/registry.h"

namespace memrep {
namespace {

using auto_rep::Choose;
using auto_rep::PolicyChoice;
using auto_rep::PolicyInput;
using auto_rep::WorkloadRecorder;

const std::vector<std::string> kAll = {"memrep.SortedHash", "memrep.Vector", "memrep.Trie",
                                       "memrep.Columnar"};

WorkloadStats Writes(uint64_t n) {
  WorkloadStats s;
  s.inserts = n;
  return s;
}

// The decision table is the prior's: nothing measured, no trials
// (tests/auto_learning_test.cc drives the policy with measured costs).
PolicyInput Input(std::string current, std::vector<WorkloadStats> history,
                  std::vector<std::string> candidates = kAll) {
  PolicyInput in;
  in.learn = false;
  in.candidates = std::move(candidates);
  in.current = std::move(current);
  in.history = std::move(history);
  return in;
}

std::string Chosen(const PolicyInput& in) { return in.candidates[Choose(in).index]; }

// ---- The decision table (docs/auto.md) ----

TEST(AutoPolicy, WritesAloneChooseTheCheapestWriterCountingBackgroundWork) {
  // A single writer: the vector's appends win, its later sort included.
  EXPECT_EQ(Chosen(Input("memrep.SortedHash", {Writes(100000)})), "memrep.Vector");
  // Concurrent writers: the vector's per-thread lists.
  WorkloadStats concurrent;
  concurrent.concurrent_inserts = 100000;
  EXPECT_EQ(Chosen(Input("memrep.SortedHash", {concurrent})), "memrep.Vector");
  // Batches (the standalone face), every core busy: the trie, which does no
  // background work, beats the vector's cheap appends and later sort.
  WorkloadStats batched;
  batched.batch_entries = 100000;
  batched.batches = 100;
  EXPECT_EQ(Chosen(Input("memrep.SortedHash", {batched})), "memrep.Trie");
  // Spare cores: background work is free, and the vector wins them too.
  PolicyInput spare = Input("memrep.SortedHash", {batched});
  spare.background_weight_percent = 0;
  EXPECT_EQ(Chosen(spare), "memrep.Vector");
}

TEST(AutoPolicy, PointReadsWhileWritingChooseTheBestReader) {
  WorkloadStats s = Writes(100000);
  s.gets = 50000;
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s})), "memrep.Trie");
  // Without the bytewise reps (a custom comparator leaves them out), the
  // hash index reads best, from more reads per write.
  s.gets = 100000;
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s}, {"memrep.SortedHash", "memrep.Vector"})),
            "memrep.SortedHash");
}

TEST(AutoPolicy, ScansWhileWritingChooseTheTrie) {
  WorkloadStats s = Writes(100000);
  s.seeks = 50000;
  s.steps = 800000;
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s})), "memrep.Trie");
  EXPECT_EQ(Chosen(Input("memrep.Columnar", {s}, {"memrep.SortedHash", "memrep.Columnar"})),
            "memrep.SortedHash");
}

const std::vector<std::string> kAnyOrder = {"memrep.SortedHash", "memrep.Vector"};

TEST(AutoPolicy, AReaderThreadBesideTheWriterIsWeighedAsAThreadOfItsOwn) {
  // One seek per 60 writes, made by the writer itself: cheap writes win.
  WorkloadStats same = Writes(600000);
  same.seeks = 10000;
  same.writer_threads = 1;
  EXPECT_EQ(Chosen(Input("memrep.Vector", {same})), "memrep.Vector");
  // The same seeks from a thread that only reads: that thread's seeks are
  // 2.7 times as slow on the vector, the writer's writes 1.2 times as slow
  // on the trie: the trie.
  WorkloadStats beside = same;
  beside.reader_threads = 1;
  beside.reader_seeks = 10000;
  const PolicyChoice c = Choose(Input("memrep.Vector", {beside}));
  EXPECT_EQ(kAll[c.index], "memrep.Trie") << c.reason;
  EXPECT_NE(c.reason.find("reader threads 1.0 beside writers 1.0"), std::string::npos) << c.reason;
  // So are point reads: four reader threads.
  WorkloadStats readers = Writes(600000);
  readers.writer_threads = 1;
  readers.reader_threads = 4;
  readers.gets = readers.reader_gets = 1200000;
  EXPECT_EQ(Chosen(Input("memrep.Vector", {readers})), "memrep.Trie");
  // Readers that read almost never do not count.
  readers.gets = readers.reader_gets = 100;
  EXPECT_EQ(Chosen(Input("memrep.Trie", {readers})), "memrep.Vector");
}

TEST(AutoPolicy, AThreadIsWeighedByTheShareOfItsTimeInTheMemtable) {
  // One reader's seeks beside the writer choose the trie (as above).
  WorkloadStats s = Writes(600000);
  s.writer_threads = 1;
  s.reader_threads = 1;
  s.seeks = s.reader_seeks = 10000;
  s.reader_seek_times = {100, 100 * 2000};  // 2 us a seek: 20 ms in the rep
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s})), "memrep.Trie");
  // The reader was about for 12 s, so 11.98 s of it outside this memtable
  // (in files, say): 19967 ns a write. A rep's seeks then hardly slow it,
  // and the writer's cheaper writes decide, by more than the margin: it
  // compares the threads' time in the memtable, not their whole time.
  s.reader_span_nanos = 12'000'000'000;
  EXPECT_NEAR(auto_rep::OutsidePerWrite(s, /*readers=*/true), 19966.7, 0.1);
  EXPECT_EQ(auto_rep::OutsidePerWrite(s, /*readers=*/false), 0);
  const PolicyChoice c = Choose(Input("memrep.Trie", {s}));
  EXPECT_EQ(kAll[c.index], "memrep.Vector") << c.reason;
  EXPECT_NE(c.reason.find("outside the memtable per write: writers 0 ns, readers 19967 ns"),
            std::string::npos)
      << c.reason;
  // The writer too spends nearly all its time outside (its log, say): the
  // reader's seeks weigh again.
  s.insert_times = {1000, 1000 * 500};  // 0.5 us an insert: 0.3 s in the rep
  s.writer_span_nanos = 120'300'000'000;
  EXPECT_NEAR(auto_rep::OutsidePerWrite(s, /*readers=*/false), 200000, 0.1);
  const PolicyChoice again = Choose(Input("memrep.Vector", {s}));
  EXPECT_EQ(kAll[again.index], "memrep.Trie") << again.reason;
}

TEST(AutoPolicy, AFewReadsDoNotOutweighWrites) {
  WorkloadStats s = Writes(100000);
  s.gets = 100;  // 0.001 per write
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s}, kAnyOrder)), "memrep.Vector");
  s.gets = 60000;  // 0.6 per write: past the crossover (about 0.39)
  EXPECT_EQ(Chosen(Input("memrep.Vector", {s}, kAnyOrder)), "memrep.SortedHash");
}

TEST(AutoPolicy, HysteresisKeepsARepWithinTheMargin) {
  // Reads at the rate where the sorted hash and the vector cost about the
  // same: whichever is current stays.
  WorkloadStats s = Writes(100000);
  s.gets = 38900;
  PolicyInput in = Input("memrep.SortedHash", {s}, kAnyOrder);
  in.margin_percent = 15;
  EXPECT_EQ(Chosen(in), "memrep.SortedHash");
  in.current = "memrep.Vector";
  EXPECT_EQ(Chosen(in), "memrep.Vector");
  // With no margin, the cheaper one wins from either side.
  in.margin_percent = 0;
  const std::string best = Chosen(in);
  in.current = best == "memrep.Vector" ? "memrep.SortedHash" : "memrep.Vector";
  EXPECT_EQ(Chosen(in), best);
}

TEST(AutoPolicy, TheNewestMemtableWeighsMost) {
  WorkloadStats reads = Writes(100000);
  reads.gets = 100000;
  // A read-heavy memtable after a write-only one: reads decide.
  EXPECT_EQ(Chosen(Input("memrep.Vector", {reads, Writes(100000)}, kAnyOrder)),
            "memrep.SortedHash");
  // A write-only memtable after a read-heavy one: the history still reads
  // 1/3 of a get per write (weights 1 and 1/2): the vector would be cheaper,
  // but not by the margin.
  EXPECT_EQ(Chosen(Input("memrep.SortedHash", {Writes(100000), reads}, kAnyOrder)),
            "memrep.SortedHash");
  // Two write-only memtables: the writer wins.
  EXPECT_EQ(Chosen(Input("memrep.SortedHash", {Writes(100000), Writes(100000)}, kAnyOrder)),
            "memrep.Vector");
}

TEST(AutoPolicy, PinRotateAndStart) {
  PolicyInput in = Input("memrep.SortedHash", {Writes(1000)});
  in.pin = "memrep.Columnar";
  EXPECT_EQ(Chosen(in), "memrep.Columnar");
  EXPECT_EQ(Choose(in).reason, "pinned");
  in.pin.clear();
  in.rotate = true;
  EXPECT_EQ(Chosen(in), "memrep.Vector");
  in.current = "memrep.Columnar";
  EXPECT_EQ(Chosen(in), "memrep.SortedHash");
  in.rotate = false;
  in.history.clear();
  in.current.clear();
  in.start = "memrep.Trie";
  EXPECT_EQ(Chosen(in), "memrep.Trie");
  in.start.clear();
  EXPECT_EQ(Chosen(in), "memrep.SortedHash") << "no start: the first candidate";
}

TEST(AutoPolicy, TheReasonNamesTheRatesAndTheCosts) {
  WorkloadStats s = Writes(1000);
  s.gets = 500;
  const std::string reason = Choose(Input("memrep.Vector", {s})).reason;
  EXPECT_NE(reason.find("0.50 gets"), std::string::npos) << reason;
  EXPECT_NE(reason.find("memrep.Trie="), std::string::npos) << reason;
  EXPECT_NE(reason.find("switch"), std::string::npos) << reason;
}

// ---- The recorder ----

TEST(AutoStats, CountsFromManyThreadsAreExactUpToSixteen) {
  WorkloadRecorder recorder(/*bytewise=*/true);
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        recorder.Add(WorkloadRecorder::kConcurrentInserts);
        if (recorder.CountAllocation(10)) recorder.SampleKey("prefix-" + std::to_string(i));
        (void)recorder.CountGet();
      }
    });
  }
  for (auto& t : threads) t.join();
  const WorkloadStats s = recorder.Snapshot();
  // Threads of this test have distinct slots unless the process already
  // numbered more than 16 threads; the counts are then an estimate.
  EXPECT_EQ(s.concurrent_inserts, uint64_t{kThreads} * kEach);
  EXPECT_EQ(s.gets, uint64_t{kThreads} * kEach);
  EXPECT_EQ(s.entry_bytes, uint64_t{kThreads} * kEach * 10);
  EXPECT_GT(s.sampled_keys, 0u);
  // Every sampled key starts with "prefix-": at least 7 shared bytes.
  EXPECT_GE(s.sampled_shared_bytes, 7 * s.sampled_keys);
  EXPECT_TRUE(s.bytewise);
}

// Runs `write` on one thread, then `read` on another, and snapshots. The
// writer stays alive until the reader is done: a thread's slot is given to
// the next new thread once it exits (ThreadSlot), and two live threads hold
// distinct slots (16 shards: fewer than 16 live threads).
template <typename Write, typename Read>
WorkloadStats WriterThenReader(WorkloadRecorder& recorder, Write write, Read read) {
  std::atomic<bool> wrote{false}, done{false};
  std::thread writer([&] {
    write();
    wrote.store(true);
    while (!done.load()) std::this_thread::yield();
  });
  while (!wrote.load()) std::this_thread::yield();
  std::thread reader(read);
  reader.join();
  done.store(true);
  writer.join();
  return recorder.Snapshot();
}

TEST(AutoStats, ThreadsThatOnlyReadAreCountedAsReaders) {
  WorkloadRecorder recorder(/*bytewise=*/true);
  const WorkloadStats s = WriterThenReader(
      recorder,
      [&] {
        for (int i = 0; i < 1000; ++i) recorder.Add(WorkloadRecorder::kInserts);
        for (int i = 0; i < 10; ++i) (void)recorder.CountGet();
      },
      [&] {
        for (int i = 0; i < 300; ++i) (void)recorder.CountGet();
        recorder.Add(WorkloadRecorder::kSeeks, 7);
        recorder.Add(WorkloadRecorder::kSteps, 70);
      });
  EXPECT_EQ(s.writer_threads, 1u);
  EXPECT_EQ(s.reader_threads, 1u);
  EXPECT_EQ(s.gets, 310u);
  EXPECT_EQ(s.reader_gets, 300u);
  EXPECT_EQ(s.reader_seeks, 7u);
  EXPECT_EQ(s.reader_steps, 70u);
}

TEST(AutoStats, EachThreadIsAboutFromItsFirstTimedCallToItsLast) {
  WorkloadRecorder recorder(/*bytewise=*/true);
  const WorkloadStats s = WriterThenReader(
      recorder,
      [&] {
        recorder.Add(WorkloadRecorder::kInserts);
        recorder.AddTimeAt(WorkloadRecorder::kTimeInsert, 1000, 1100);
        recorder.AddTimeAt(WorkloadRecorder::kTimeInsert, 5000, 5100);
      },
      [&] {
        (void)recorder.CountGet();
        recorder.AddTimeAt(WorkloadRecorder::kTimeGet, 2000, 2500);
        recorder.AddTimeAt(WorkloadRecorder::kTimeSeek, 9000, 9300);
      });
  EXPECT_EQ(s.writer_span_nanos, 4100u);
  EXPECT_EQ(s.reader_span_nanos, 7300u);
  EXPECT_EQ(s.insert_times.timed, 2u);
  EXPECT_EQ(s.reader_get_times.timed, 1u);
  EXPECT_EQ(s.reader_seek_times.timed, 1u);
}

// ---- Options ----

TEST(AutoStats, ASampleOfAThreadThatLostItsCoreIsLeftOut) {
  WorkloadRecorder recorder(/*bytewise=*/true);
  const uint64_t slice = WorkloadRecorder::kPreemptedNanos + 1;
  recorder.Add(WorkloadRecorder::kInserts);  // a writer's thread: its times are the writers'
  recorder.AddTime(WorkloadRecorder::kTimeStep, 100);
  recorder.AddTime(WorkloadRecorder::kTimeStep, slice);  // no step takes that long
  recorder.AddTime(WorkloadRecorder::kTimeGet, slice);
  recorder.AddTime(WorkloadRecorder::kTimeSeek, slice);  // a seek may sort a tail
  recorder.AddTime(WorkloadRecorder::kTimeBatchEntry, slice, 100);
  const WorkloadStats s = recorder.Snapshot();
  EXPECT_EQ(s.step_times.timed, 1u);
  EXPECT_EQ(s.step_times.nanos, 100u);
  EXPECT_EQ(s.get_times.timed, 0u);
  EXPECT_EQ(s.seek_times.timed, 1u);
  EXPECT_EQ(s.seek_times.nanos, slice);
  EXPECT_EQ(s.batch_entry_times.timed, 100u);
}

TEST(AutoOptions, RefusesCandidatesThatCannotBeChosen) {
  RepSpec spec;
  Status s = RepSpec::Parse("id=memrep.Auto; candidates=sorted_hash,nosuch", &spec);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("'nosuch' is not a registered rep"), std::string::npos) << s.message();
  s = RepSpec::Parse("id=memrep.Auto; candidates=auto,vector_rep", &spec);
  EXPECT_NE(s.message().find("its own candidate"), std::string::npos) << s.message();
  s = RepSpec::Parse("id=memrep.Auto; candidates=sorted_hash,memrep.SortedHash", &spec);
  EXPECT_NE(s.message().find("listed twice"), std::string::npos) << s.message();
  s = RepSpec::Parse("id=memrep.Auto; candidates=sorted_hash,vector_rep; pin=trie", &spec);
  EXPECT_NE(s.message().find("pin=trie is not one of the candidates"), std::string::npos)
      << s.message();
  s = RepSpec::Parse("id=memrep.Auto; candidates=sorted_hash,,vector_rep", &spec);
  EXPECT_NE(s.message().find("empty name"), std::string::npos) << s.message();
  s = RepSpec::Parse("id=memrep.Auto; policy=random", &spec);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(
      RepSpec::Parse("id=memrep.Auto; candidates=sorted_hash, vector_rep; pin=vector_rep", &spec)
          .ok());
}

TEST(AutoOptions, TraitsAreThoseTheCandidatesShare) {
  RepSpec spec;
  ASSERT_TRUE(
      RepSpec::Parse("id=memrep.Auto; candidates=memrep.SortedHash,memrep.Trie", &spec).ok());
  EXPECT_EQ(spec.traits().duplicates, RepTraits::Duplicates::kAll);
  EXPECT_EQ(spec.traits().comparators, RepTraits::Comparators::kByteEquality);
  EXPECT_EQ(spec.traits().point_read_while_mutable, RepTraits::Cost::kLogarithmic);
  ASSERT_TRUE(spec.Set("candidates", "memrep.Trie,memrep.Vector").ok());
  EXPECT_EQ(spec.traits().duplicates, RepTraits::Duplicates::kSameThread);
  EXPECT_EQ(spec.traits().comparators, RepTraits::Comparators::kAny);
  EXPECT_TRUE(spec.traits().concurrent_insert);
}

TEST(AutoOptions, SpecRoundTrips) {
  AutoOptions o;
  o.candidates = "memrep.Vector,memrep.Trie";
  o.pin = "memrep.Trie";
  o.margin_percent = 30;
  ASSERT_TRUE(o.Validate().ok()) << o.Validate().ToString();
  RepSpec spec;
  ASSERT_TRUE(RepSpec::Parse(o.Spec(), &spec).ok()) << o.Spec();
  std::string value;
  ASSERT_TRUE(spec.Get("pin", &value).ok());
  EXPECT_EQ(value, "memrep.Trie");
  ASSERT_TRUE(RepSpec::Parse(spec.ToString(), &spec).ok()) << spec.ToString();
  o.pin = "memrep.Columnar";
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
}

// ---- A lineage of memtables (the standalone face) ----

std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(i * 0x9E3779B97F4A7C15ull));
  return buf;
}

class AutoLineage : public ::testing::Test {
 protected:
  // A new memtable of the lineage, as an engine switches to it.
  // The prior's choices (learn=false): what a test asserts must not depend
  // on this machine's timings.
  std::unique_ptr<MemTable> Next(
      const std::string& rep =
          "id=memrep.Auto; candidates=memrep.SortedHash,memrep.Vector; learn=false") {
    MemTableOptions o;
    o.rep = rep;
    o.write_buffer_size = 4 << 20;
    o.lineage = lineage_;
    std::unique_ptr<MemTable> t;
    Status s = MemTable::Open(o, &t);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return t;
  }
  std::string Current() const { return AutoCountersOf(*lineage_).recent.back().rep; }

  void Fill(MemTable& t, bool read) {
    for (int i = 0; i < 3000; ++i) {
      ASSERT_TRUE(t.Put(Key(seq_), "value", seq_).ok());
      ++seq_;
      if (read) {
        std::string v;
        EXPECT_TRUE(t.Get(Key(seq_ - 1), kMaxSequenceNumber, &v).ok());
      }
    }
  }

  std::shared_ptr<RepLineage> lineage_ = std::make_shared<RepLineage>();
  uint64_t seq_ = 1;
};

TEST_F(AutoLineage, ItSettlesOnEachPhasesRepWithinTwoSwitches) {
  auto t = Next();
  EXPECT_EQ(Current(), "memrep.SortedHash") << "the start rep";
  // A write-only phase, then a read-heavy one, then write-only again.
  for (bool read : {false, true, false}) {
    size_t changes = 0;
    std::string previous = Current();
    for (int m = 0; m < 5; ++m) {
      Fill(*t, read);
      ASSERT_TRUE(t->Freeze().ok());
      t = Next();
      if (Current() != previous) ++changes;
      previous = Current();
    }
    EXPECT_EQ(Current(), read ? "memrep.SortedHash" : "memrep.Vector");
    EXPECT_LE(changes, 2u);
  }
  const AutoCounters c = AutoCountersOf(*lineage_);
  EXPECT_EQ(c.memtables, 16u);
  EXPECT_EQ(c.switches, 3u);
  uint64_t total = 0;
  for (const auto& [rep, n] : c.per_rep) total += n;
  EXPECT_EQ(total, c.memtables);
  EXPECT_TRUE(c.recent.back().reason.find("per write") != std::string::npos)
      << c.recent.back().reason;
}

// The RocksDB face logs each memtable's decision through the registry's
// describe_decision hook, which only a rep that decides per memtable fills.
TEST_F(AutoLineage, TheRegistryDescribesEachDecisionAsALogLine) {
  const std::string rotate =
      "id=memrep.Auto; candidates=memrep.SortedHash,memrep.Vector; policy=rotate";
  RepSpec auto_spec, sorted_hash;
  ASSERT_TRUE(RepSpec::Parse(rotate, &auto_spec).ok());
  ASSERT_TRUE(RepSpec::Parse("memrep.SortedHash", &sorted_hash).ok());
  EXPECT_EQ(registry::DescribeNewestDecision(auto_spec, *lineage_), "") << "no memtable yet";
  auto t = Next(rotate);
  const std::string first = registry::DescribeNewestDecision(auto_spec, *lineage_);
  EXPECT_EQ(first.rfind("memrep.Auto: memtable 1 uses memrep.SortedHash (the first): ", 0), 0u)
      << first;
  t = Next(rotate);
  const std::string second = registry::DescribeNewestDecision(auto_spec, *lineage_);
  EXPECT_EQ(
      second.rfind("memrep.Auto: memtable 2 uses memrep.Vector (switched from memrep.SortedHash): ",
                   0),
      0u)
      << second;
  EXPECT_EQ(registry::DescribeNewestDecision(sorted_hash, *lineage_), "");
}

TEST_F(AutoLineage, StatisticsCountWhatTheMemtableWasAsked) {
  auto t = Next();
  Fill(*t, /*read=*/true);
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(t->NewIterator(&it).ok());
  it->Seek(Key(5));
  for (int i = 0; i < 9 && it->Valid(); ++i) it->Next();
  it.reset();
  WriteBatch batch;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(batch.Put("batch" + std::to_string(i), "v").ok());
  ASSERT_TRUE(t->Write(batch, 1'000'000).ok());
  std::string v;
  for (int i = 0; i < 320; ++i)
    EXPECT_TRUE(t->Get("absent" + std::to_string(i), kMaxSequenceNumber, &v).IsNotFound());
  const WorkloadStats s = NewestStatsOf(*lineage_);
  EXPECT_EQ(s.writes(), 3010u);
  EXPECT_EQ(s.batches, 1u);
  EXPECT_EQ(s.batch_entries, 10u);
  EXPECT_EQ(s.gets, 3320u);
  EXPECT_EQ(s.iterators, 1u);
  EXPECT_EQ(s.seeks, 1u);
  EXPECT_EQ(s.steps, 9u);
  // 1 get in 16 is looked at: 3000 hits, then 320 misses.
  EXPECT_EQ(s.sampled_gets, s.gets / WorkloadRecorder::kGetSampleEvery);
  EXPECT_NEAR(static_cast<double>(s.sampled_hits), 3000.0 / 16, 2);
  EXPECT_GT(s.sampled_keys, 0u);
  EXPECT_EQ(s.sampled_key_bytes, 16 * s.sampled_keys);
}

TEST_F(AutoLineage, AMemtableWithoutALineageUsesTheStartRep) {
  MemTableOptions o;
  o.rep = "id=memrep.Auto; start=vector_rep";
  std::unique_ptr<MemTable> t;
  ASSERT_TRUE(MemTable::Open(o, &t).ok());
  EXPECT_EQ(t->rep_name(), "memrep.Auto");
  ASSERT_TRUE(t->Put("a", "1", 1).ok());
  std::string v;
  ASSERT_TRUE(t->Get("a", 1, &v).ok());
  EXPECT_EQ(v, "1");
}

TEST_F(AutoLineage, ACustomComparatorLeavesTheBytewiseRepsOut) {
  // The trie orders keys by their bytes; the reps on sorted runs take any
  // comparator (the hash indexes, any that says equal keys have equal bytes).
  struct Reverse : UserKeyComparator {
    const char* Name() const override { return "test.Reverse"; }
    int Compare(std::string_view a, std::string_view b) const override { return b.compare(a); }
  };
  static const Reverse reverse;
  MemTableOptions o;
  o.rep = "id=memrep.Auto; policy=rotate";
  o.comparator = &reverse;
  o.lineage = lineage_;
  for (int i = 0; i < 4; ++i) {
    std::unique_ptr<MemTable> t;
    ASSERT_TRUE(MemTable::Open(o, &t).ok());
    EXPECT_NE(Current(), "memrep.Trie") << Current();
  }
  o.rep = "id=memrep.Auto; candidates=memrep.Trie";
  std::unique_ptr<MemTable> t;
  const Status s = MemTable::Open(o, &t);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

}  // namespace
}  // namespace memrep
