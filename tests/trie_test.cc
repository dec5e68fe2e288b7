// Behaviour particular to the trie rep: its structure (checked node by node
// after every workload), keys that are prefixes of others and share long
// prefixes, both orders, both faces, concurrent writers with readers, the
// region's limits, and its options. What every rep does is in
// rep_conformance_test.cc, which runs the trie too.
#include "memrep/trie.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "memory/arena.h"
#include "registry/registry.h"
#include "test_util.h"
#include "trie/race_points.h"
#include "trie/trie_rep.h"

namespace memrep::trie {
namespace {

using testing::InternalKey;

std::unique_ptr<TrieRep> Make(const TrieOptions& options, memory::Arena* arena, bool rows,
                              const UserKeyComparator* comparator = nullptr,
                              Status* status = nullptr, uint64_t row_bytes = kMaxRegionBytes) {
  RepContext context;
  context.allocator = arena;
  context.rows = rows;
  context.comparator = comparator;
  std::unique_ptr<Rep> rep;
  Status s = TrieRep::Make(options, context, &rep, row_bytes);
  if (status != nullptr) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return std::unique_ptr<TrieRep>(static_cast<TrieRep*>(rep.release()));
}

TrieOptions Small(uint64_t mem_cap = uint64_t{64} << 20) {
  TrieOptions o;
  o.mem_cap = mem_cap;
  return o;
}

Status Put(TrieRep* rep, bool rows, std::string_view key, SequenceNumber seq,
           std::string_view value) {
  if (!rows) return rep->Add(EntryView::Of(key, seq, ValueType::kValue, value), false);
  char* buf;
  KeyHandle h;
  Status s = rep->Allocate(RowSize(key.size(), value.size()), &h, &buf);
  if (!s.ok()) return s;
  EncodeRow(buf, EntryView::Of(key, seq, ValueType::kValue, value));
  return rep->InsertConcurrently(h) ? Status::OK() : Status::AlreadyExists("duplicate");
}

// Keys over a 3-letter alphabet, 0 to 12 bytes long, often prefixes of one
// another; now and then a long one sharing a long prefix.
std::string RandomKey(std::mt19937_64& rng) {
  std::string k;
  const int kind = static_cast<int>(rng() % 10);
  if (kind == 0) k = std::string(300, 'p');  // a prefix longer than any inline one
  if (kind == 1) k = "shared-prefix-of-some-length/";
  const size_t n = rng() % 13;
  for (size_t i = 0; i < n; ++i) k.push_back(static_cast<char>("ab\xff"[rng() % 3]));
  return k;
}

using Model = std::map<std::pair<std::string, SequenceNumber>, std::string>;

// The model's entries in the rep's order.
std::vector<std::pair<std::string, SequenceNumber>> Ordered(const Model& m, bool reverse) {
  std::vector<std::pair<std::string, SequenceNumber>> out;
  for (const auto& [k, v] : m) out.push_back(k);
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return reverse ? a.first > b.first : a.first < b.first;
    return a.second > b.second;
  });
  return out;
}

struct Case {
  bool rows;
  bool reverse;
};

class TrieModel : public ::testing::TestWithParam<Case> {};

