// The rep contract, checked against a model (an ordered map of internal keys)
// for every rep and configuration in rep_test_registry.h, under both the
// bytewise comparator and a custom one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>

#include "rep_test_registry.h"
#include "test_util.h"
#include "util/arena.h"
#include "util/background_worker.h"

namespace memrep::testing {
namespace {

// Orders keys backwards: exercises the comparator path (no prefixes).
class ReverseComparator final : public UserKeyComparator {
 public:
  const char* Name() const override { return "test.Reverse"; }
  int Compare(std::string_view a, std::string_view b) const override {
    return BytewiseComparator()->Compare(b, a);
  }
};
const ReverseComparator kReverse;

struct Param {
  RepConfig config;
  const UserKeyComparator* comparator;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.config.name << (p.comparator == &kReverse ? " (reverse order)" : " (bytewise)");
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return info.param.config.name + (info.param.comparator == &kReverse ? "_Reverse" : "_Bytewise");
}

std::vector<Param> AllParams() {
  std::vector<Param> params;
  for (const RepConfig& c : AllRepConfigs()) {
    params.push_back({c, BytewiseComparator()});
    params.push_back({c, &kReverse});
  }
  return params;
}

class RepConformance : public ::testing::TestWithParam<Param> {
 protected:
  RepConformance() : model_(ModelOrder{GetParam().comparator}) {
    rep_ = GetParam().config.make(RepContext{&arena_, GetParam().comparator});
  }

  const UserKeyComparator* cmp() const { return GetParam().comparator; }

  // Inserts through the rep and the model; checks the duplicate answer agrees.
  void Add(const std::string& key, SequenceNumber seq, uint8_t type = 1,
           const std::string& value = "v") {
    const char* entry;
    KeyHandle h = MakeEntry(rep_.get(), key, seq, type, value + key, &entry);
    const bool expect_new = model_.count(ModelKey{key, seq}) == 0;
    ASSERT_EQ(rep_->Insert(h), expect_new) << key << "@" << seq;
    if (expect_new) model_[ModelKey{key, seq}] = entry;
  }

  // Random multi-version content: a small key space, so keys get many versions
  // and duplicates are attempted.
  void FillRandom(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int i = 0; i < n; ++i) {
      Add(NumberKey(rng() % 200, 3 + rng() % 3), rng() % 50, rng() % 3);
    }
  }

  ModelKey At(const RepIterator& it) const { return KeyOf(it.entry()); }

  void ExpectSameKey(const ModelKey& a, const ModelKey& b) const {
    EXPECT_EQ(a.user_key, b.user_key);
    EXPECT_EQ(a.seq, b.seq);
  }

  // Every entry, forward and backward, against the model.
  void ExpectFullScansMatch() {
    auto it = rep_->NewIterator();
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model_.end());
      ExpectSameKey(At(*it), m->first);
      ASSERT_EQ(it->entry(), m->second) << "the iterator must hand out the stored entry";
    }
    EXPECT_EQ(m, model_.end());
    auto r = model_.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_NE(r, model_.rend());
      ExpectSameKey(At(*it), r->first);
    }
    EXPECT_EQ(r, model_.rend());
  }

  util::Arena arena_;
  std::unique_ptr<Rep> rep_;
  Model model_;
};

TEST_P(RepConformance, EmptyRep) {
  auto it = rep_->NewIterator();
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  it->Seek(InternalKey("a", 5));
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(InternalKey("a", 5));
  EXPECT_FALSE(it->Valid());
  EXPECT_FALSE(rep_->Contains(InternalKey("a", 5)));
  EXPECT_EQ(rep_->NumEntries(), 0u);
  int calls = 0;
  rep_->Get(InternalKey("a", 5), &calls, [](void* arg, const char*) {
    ++*static_cast<int*>(arg);
    return true;
  });
  EXPECT_EQ(calls, 0);
}

TEST_P(RepConformance, DuplicateUserKeyAndSequenceIsRefusedWhateverTheType) {
  Add("key", 7, static_cast<uint8_t>(ValueType::kValue));
  KeyHandle dup = MakeEntry(rep_.get(), "key", 7, static_cast<uint8_t>(ValueType::kMerge), "x");
  EXPECT_FALSE(rep_->Insert(dup));
  KeyHandle dup2 = MakeEntry(rep_.get(), "key", 7, static_cast<uint8_t>(ValueType::kDeletion), "");
  EXPECT_FALSE(rep_->InsertConcurrently(dup2));
  EXPECT_EQ(rep_->NumEntries(), 1u);
  Add("key", 8);
  EXPECT_EQ(rep_->NumEntries(), 2u);
  ExpectFullScansMatch();
}

