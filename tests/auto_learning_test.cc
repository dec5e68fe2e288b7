// memrep.Auto's learning: the policy with measured costs and trials, the
// book of measured costs, the sampled times, and the learned_file. Costs
// are made up or come from a fake clock, so no test asserts a timing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "auto/clock.h"
#include "auto/cost_book.h"
#include "auto/lineage.h"
#include "auto/policy.h"
#include "memrep/auto.h"
#include "memrep/memtable.h"
#include "memrep/registry.h"

namespace memrep {
namespace {

using namespace auto_rep;  // NOLINT: the module under test

WorkloadStats Writes(uint64_t n) {
  WorkloadStats s;
  s.inserts = n;
  s.writer_threads = 1;
  return s;
}

PolicyInput Learning(std::string current, std::vector<WorkloadStats> history, const CostBook* book,
                     std::vector<std::string> candidates) {
  PolicyInput in;
  in.candidates = std::move(candidates);
  in.current = std::move(current);
  in.history = std::move(history);
  in.book = book;
  return in;
}

std::string Chosen(const PolicyInput& in) { return in.candidates[Choose(in).index]; }

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::vector<std::string> kVectorTrie = {"memrep.Vector", "memrep.Trie"};

// ---- The policy, with measured costs ----

TEST(AutoLearningPolicy, MeasuredCostsOverruleThePrior) {
  CostBook book;
  book.Add("memrep.Vector", kInsert, 600, 100);
  book.Add("memrep.Trie", kInsert, 200, 100);
  PolicyInput in = Learning("memrep.Vector", {Writes(10000)}, &book, kVectorTrie);
  in.background_weight_percent = 0;
  const PolicyChoice c = Choose(in);
  EXPECT_EQ(in.candidates[c.index], "memrep.Trie") << c.reason;
  EXPECT_FALSE(c.trial);
  EXPECT_TRUE(Has(c.reason, "memrep.Trie=200* (measured)")) << c.reason;
  EXPECT_TRUE(Has(c.reason, "memrep.Vector=600 (measured)")) << c.reason;
  // The prior alone says the vector's appends are cheaper.
  in.learn = false;
  EXPECT_EQ(Chosen(in), "memrep.Vector");
}

TEST(AutoLearningPolicy, ThePriorIsScaledToThisMachine) {
  // The vector was measured at twice its prior: the trie, unmeasured, is
  // priced at twice its prior too.
  CostBook book;
  book.Add("memrep.Vector", kInsert, 100, 100);
  PolicyInput in = Learning("memrep.Vector", {Writes(10000)}, &book, kVectorTrie);
  in.background_weight_percent = 0;
  const PolicyChoice c = Choose(in);
  EXPECT_TRUE(Has(c.reason, "prior x2.00")) << c.reason;
  EXPECT_TRUE(Has(c.reason, "memrep.Trie=380 (prior)")) << c.reason;
}

TEST(AutoLearningPolicy, ACandidateNoMeasurementCoversIsTriedWithinTheBudget) {
  // Writes alone on the vector, measured as the prior says (50 + 110 ns of
  // background per write): the trie's prior (190) is within reach, the
  // sorted hash's (370) and the columnar rep's (380) are not.
  CostBook book;
  book.Add("memrep.Vector", kInsert, 50, 100);
  book.Add("memrep.Vector", kBackground, 110, 10000);
  const std::vector<std::string> all = {"memrep.SortedHash", "memrep.Vector", "memrep.Trie",
                                        "memrep.Columnar"};
  PolicyInput in = Learning("memrep.Vector", {Writes(10000)}, &book, all);
  PolicyChoice c = Choose(in);
  EXPECT_EQ(in.candidates[c.index], "memrep.Trie") << c.reason;
  EXPECT_TRUE(c.trial);
  EXPECT_TRUE(Has(c.reason, "try memrep.Trie (no measurement covers its insert")) << c.reason;
  // The budget: 20% of 16 memtables is 3.
  in.recent_trials = 3;
  c = Choose(in);
  EXPECT_EQ(in.candidates[c.index], "memrep.Vector") << c.reason;
  EXPECT_FALSE(c.trial);
  in.recent_trials = 0;
  in.explore_percent = 0;
  EXPECT_FALSE(Choose(in).trial);
  in.explore_percent = 20;
  in.learn = false;
  EXPECT_FALSE(Choose(in).trial);
  // Once measured, the trie is covered: no trial.
  in.learn = true;
  book.Add("memrep.Trie", kInsert, 260, 100);
  c = Choose(in);
  EXPECT_FALSE(c.trial) << c.reason;
  EXPECT_EQ(in.candidates[c.index], "memrep.Vector") << c.reason;
}

TEST(AutoLearningPolicy, AfterATrialTheSettledRepIsTheBaseOfTheMargin) {
  CostBook book;
  book.Add("memrep.Vector", kInsert, 50, 100);
  book.Add("memrep.Vector", kBackground, 110, 10000);
  book.Add("memrep.Trie", kInsert, 170, 100);
  // The trie, tried, is cheaper than the vector but not by the margin: back
  // to the vector, though the trie is current.
  PolicyInput in = Learning("memrep.Trie", {Writes(10000)}, &book, kVectorTrie);
  in.settled = "memrep.Vector";
  PolicyChoice c = Choose(in);
  EXPECT_EQ(in.candidates[c.index], "memrep.Vector") << c.reason;
  EXPECT_TRUE(Has(c.reason, "back to memrep.Vector (memrep.Trie, tried, is not 15% below it)"))
      << c.reason;
  // By the margin: it stays.
  book.Add("memrep.Trie", kInsert, 10, 100);  // the figure becomes (170 + 10) / 2
  c = Choose(in);
  EXPECT_EQ(in.candidates[c.index], "memrep.Trie") << c.reason;
  EXPECT_TRUE(Has(c.reason, "switch")) << c.reason;
}

TEST(AutoLearningPolicy, AMeasuredSiblingStandsInForAnUnmeasuredOperation) {
  // One writer and a reader thread: the trie's gets were measured on a
  // writer thread only; they price its reader's gets, so it is covered.
  WorkloadStats s = Writes(100000);
  s.reader_threads = 1;
  s.gets = s.reader_gets = 100000;
  CostBook book;
  book.Add("memrep.Vector", kInsert, 50, 100);
  book.Add("memrep.Vector", kReaderGet, 830, 100);
  book.Add("memrep.Trie", kInsert, 190, 100);
  book.Add("memrep.Trie", kGet, 240, 100);
  const PolicyChoice c = Choose(Learning("memrep.Vector", {s}, &book, kVectorTrie));
  EXPECT_EQ(kVectorTrie[c.index], "memrep.Trie") << c.reason;
  EXPECT_FALSE(c.trial) << c.reason;
  EXPECT_TRUE(Has(c.reason, "* (measured); prior x")) << c.reason;
}

TEST(AutoLearningPolicy, WhatAFrozenMemtableCostsCounts) {
  // Equal while active; the vector's frozen reads cost 300 ns a write more.
  CostBook active;
  for (const std::string& rep : kVectorTrie) {
    active.Add(rep, kInsert, 200, 100);
    active.Add(rep, kBackground, 0, 10000);
  }
  CostBook book = active;
  book.Add("memrep.Vector", kFrozen, 400, 10000);
  book.Add("memrep.Trie", kFrozen, 100, 10000);
  EXPECT_EQ(Chosen(Learning("memrep.Vector", {Writes(10000)}, &book, kVectorTrie)), "memrep.Trie");
  // Without the frozen figures the two tie, and the current rep stays.
  EXPECT_EQ(Chosen(Learning("memrep.Vector", {Writes(10000)}, &active, kVectorTrie)),
            "memrep.Vector");
}

TEST(AutoLearningPolicy, AnUnmeasuredFrozenFigureTakesTheMeasuredOnesRatio) {
  // The trie's frozen reads measured 10x its prior (a step, 25 ns): the
  // vector's unmeasured ones are priced at 10x its prior too (30 ns -> 300),
  // not at the bare prior, which would favour whoever was not measured.
  CostBook book;
  book.Add("memrep.Vector", kInsert, 200, 100);
  book.Add("memrep.Trie", kInsert, 100, 100);
  for (const std::string& rep : kVectorTrie) book.Add(rep, kBackground, 0, 10000);
  book.Add("memrep.Trie", kFrozen, 250, 10000);
  // Priced at the bare prior, the vector would stay: 200 + 30 x 1.25 ns a
  // write against the trie's 100 + 250. At the ratio it is 200 + 300.
  const PolicyChoice c = Choose(Learning("memrep.Vector", {Writes(10000)}, &book, kVectorTrie));
  EXPECT_EQ(kVectorTrie[c.index], "memrep.Trie") << c.reason;
  EXPECT_FALSE(c.trial) << "a frozen figure never calls for a trial: " << c.reason;
}

// ---- The book ----

OpTimes Times(uint64_t timed, uint64_t nanos) { return OpTimes{timed, nanos}; }

TEST(AutoLearningBook, AMemtablesTimesGoIntoTheBook) {
  WorkloadStats s = Writes(10000);
  s.insert_times = Times(100, 20000);   // 200 ns an insert
  s.allocate_times = Times(100, 5000);  // and 50 for its row
  s.seeks = 100;
  s.iterators = 50;
  s.seek_times = Times(10, 3000);            // 300 ns a seek
  s.iterator_times = Times(10, 1000);        // 100 an iterator, one per 2 seeks
  s.get_times = Times(kMinTimed - 1, 7000);  // too few to say
  CostBook book;
  LearnFrom(s, "memrep.Trie", &book);
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kInsert).ns, 250);
  EXPECT_EQ(book.Get("memrep.Trie", kInsert).samples, 100u);
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kSeek).ns, 350);
  EXPECT_FALSE(book.Has("memrep.Trie", kGet));
  EXPECT_FALSE(book.Has("memrep.Vector", kInsert));
  // The next memtable replaces half of each figure.
  s.insert_times = Times(100, 15000);
  LearnFrom(s, "memrep.Trie", &book);
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kInsert).ns, 225);
  EXPECT_EQ(book.Get("memrep.Trie", kInsert).samples, 200u);
  // Background and frozen reads: only once the memtable is destroyed.
  const WorkloadStats replaced = s;
  s.background_nanos = 2000000;
  s.steps += 10000;                      // the flush's scan, 1 a write
  s.step_times = Times(160, 8000);       // 50 ns each
  s.gets += 100;                         // reads of the immutable memtable
  s.get_times = Times(kMinTimed, 8000);  // 1000 ns each
  s.seeks += 1;                          // the flush's SeekToFirst, too few
  s.seek_times = Times(11, 3300);        // timed since: the life's 300 ns
  EXPECT_FALSE(LearnFinal(s, replaced, "memrep.Trie", &book));
  EXPECT_FALSE(book.Has("memrep.Trie", kFrozen));
  s.background_final = true;
  EXPECT_TRUE(LearnFinal(s, replaced, "memrep.Trie", &book));
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kBackground).ns, 200);
  // (10000 x 50 + 100 x 1000 + 1 x 300) ns over 10,000 writes.
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kFrozen).ns, 60.03);
  // A flush kept off the cores: 100x slower steps move the figure by at
  // most 1.5x (and 25 ns); so does a background figure 100x the last.
  s.step_times = Times(160 * 2, 8000 + 160 * 5000);
  s.background_nanos = 200000000;
  EXPECT_TRUE(LearnFinal(s, replaced, "memrep.Trie", &book));
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kFrozen).ns, (60.03 + 60.03 * 2 + 50) / 2);
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kBackground).ns, (200 + 200 * 2 + 50) / 2);
  book.Retain({"memrep.Vector"});
  EXPECT_EQ(book.Count(), 0u);
}