TEST_P(TrieModel, MatchesAnOrderedMapInEveryReadAndPassesTheStructureCheck) {
  const Case c = GetParam();
  memory::Arena arena;
  auto rep = Make(Small(), &arena, c.rows, c.reverse ? ReverseBytewiseComparator() : nullptr);
  ASSERT_NE(rep, nullptr);
  std::mt19937_64 rng(42);
  Model model;
  for (int i = 0; i < 4000; ++i) {
    const std::string key = RandomKey(rng);
    const SequenceNumber seq = 1 + rng() % 50;
    const std::string value = "v" + std::to_string(i);
    const Status s = Put(rep.get(), c.rows, key, seq, value);
    const bool fresh = model.emplace(std::make_pair(key, seq), value).second;
    ASSERT_EQ(s.ok(), fresh) << s.ToString() << " key " << key.size() << " seq " << seq;
    if (!fresh) {
      ASSERT_TRUE(s.IsAlreadyExists());
    }
  }
  uint64_t checked = 0;
  ASSERT_TRUE(rep->trie().Check(&checked).ok()) << rep->trie().Check().ToString();
  EXPECT_EQ(checked, model.size());
  EXPECT_EQ(rep->NumEntries(), model.size());

  const auto ordered = Ordered(model, c.reverse);
  auto it = rep->NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_LT(i, ordered.size());
    const EntryView e = it->entry();
    ASSERT_EQ(std::string(e.user_key), ordered[i].first) << i;
    ASSERT_EQ(e.sequence(), ordered[i].second) << i;
    ASSERT_EQ(std::string(e.value), model[ordered[i]]);
  }
  EXPECT_EQ(i, ordered.size());
  i = ordered.size();
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    ASSERT_GT(i, 0u);
    --i;
    ASSERT_EQ(std::string(it->entry().user_key), ordered[i].first) << i;
    ASSERT_EQ(it->entry().sequence(), ordered[i].second) << i;
  }
  EXPECT_EQ(i, 0u);

  // Seek, SeekForPrev and Get against the model, at random targets.
  auto less = [&](const std::pair<std::string, SequenceNumber>& a,
                  const std::pair<std::string, SequenceNumber>& b) {
    if (a.first != b.first) return c.reverse ? a.first > b.first : a.first < b.first;
    return a.second > b.second;
  };
  for (int q = 0; q < 3000; ++q) {
    const std::pair<std::string, SequenceNumber> target{RandomKey(rng), rng() % 55};
    const std::string ikey = InternalKey(target.first, target.second);
    auto lb = std::lower_bound(ordered.begin(), ordered.end(), target, less);
    it->Seek(ikey);
    if (lb == ordered.end()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(std::string(it->entry().user_key), lb->first);
      ASSERT_EQ(it->entry().sequence(), lb->second);
      // A direction change moves strictly.
      it->Prev();
      if (lb == ordered.begin()) {
        ASSERT_FALSE(it->Valid());
      } else {
        ASSERT_TRUE(it->Valid());
        ASSERT_EQ(std::string(it->entry().user_key), (lb - 1)->first);
        ASSERT_EQ(it->entry().sequence(), (lb - 1)->second);
      }
    }
    auto ub = std::upper_bound(ordered.begin(), ordered.end(), target, less);
    it->SeekForPrev(ikey);
    if (ub == ordered.begin()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(std::string(it->entry().user_key), (ub - 1)->first);
      ASSERT_EQ(it->entry().sequence(), (ub - 1)->second);
    }
    // Get: the newest version at or below the snapshot.
    std::string got;
    bool found = false;
    struct Arg {
      std::string* got;
      bool* found;
      std::string_view key;
    } arg{&got, &found, target.first};
    rep->Get(ikey, &arg, [](void* a, const EntryView& e) {
      auto* x = static_cast<Arg*>(a);
      if (e.user_key == x->key) {
        *x->found = true;
        *x->got = std::string(e.value);
      }
      return false;
    });
    auto hit = model.lower_bound({target.first, 0});
    std::string want;
    bool want_found = false;
    for (auto m = model.begin(); m != model.end(); ++m) {
      if (m->first.first == target.first && m->first.second <= target.second &&
          (!want_found || m->first.second > hit->first.second)) {
        hit = m;
        want_found = true;
      }
    }
    ASSERT_EQ(found, want_found) << target.first.size();
    if (found) {
      ASSERT_EQ(got, hit->second);
    }
    ASSERT_EQ(rep->Contains(ikey), model.count(target) == 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Faces, TrieModel,
                         ::testing::Values(Case{true, false}, Case{false, false}, Case{true, true},
                                           Case{false, true}),
                         [](const auto& info) {
                           return std::string(info.param.rows ? "Rows" : "Views") +
                                  (info.param.reverse ? "Reverse" : "Bytewise");
                         });

TEST(Trie, ConcurrentWritersAndReadersLoseNothingAndLeaveAValidStructure) {
  for (bool rows : {true, false}) {
    memory::Arena arena;
    auto rep = Make(Small(uint64_t{256} << 20), &arena, rows);
    constexpr int kWriters = 4, kPerWriter = 20000;
    std::atomic<bool> done{false};
    std::atomic<int> duplicates{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        std::mt19937_64 rng(w);
        for (int i = 0; i < kPerWriter; ++i) {
          // Random keys (node growth and splits everywhere), and a key every
          // writer writes at the same sequence (only one may succeed).
          const std::string key = testing::NumberKey(rng() % 50000, 6);
          if (!Put(rep.get(), rows, key, uint64_t(w) * kPerWriter + i + 1, "x").ok()) {
            ADD_FAILURE() << "a unique sequence was refused";
          }
          if (i % 100 == 0 && !Put(rep.get(), rows, "same", 7 + i, "y").ok()) duplicates++;
        }
      });
    }
    threads.emplace_back([&] {
      auto it = rep->NewIterator();
      while (!done.load()) {
        size_t n = 0;
        std::string last;
        for (it->SeekToFirst(); it->Valid() && n < 2000; it->Next(), ++n) {
          const std::string k(it->entry().user_key);
          if (!last.empty() && k < last) ADD_FAILURE() << "out of order";
          last = k;
        }
        it->Seek(InternalKey(testing::NumberKey(n * 13, 6), kMaxSequenceNumber));
      }
    });
    for (int w = 0; w < kWriters; ++w) threads[w].join();
    done = true;
    threads.back().join();
    EXPECT_EQ(duplicates.load(), (kWriters - 1) * (kPerWriter / 100));
    uint64_t checked = 0;
    ASSERT_TRUE(rep->trie().Check(&checked).ok()) << rep->trie().Check().ToString();
    EXPECT_EQ(checked, uint64_t{kWriters} * kPerWriter + kPerWriter / 100);
    EXPECT_EQ(rep->NumEntries(), checked);
  }
}