TEST_P(RepConformance, RandomContentMatchesModel) {
  FillRandom(3000, 1);
  EXPECT_EQ(rep_->NumEntries(), model_.size());
  ExpectFullScansMatch();
}

TEST_P(RepConformance, SeekAndSeekForPrevMatchModel) {
  FillRandom(2000, 2);
  std::mt19937 rng(3);
  auto it = rep_->NewIterator();
  for (int i = 0; i < 2000; ++i) {
    const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    const std::string ikey = InternalKey(target.user_key, target.seq);
    it->Seek(ikey);
    auto lb = model_.lower_bound(target);
    if (lb == model_.end()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ExpectSameKey(At(*it), lb->first);
    }
    it->SeekForPrev(ikey);
    auto ub = model_.upper_bound(target);
    if (ub == model_.begin()) {
      EXPECT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ExpectSameKey(At(*it), std::prev(ub)->first);
    }
  }
}

TEST_P(RepConformance, RandomWalkWithDirectionChanges) {
  FillRandom(2000, 4);
  std::mt19937 rng(5);
  auto it = rep_->NewIterator();
  auto m = model_.end();
  for (int step = 0; step < 20000; ++step) {
    const int op = rng() % 10;
    if (op == 0 || m == model_.end()) {
      const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
      it->Seek(InternalKey(target.user_key, target.seq));
      m = model_.lower_bound(target);
    } else if (op < 6) {
      it->Next();
      ++m;
    } else {
      it->Prev();
      m = m == model_.begin() ? model_.end() : std::prev(m);
    }
    ASSERT_EQ(it->Valid(), m != model_.end()) << "step " << step;
    if (it->Valid()) ExpectSameKey(At(*it), m->first);
  }
}

TEST_P(RepConformance, GetVisitsVersionsNewestFirstFromTheSnapshot) {
  FillRandom(3000, 6);
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const ModelKey target{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    // The callback keeps going while the user key matches, like RocksDB's
    // SaveValue does for merge operands.
    struct State {
      const UserKeyComparator* cmp;
      std::string key;
      std::vector<ModelKey> seen;
    } state{cmp(), target.user_key, {}};
    rep_->Get(InternalKey(target.user_key, target.seq), &state, [](void* arg, const char* e) {
      auto* s = static_cast<State*>(arg);
      ModelKey k = KeyOf(e);
      if (s->cmp->Compare(k.user_key, s->key) != 0) return false;
      s->seen.push_back(k);
      return true;
    });
    std::vector<ModelKey> expected;
    for (auto m = model_.lower_bound(target);
         m != model_.end() && m->first.user_key == target.user_key; ++m) {
      expected.push_back(m->first);
    }
    ASSERT_EQ(state.seen.size(), expected.size()) << target.user_key << "@" << target.seq;
    for (size_t j = 0; j < expected.size(); ++j) ExpectSameKey(state.seen[j], expected[j]);
  }
}

TEST_P(RepConformance, GetStopsWhenTheCallbackSaysSo) {
  Add("k", 3);
  Add("k", 2);
  Add("k", 1);
  int calls = 0;
  rep_->Get(InternalKey("k", 10), &calls, [](void* arg, const char*) {
    ++*static_cast<int*>(arg);
    return false;
  });
  EXPECT_EQ(calls, 1);
}

TEST_P(RepConformance, ContainsIsExact) {
  FillRandom(1000, 8);
  std::mt19937 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const ModelKey k{NumberKey(rng() % 220, 3 + rng() % 3), rng() % 55};
    EXPECT_EQ(rep_->Contains(InternalKey(k.user_key, k.seq, 1)), model_.count(k) == 1)
        << k.user_key << "@" << k.seq;
  }
}

TEST_P(RepConformance, IteratorSeesEverythingInsertedBeforeIt) {
  std::mt19937 rng(10);
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 37; ++i) Add(NumberKey(rng() % 500), rng() % 1000);
    ExpectFullScansMatch();
  }
}