TEST(AutoLearningBook, ThePriorOptionReplacesRowsOfTheTable) {
  std::vector<RepCosts> rows;
  ASSERT_TRUE(ParsePrior("trie:1/2/3/4/5/6/7, memrep.Vector:10/20/30/40/50/60/70.5", &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rep, "memrep.Trie") << "an alias names the rep";
  const Prior prior(FormatPrior(rows));
  EXPECT_DOUBLE_EQ(prior.Of("memrep.Trie", kSeek), 5);
  EXPECT_DOUBLE_EQ(prior.Of("memrep.Trie", kReaderSeek), 5) << "a reader's seek: the seek column";
  EXPECT_DOUBLE_EQ(prior.Of("memrep.SortedHash", kInsert), 230) << "the table's row";
  EXPECT_EQ(FormatPrior(rows), "memrep.Trie:1/2/3/4/5/6/7,memrep.Vector:10/20/30/40/50/60/70");
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"memrep.Trie:1/2/3", "does not have 7 figures"},
           {"memrep.Trie:1/2/3/4/5/6/7/8", "does not have 7 figures"},
           {"nosuch:1/2/3/4/5/6/7", "does not name a registered rep"},
           {"memrep.Trie:1/2/3/4/5/6/x", "not a number"},
           {"memrep.Trie:1/2/3/4/5/6/-1", "not a number"},
           {"memrep.Trie", "has no ':'"},
           {"trie:1/2/3/4/5/6/7,memrep.Trie:1/2/3/4/5/6/7", "listed before"}}) {
    const Status s = ParsePrior(text, &rows);
    EXPECT_TRUE(s.IsInvalidArgument()) << text;
    EXPECT_TRUE(Has(s.message(), says)) << text << ": " << s.message();
  }
  RepSpec spec;
  EXPECT_TRUE(RepSpec::Parse("id=memrep.Auto; prior=memrep.Trie:1/2", &spec).IsInvalidArgument());
  EXPECT_TRUE(RepSpec::Parse("id=memrep.Auto; prior=memrep.Trie:1/2/3/4/5/6/7", &spec).ok());
}