// Writes until the rep says Full: it warned first (NearlyFull), and every
// write it took is there.
void FillUntilFull(TrieRep* rep, bool rows, size_t value_bytes, uint64_t mem_cap) {
  bool warned_before_full = false;
  int stored = 0;
  std::mt19937_64 rng(7);
  for (int i = 0;; ++i) {
    const bool nearly = rep->NearlyFull();
    // 16 random bytes: a split (a new node) for nearly every key.
    std::string key(16, '\0');
    for (char& c : key) c = static_cast<char>(rng());
    const Status s = Put(rep, rows, key, i + 1, std::string(value_bytes, 'v'));
    if (!s.ok()) {
      ASSERT_TRUE(s.IsFull()) << s.ToString();
      break;
    }
    warned_before_full = warned_before_full || nearly;
    ++stored;
    ASSERT_LT(i, 1000000);
  }
  EXPECT_TRUE(warned_before_full);
  EXPECT_TRUE(rep->NearlyFull());
  uint64_t checked = 0;
  ASSERT_TRUE(rep->trie().Check(&checked).ok());
  EXPECT_EQ(checked, uint64_t(stored));
  EXPECT_EQ(rep->NumEntries(), uint64_t(stored));
  EXPECT_LE(rep->MemoryUsage(), mem_cap);
}

TEST(Trie, ARegionThatFillsSaysFullKeepsEveryWriteAndWarnsFirst) {
  constexpr uint64_t kCap = TrieOptions::kMinMemCap * 16;  // 1 MiB
  for (bool rows : {true, false}) {
    SCOPED_TRACE(rows ? "rows: the nodes fill the region" : "views");
    memory::Arena arena;
    auto rep = Make(Small(kCap), &arena, rows);
    FillUntilFull(rep.get(), rows, 8, kCap);
  }
}