TEST_P(RepConformance, OldIteratorStaysValidAndOrderedWhileInsertsContinue) {
  FillRandom(500, 11);
  auto it = rep_->NewIterator();
  const Model before = model_;
  FillRandom(1500, 12);  // after the iterator was created
  // It sees at least what was there before, in strictly increasing order.
  std::set<std::pair<std::string, SequenceNumber>> seen;
  const char* prev = nullptr;
  ModelOrder less{cmp()};
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (prev != nullptr) {
      ASSERT_TRUE(less(KeyOf(prev), At(*it)));
    }
    prev = it->entry();
    ModelKey k = At(*it);
    seen.insert({k.user_key, k.seq});
  }
  for (const auto& [k, e] : before) EXPECT_EQ(seen.count({k.user_key, k.seq}), 1u);
}

TEST_P(RepConformance, FrozenRepReadsTheSame) {
  FillRandom(3000, 13);
  rep_->Freeze();
  EXPECT_TRUE(rep_->frozen());
  ExpectFullScansMatch();
  util::BackgroundWorker::Shared().Drain();  // whatever the rep does after freezing
  ExpectFullScansMatch();
}

TEST_P(RepConformance, MemoryUsageNeverGrowsOnceInsertsEnd) {
  // RocksDB records a memtable's usage as it turns immutable (just before
  // MarkReadOnly) and requires that it never grows after.
  FillRandom(3000, 15);
  auto early = rep_->NewIterator();
  early->SeekToFirst();
  const size_t recorded = rep_->MemoryUsage();
  rep_->Freeze();
  for (int i = 0; i < 5; ++i) {
    auto it = rep_->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    EXPECT_LE(rep_->MemoryUsage(), recorded);
    util::BackgroundWorker::Shared().Drain();
    EXPECT_LE(rep_->MemoryUsage(), recorded);
  }
}

TEST_P(RepConformance, StatisticsAndSampling) {
  const size_t empty_usage = rep_->MemoryUsage();
  FillRandom(3000, 14);
  rep_->Freeze();
  util::BackgroundWorker::Shared().Drain();
  EXPECT_EQ(rep_->NumEntries(), model_.size());
  EXPECT_GE(rep_->MemoryUsage(), empty_usage);

  // The whole range holds every entry; an empty range none.
  std::string lo = InternalKey(NumberKey(0, 3), kMaxSequenceNumber);
  std::string hi = InternalKey(NumberKey(99999, 5), 0);
  if (cmp() == &kReverse) {
    lo = InternalKey(NumberKey(99999, 5), kMaxSequenceNumber);
    hi = InternalKey(NumberKey(0, 3), 0);
  }
  const uint64_t all = rep_->ApproximateNumEntries(lo, hi);
  EXPECT_LE(all, model_.size() + model_.size() / 2);
  EXPECT_GE(all, model_.size() / 2);
  EXPECT_EQ(rep_->ApproximateNumEntries(hi, hi), 0u);

  std::vector<const char*> sample;
  rep_->RandomSample(100, 42, &sample);
  ASSERT_EQ(sample.size(), 100u);
  std::set<const char*> distinct(sample.begin(), sample.end());
  EXPECT_EQ(distinct.size(), 100u);
  std::set<const char*> stored;
  for (const auto& [k, e] : model_) stored.insert(e);
  for (const char* e : sample) EXPECT_EQ(stored.count(e), 1u);
  sample.clear();
  rep_->RandomSample(model_.size() + 10, 42, &sample);
  EXPECT_EQ(sample.size(), model_.size());
}

TEST_P(RepConformance, ConcurrentInsertsAllLand) {
  constexpr int kThreads = 4, kPerThread = 3000;
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Every thread writes the same keys with its own sequences, plus one
        // contested (key, sequence) per key that only one thread may win.
        const std::string key = NumberKey(i);
        if (!rep_->InsertConcurrently(MakeEntry(rep_.get(), key, 1 + t, 1, "v"))) ++refused;
        if (!rep_->InsertConcurrently(MakeEntry(rep_.get(), key, 100, 1, "c"))) ++refused;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(refused.load(), (kThreads - 1) * kPerThread);
  EXPECT_EQ(rep_->NumEntries(), static_cast<uint64_t>((kThreads + 1) * kPerThread));
  auto it = rep_->NewIterator();
  uint64_t n = 0;
  const char* prev = nullptr;
  ModelOrder less{cmp()};
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    if (prev != nullptr) {
      ASSERT_TRUE(less(KeyOf(prev), At(*it)));
    }
    prev = it->entry();
  }
  EXPECT_EQ(n, rep_->NumEntries());
}

INSTANTIATE_TEST_SUITE_P(AllReps, RepConformance, ::testing::ValuesIn(AllParams()), ParamName);

}  // namespace
}  // namespace memrep::testing