// ---- A lineage of memtables, timed by a fake clock ----

// The fake clock moves by `step` at each reading: a timed call takes `step`.
std::atomic<uint64_t> fake_now{0};
std::atomic<uint64_t> fake_step{0};
uint64_t FakeNow() { return fake_now.fetch_add(fake_step.load()); }

std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(i * 0x9E3779B97F4A7C15ull));
  return buf;
}

class AutoLearningLineage : public ::testing::Test {
 protected:
  void SetUp() override { SetClockForTesting(&FakeNow); }
  void TearDown() override {
    SetClockForTesting(nullptr);
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<MemTable> Next(const std::string& rep) {
    MemTableOptions o;
    o.rep = rep;
    o.write_buffer_size = 4 << 20;
    o.lineage = lineage_;
    std::unique_ptr<MemTable> t;
    const Status s = MemTable::Open(o, &t);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return t;
  }
  AutoDecision Newest() const { return AutoCountersOf(*lineage_).recent.back(); }
  std::string Current() const { return Newest().rep; }

  // Writes (and reads back) 3000 entries, each call taking what the test
  // says the current rep's call costs. (The standalone face inserts
  // concurrently into a rep that takes concurrent inserts, as Auto does.)
  void Fill(MemTable& t, bool read) {
    const std::string rep = Current();
    for (int i = 0; i < 3000; ++i) {
      fake_step = insert_ns_[rep];
      ASSERT_TRUE(t.Put(Key(seq_), "value", seq_).ok());
      ++seq_;
      if (read) {
        fake_step = get_ns_[rep];
        std::string v;
        EXPECT_TRUE(t.Get(Key(seq_ - 1), kMaxSequenceNumber, &v).ok());
      }
    }
  }
  // A memtable filled, then the next one made, as an engine switches.
  void Switch(std::unique_ptr<MemTable>* t, const std::string& rep, bool read) {
    Fill(**t, read);
    ASSERT_TRUE((*t)->Freeze().ok());
    *t = Next(rep);
  }

  std::shared_ptr<RepLineage> lineage_ = std::make_shared<RepLineage>();
  std::map<std::string, uint64_t> insert_ns_, get_ns_;
  uint64_t seq_ = 1;
  const std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() /
      ("memrep_auto_learning_" + std::to_string(::getpid()) + "_" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

// Background work is real CPU time, not the fake clock's: left out.
const std::string kHashVector =
    "id=memrep.Auto; candidates=memrep.SortedHash,memrep.Vector; background_weight_percent=0";
const std::string kTrieHash =
    "id=memrep.Auto; candidates=memrep.Trie,memrep.SortedHash; background_weight_percent=0";

TEST_F(AutoLearningLineage, AWorkloadThatStaysPutSettlesOnTheRepMeasuredCheapest) {
  // Against the prior: the vector's writes cost 4 times the sorted hash's.
  insert_ns_ = {{"memrep.SortedHash", 100}, {"memrep.Vector", 400}};
  auto t = Next(kHashVector);
  std::vector<std::string> reps;
  for (int m = 0; m < 10; ++m) {
    Switch(&t, kHashVector, /*read=*/false);
    reps.push_back(Current());
  }
  // The prior sends it to the vector once; measured, it comes back.
  EXPECT_EQ(reps[0], "memrep.Vector") << Newest().reason;
  for (size_t m = 1; m < reps.size(); ++m) EXPECT_EQ(reps[m], "memrep.SortedHash") << m;
  const AutoCounters c = AutoCountersOf(*lineage_);
  EXPECT_EQ(c.switches, 2u);
  EXPECT_TRUE(Has(Newest().reason, "memrep.SortedHash=100* (measured)")) << Newest().reason;
  EXPECT_TRUE(Has(Newest().reason, "memrep.Vector=400 (measured)")) << Newest().reason;
  EXPECT_TRUE(Has(Newest().reason, "keep (the current is the best)")) << Newest().reason;
}

TEST_F(AutoLearningLineage, AWorkloadChangeIsNoticedWithinTwoMemtables) {
  insert_ns_ = {{"memrep.SortedHash", 300}, {"memrep.Vector", 100}};
  get_ns_ = {{"memrep.SortedHash", 200}, {"memrep.Vector", 900}};
  auto t = Next(kHashVector);
  // Writes alone, then writes that each read back, then writes alone.
  for (bool read : {false, true, false}) {
    const std::string want = read ? "memrep.SortedHash" : "memrep.Vector";
    for (int m = 0; m < 5; ++m) {
      Switch(&t, kHashVector, read);
      if (m >= 1) {
        EXPECT_EQ(Current(), want) << "read " << read << ", memtable " << m;
      }
    }
  }
  EXPECT_EQ(AutoCountersOf(*lineage_).trials, 0u) << "every candidate was measured";
}

TEST_F(AutoLearningLineage, ACandidateThePriorRulesOutNarrowlyIsTriedAndWins) {
  // The trie (the start) measures 400 ns a write: the prior, scaled by that,
  // puts the sorted hash at 484, within reach: it is tried, and at 100 it
  // wins.
  insert_ns_ = {{"memrep.Trie", 400}, {"memrep.SortedHash", 100}};
  auto t = Next(kTrieHash);
  EXPECT_EQ(Current(), "memrep.Trie");
  Switch(&t, kTrieHash, false);
  EXPECT_EQ(Current(), "memrep.SortedHash");
  EXPECT_TRUE(Newest().trial) << Newest().reason;
  EXPECT_TRUE(Has(Newest().reason, "try memrep.SortedHash")) << Newest().reason;
  for (int m = 0; m < 4; ++m) {
    Switch(&t, kTrieHash, false);
    EXPECT_EQ(Current(), "memrep.SortedHash") << m;
    EXPECT_FALSE(Newest().trial) << Newest().reason;
  }
  EXPECT_EQ(AutoCountersOf(*lineage_).trials, 1u);
}

TEST_F(AutoLearningLineage, EachKindOfCallIsTimedOnASample) {
  fake_step = 7;
  auto t = Next("id=memrep.Auto; pin=memrep.SortedHash");
  for (int i = 0; i < 3100; ++i, ++seq_) ASSERT_TRUE(t->Put(Key(seq_), "value", seq_).ok());
  std::string v;
  for (int i = 0; i < 1600; ++i) (void)t->Get(Key(i), kMaxSequenceNumber, &v);
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(t->NewIterator(&it).ok());
  for (int i = 0; i < 620; ++i) {
    it->Seek(Key(i));
    for (int j = 0; j < 10 && it->Valid(); ++j) it->Next();
  }
  it.reset();
  const WorkloadStats s = NewestStatsOf(*lineage_);
  // One in 31 inserts (concurrent ones: the standalone face calls a rep
  // that takes them so), one in 16 gets; one in 31 seeks and one in 61 steps
  // of the rep's iterator (which the memtable's iterator may position more
  // than once a Seek).
  EXPECT_NEAR(static_cast<double>(s.concurrent_insert_times.timed), 100, 1);
  EXPECT_EQ(s.concurrent_insert_times.nanos, 7 * s.concurrent_insert_times.timed);
  EXPECT_EQ(s.get_times.timed, 100u);
  EXPECT_EQ(s.get_times.nanos, 700u);
  EXPECT_NEAR(static_cast<double>(s.seek_times.timed), s.seeks / 31.0, 1);
  EXPECT_GE(s.seeks, 620u);
  EXPECT_NEAR(static_cast<double>(s.step_times.timed), s.steps / 61.0, 1);
  EXPECT_GT(s.step_times.timed, 50u);
  EXPECT_EQ(s.step_times.nanos, 7 * s.step_times.timed);
  EXPECT_EQ(s.reader_get_times.timed, 0u) << "the writer's thread";
}

TEST_F(AutoLearningLineage, TheBackgroundFigureIsLearnedOnceAMemtableIsDestroyed) {
  const std::string vector = "id=memrep.Auto; pin=memrep.Vector";
  auto t = Next(vector);
  for (int m = 0; m < 3; ++m) Switch(&t, vector, false);
  const CostBook book = CostBookOf(*lineage_);
  EXPECT_TRUE(book.Has("memrep.Vector", kBackground));
  EXPECT_TRUE(book.Has("memrep.Vector", kConcurrentInsert));
  EXPECT_FALSE(book.Has("memrep.Trie", kConcurrentInsert));
}

TEST_F(AutoLearningLineage, WhatAFrozenMemtableIsReadIsLearnedOnceItIsDestroyed) {
  const std::string trie = "id=memrep.Auto; pin=memrep.Trie";
  auto t = Next(trie);
  Fill(*t, false);
  ASSERT_TRUE(t->Freeze().ok());
  std::unique_ptr<MemTable> frozen = std::move(t);
  t = Next(trie);
  // A flush: every entry of the frozen memtable read, 40 ns a call.
  fake_step = 40;
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(frozen->NewIterator(&it).ok());
  uint64_t entries = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++entries;
  EXPECT_EQ(entries, 3000u);
  it.reset();
  EXPECT_FALSE(CostBookOf(*lineage_).Has("memrep.Trie", kFrozen)) << "not destroyed yet";
  frozen.reset();
  Switch(&t, trie, false);  // the next memtable learns what came in
  const Measured m = CostBookOf(*lineage_).Get("memrep.Trie", kFrozen);
  // 3000 steps and a seek at 40 ns, over 3000 writes (the iterator's
  // creation, timed one in 31, may add its 40 ns once).
  EXPECT_GE(m.ns, 40.0);
  EXPECT_LE(m.ns, 40.1);
  EXPECT_EQ(m.samples, 3000u);
}

TEST_F(AutoLearningLineage, TheLearnedFileKeepsWhatWasLearnedAcrossAReopen) {
  std::filesystem::create_directories(dir_);
  const std::string file = (dir_ / "auto.learned").string();
  const std::string spec = kTrieHash + "; learned_file=" + file;
  insert_ns_ = {{"memrep.Trie", 400}, {"memrep.SortedHash", 100}};
  {
    auto t = Next(spec);
    EXPECT_TRUE(Has(Newest().reason, "does not exist yet")) << Newest().reason;
    for (int m = 0; m < 4; ++m) Switch(&t, spec, false);
    EXPECT_EQ(Current(), "memrep.SortedHash");
    t.reset();
    lineage_.reset();  // the lineage's end writes the file
  }
  std::ifstream in(file);
  std::string first;
  ASSERT_TRUE(std::getline(in, first)) << file;
  EXPECT_EQ(first, "memrep.Auto learned 1");
  // A new lineage (a database reopened) starts where the last one settled,
  // with its figures.
  lineage_ = std::make_shared<RepLineage>();
  auto t = Next(spec);
  EXPECT_EQ(Current(), "memrep.SortedHash") << Newest().reason;
  EXPECT_TRUE(Has(Newest().reason, "measured figures, settled on memrep.SortedHash"))
      << Newest().reason;
  const CostBook book = CostBookOf(*lineage_);
  EXPECT_DOUBLE_EQ(book.Get("memrep.SortedHash", kConcurrentInsert).ns, 100);
  EXPECT_DOUBLE_EQ(book.Get("memrep.Trie", kConcurrentInsert).ns, 400);
  // Another lineage id has its own section.
  lineage_ = std::make_shared<RepLineage>(7);
  t = Next(spec);
  EXPECT_TRUE(Has(Newest().reason, "has nothing for lineage 7")) << Newest().reason;
  EXPECT_EQ(Current(), "memrep.Trie");
}

// FNV-1a 64, as the learned_file's end line writes it.
std::string Checksum(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

TEST_F(AutoLearningLineage, ACorruptOrForeignLearnedFileIsIgnoredWithALogLine) {
  std::filesystem::create_directories(dir_);
  const std::string file = (dir_ / "auto.learned").string();
  const std::string spec = kTrieHash + "; learned_file=" + file;
  insert_ns_ = {{"memrep.Trie", 400}, {"memrep.SortedHash", 100}};
  auto learn = [&] {
    lineage_ = std::make_shared<RepLineage>();
    auto t = Next(spec);
    for (int m = 0; m < 3; ++m) Switch(&t, spec, false);
    t.reset();
    lineage_.reset();
  };
  auto read = [&] {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  auto write = [&](const std::string& text) { std::ofstream(file, std::ios::trunc) << text; };
  // A new lineage on `text` (the lineage before it is gone first: its end
  // writes the file).
  auto reopened = [&](const std::string& text) {
    lineage_.reset();
    write(text);
    lineage_ = std::make_shared<RepLineage>();
    auto t = Next(spec);  // opens: never a failure
    EXPECT_NE(t, nullptr);
    EXPECT_EQ(Current(), "memrep.Trie") << "the start rep: nothing was restored";
    EXPECT_EQ(CostBookOf(*lineage_).Count(), 0u);
    return Newest().reason;
  };
  learn();
  std::string good = read();
  // A figure changed: the checksum does not match.
  std::string text = good;
  text.replace(text.find(" 100.0 "), 7, " 900.0 ");
  std::string reason = reopened(text);
  EXPECT_TRUE(Has(reason, "is corrupt (its checksum does not match its contents); ignored"))
      << reason;
  // Cut short.
  reason = reopened(good.substr(0, good.size() / 2));
  EXPECT_TRUE(Has(reason, "is corrupt")) << reason;
  // Another format.
  reason = reopened("memrep.Auto learned 99\n" + good.substr(good.find('\n') + 1));
  EXPECT_TRUE(Has(reason, "is not a file of this format")) << reason;
  // Another machine, with a checksum that matches.
  const size_t machine = good.find("\nmachine ") + 1;
  text = good.substr(0, machine) + "machine Another CPU, 512 cpus" +
         good.substr(good.find('\n', machine), good.rfind("end ") - good.find('\n', machine));
  reason = reopened(text + "end " + Checksum(text) + "\n");
  EXPECT_TRUE(Has(reason, "was learned on another machine (Another CPU, 512 cpus")) << reason;
  // Its next save replaces it with a good file.
  learn();
  lineage_ = std::make_shared<RepLineage>();
  auto t = Next(spec);
  EXPECT_TRUE(Has(Newest().reason, "restored")) << Newest().reason;
  // A file that cannot be written: said in a decision's reason, no failure.
  const std::string nowhere = kTrieHash + "; learned_file=" + (dir_ / "no" / "such").string();
  lineage_ = std::make_shared<RepLineage>();
  t = Next(nowhere);
  for (int m = 0; m < 8; ++m) Switch(&t, nowhere, false);
  bool said = false;
  for (const AutoDecision& d : AutoCountersOf(*lineage_).recent) {
    said = said || Has(d.reason, "cannot write");
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace memrep