TEST(Trie, ARowRegionThatFillsSaysFullKeepsEveryWriteAndWarnsFirst) {
  // Rows live in the row region (the Allocator's memory): 1 MiB of address
  // space fills long before the 64 MiB region does.
  memory::Arena arena;
  auto rep = Make(Small(), &arena, true, nullptr, nullptr, uint64_t{1} << 20);
  FillUntilFull(rep.get(), true, 200, uint64_t{1} << 20);
  EXPECT_LT(rep->trie().BytesUsed(), uint64_t{1} << 20) << "the region holds the nodes only";
}

TEST(Trie, RowsLiveInTheAllocatorAndNodesInTheRegion) {
  memory::Arena arena(4096);
  auto rep = Make(Small(), &arena, true);
  const size_t arena_before = arena.MemoryUsage();
  const size_t usage_before = rep->MemoryUsage();
  constexpr int kRows = 1000;
  const std::string value(1000, 'v');
  for (int i = 0; i < kRows; ++i) {
    ASSERT_TRUE(Put(rep.get(), true, testing::NumberKey(i), i + 1, value).ok());
  }
  // The Allocator holds the rows (what RocksDB's arena counts for its
  // WriteBufferManager); the rep charges its nodes and the chunk table.
  EXPECT_GE(arena.MemoryUsage() - arena_before, size_t{kRows} * value.size());
  EXPECT_LT(rep->MemoryUsage() - usage_before, size_t{kRows} * value.size() / 10);
  // A big row: a chunk of its own, read back whole.
  const std::string big(1 << 20, 'b');
  ASSERT_TRUE(Put(rep.get(), true, "big", kRows + 1, big).ok());
  std::string got;
  rep->GetRows(InternalKey("big", kMaxSequenceNumber), &got, [](void* arg, const char* row) {
    *static_cast<std::string*>(arg) = std::string(DecodeRow(row).value);
    return false;
  });
  EXPECT_EQ(got, big);
  uint64_t checked = 0;
  ASSERT_TRUE(rep->trie().Check(&checked).ok());
  EXPECT_EQ(checked, uint64_t{kRows} + 1);
}

TEST(Trie, RefusesAComparatorThatIsNotBytewise) {
  struct Custom : UserKeyComparator {
    const char* Name() const override { return "test.Custom"; }
    int Compare(std::string_view a, std::string_view b) const override { return a.compare(b); }
  } custom;
  memory::Arena arena;
  Status s;
  auto rep = Make(Small(), &arena, true, &custom, &s);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("test.Custom"), std::string::npos);
}

TEST(Trie, TakesToplingDBsOptionsAndRefusesBadOnes) {
  const registry::Registration* r = registry::Find("cspp");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, TrieOptions::kName);
  registry::AnyOptions parsed(r->options);
  Status s = parsed.Parse("mem_cap=2G; use_vm=false; token_use_idle=true");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(parsed.As<TrieOptions>().mem_cap, uint64_t{2} << 30);
  EXPECT_FALSE(parsed.As<TrieOptions>().use_vm);
  for (const char* bad :
       {"mem_cap=9G", "mem_cap=1K", "use_vm=maybe", "use_hugepage=yes", "convert_to_sst=kSomething",
        "ref_log_format=kLong", "no_such=1", "convert_to_sst=kFileMmap", "file=/tmp/x; dir=/tmp",
        "use_hugepage=transparent; dir=/tmp"}) {
    registry::AnyOptions o(r->options);
    EXPECT_TRUE(o.Parse(bad).IsInvalidArgument()) << bad;
  }
}

TEST(Trie, InsideRocksDBATableConversionIsNotSupportedAndSaysWhy) {
  TrieOptions o = Small();
  o.convert_to_sst = "kFileMmap";
  o.file = ::testing::TempDir() + "/trie-not-supported";
  memory::Arena arena;
  Status s;
  auto rep = Make(o, &arena, /*rows=*/true, nullptr, &s);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("adopt a memtable as a table"), std::string::npos);
}

// The same writers and readers with every race point widened: at each one a
// thread yields or sleeps a few microseconds at random (race_points.h), so
// interleavings that a plain run meets once in many (a node replaced between
// a reader's load of its Ref and its read, a path checked and then walked
// while nodes are replaced and reused, a slot filled between a writer's look
// and its lock) happen many times a run. Needs a build with race points
// (the ThreadSanitizer lane); elsewhere it is skipped.
std::atomic<uint64_t> race_points_met{0};

void WidenRace(RacePoint point) {
  race_points_met.fetch_add(1, std::memory_order_relaxed);
  thread_local std::minstd_rand rng(std::random_device{}());
  const uint32_t r = rng() % 64;
  if (r < 8) {
    std::this_thread::yield();
  } else if (r == 8 || (r == 9 && point == RacePoint::kBeforeRetire)) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// "r", then n as 2 bytes, big-endian: 256 children under each node of the
// first byte. REQUIRES: n < 65536.
std::string RaceKey(uint64_t n) { return {'r', char(n >> 8), char(n & 0xff)}; }

TEST(Trie, WidenedRaceWindowsLoseNothingAndLeaveAValidStructure) {
  if (!kRacePoints) GTEST_SKIP() << "race points are compiled in the ThreadSanitizer lane only";
  SetRaceHook(&WidenRace);
  for (bool rows : {true, false}) {
    memory::Arena arena;
    auto rep = Make(Small(uint64_t{64} << 20), &arena, rows);
    constexpr int kWriters = 3, kPerWriter = 8000;
    race_points_met.store(0);
    std::atomic<bool> done{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        // Keys that fill nodes one byte at a time: every node grows through
        // each kind, so replacements (and reuse) are frequent.
        for (int i = 0; i < kPerWriter; ++i) {
          const std::string key = RaceKey(uint64_t(i) * kWriters + w);
          if (!Put(rep.get(), rows, key, uint64_t(w) * kPerWriter + i + 1, "v").ok()) {
            ADD_FAILURE() << "a unique key was refused";
          }
        }
      });
    }
    for (int r = 0; r < 2; ++r) {
      threads.emplace_back([&, r] {
        auto it = rep->NewIterator();
        uint64_t n = 0;
        while (!done.load()) {
          std::string last;
          for (it->SeekToFirst(); it->Valid(); it->Next()) {
            const std::string k(it->entry().user_key);
            if (!last.empty() && k <= last) ADD_FAILURE() << "out of order or repeated";
            last = k;
          }
          // Point reads: descents while nodes are replaced.
          const std::string key = RaceKey((n++ * 7 + r) % 300);
          rep->Get(InternalKey(key, kMaxSequenceNumber), nullptr,
                   [](void*, const EntryView&) { return false; });
        }
      });
    }
    for (int w = 0; w < kWriters; ++w) threads[w].join();
    done = true;
    for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
    EXPECT_GT(race_points_met.load(), uint64_t{kWriters} * kPerWriter) << "the hook was called";
    uint64_t checked = 0;
    ASSERT_TRUE(rep->trie().Check(&checked).ok()) << rep->trie().Check().ToString();
    EXPECT_EQ(checked, uint64_t{kWriters} * kPerWriter);
    // Every key is there, found by a fresh descent and by a scan.
    size_t scanned = 0;
    auto it = rep->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++scanned;
    EXPECT_EQ(scanned, size_t{kWriters} * kPerWriter);
    for (uint64_t k = 0; k < uint64_t{kWriters} * kPerWriter; k += 7) {
      bool found = false;
      rep->Get(InternalKey(RaceKey(k), kMaxSequenceNumber), &found,
               [](void* arg, const EntryView&) {
                 *static_cast<bool*>(arg) = true;
                 return false;
               });
      EXPECT_TRUE(found) << "key " << k;
    }
  }
  SetRaceHook(nullptr);
}

}  // namespace
}  // namespace memrep::trie
