// The topling_cspp peer's adapter (topling_cspp.cc) against a model: a
// std::set of (user key, tag) in internal-key order. Keys are short strings
// over a few bytes (the empty key, keys that are prefixes of others, 0x00 and
// 0xff among them), versions arrive out of sequence order, and some inserts
// repeat a (user key, sequence) already stored. Checked: every iterator call
// (forward and backward scans, Seek, SeekForPrev, direction changes), Get at
// any snapshot, Contains, the refusal of duplicates, concurrent inserts with
// readers running, and reads after MarkReadOnly from a thread that never
// wrote. Built and run only when the peer is configured (topling_cspp.cmake).
#include <gtest/gtest.h>
#include <rocksdb/memtablerep.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "rocksdb_compat.h"
#include "shim_arena.h"

namespace memrep::bench {
ROCKSDB_NAMESPACE::MemTableRepFactory* NewToplingCsppFactory();
}

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using memrep::bench::ShimArena;

// (user key, tag), ordered as RocksDB orders internal keys.
struct Key {
  std::string user_key;
  uint64_t tag;
  bool operator<(const Key& o) const {
    int c = user_key.compare(o.user_key);
    if (c != 0) return c < 0;
    return tag > o.tag;
  }
  bool operator==(const Key& o) const { return user_key == o.user_key && tag == o.tag; }
};

uint64_t Tag(uint64_t seq, uint8_t type) { return seq << 8 | type; }

void PutVarint32(std::string* out, uint32_t v) {
  while (v >= 128) {
    out->push_back(static_cast<char>(v | 128));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

const char* GetVarint32(const char* p, uint32_t* v) {
  uint32_t result = 0;
  for (uint32_t shift = 0; shift <= 28; shift += 7) {
    uint32_t byte = static_cast<unsigned char>(*p++);
    result |= (byte & 127) << shift;
    if ((byte & 128) == 0) break;
  }
  *v = result;
  return p;
}

// varint32 | user key | fixed64 tag
std::string MemtableKey(const Key& k) {
  std::string s;
  PutVarint32(&s, static_cast<uint32_t>(k.user_key.size() + 8));
  s += k.user_key;
  char tag[8];
  std::memcpy(tag, &k.tag, 8);
  s.append(tag, 8);
  return s;
}

std::string ValueOf(const Key& k) { return k.user_key + "@" + std::to_string(k.tag); }

// An entry's internal key, decoded; checks its value too.
Key Decode(const char* entry) {
  uint32_t klen;
  const char* p = GetVarint32(entry, &klen);
  Key k{std::string(p, klen - 8), 0};
  std::memcpy(&k.tag, p + klen - 8, 8);
  uint32_t vlen;
  const char* v = GetVarint32(p + klen, &vlen);
  EXPECT_EQ(std::string(v, vlen), ValueOf(k));
  return k;
}

// The internal key (no length) of a memtable key.
rdb::Slice InternalKey(const std::string& memtable_key) {
  uint32_t len;
  const char* p = GetVarint32(memtable_key.data(), &len);
  return rdb::Slice(p, len);
}

// rocksdb::LookupKey's layout over a memtable key.
struct Lookup {
  explicit Lookup(const Key& k) : buffer(MemtableKey(k)) {
    layout.start = buffer.data();
    layout.kstart = InternalKey(buffer).data();
    layout.end = buffer.data() + buffer.size();
  }
  const rdb::LookupKey& key() const { return reinterpret_cast<const rdb::LookupKey&>(layout); }
  std::string buffer;
  memrep::rocksdb_plugin::LookupKeyLayout layout{};
};

// The adapter orders bytewise whatever comparator it is given.
class UnusedComparator : public rdb::MemTableRep::KeyComparator {
 public:
  int operator()(const char*, const char*) const override { return 0; }
  int operator()(const char*, const rdb::Slice&) const override { return 0; }
};

class ToplingCsppTest : public ::testing::Test {
 protected:
  ToplingCsppTest()
      : factory_(memrep::bench::NewToplingCsppFactory()),
        arena_(std::make_unique<ShimArena>()),
        rep_(factory_->CreateMemTableRep(comparator_, arena_.get(), nullptr, nullptr)) {}

  // Allocate + InsertKey[Concurrently], as a RocksDB MemTable does.
  bool Insert(const Key& k, bool concurrent = false) {
    std::string row = MemtableKey(k);
    std::string value = ValueOf(k);
    PutVarint32(&row, static_cast<uint32_t>(value.size()));
    row += value;
    char* buf = nullptr;
    rdb::KeyHandle handle = rep_->Allocate(row.size(), &buf);
    std::memcpy(buf, row.data(), row.size());
    return concurrent ? rep_->InsertKeyConcurrently(handle) : rep_->InsertKey(handle);
  }

  // What Get hands the callback, all of it.
  std::vector<Key> Get(const Key& target) {
    std::vector<Key> got;
    Lookup lookup(target);
    rep_->Get(lookup.key(), &got, [](void* arg, const char* entry) {
      static_cast<std::vector<Key>*>(arg)->push_back(Decode(entry));
      return true;
    });
    return got;
  }

  // Every version of target's user key at or below its tag, newest first.
  static std::vector<Key> Expected(const std::set<Key>& model, const Key& target) {
    std::vector<Key> want;
    for (auto it = model.lower_bound(target); it != model.end() && it->user_key == target.user_key;
         ++it) {
      want.push_back(*it);
    }
    return want;
  }

  void CheckAll(const std::set<Key>& model, std::mt19937_64& rng, int probes);

  std::unique_ptr<rdb::MemTableRepFactory> factory_;
  UnusedComparator comparator_;
  std::unique_ptr<ShimArena> arena_;
  std::unique_ptr<rdb::MemTableRep> rep_;
};

std::string RandomUserKey(std::mt19937_64& rng) {
  static const char kBytes[] = {'\0', 'a', 'b', 'c', '\xff'};
  std::string s(rng() % 6, ' ');
  for (char& c : s) c = kBytes[rng() % sizeof kBytes];
  return s;
}

Key RandomKey(std::mt19937_64& rng, uint64_t max_seq) {
  return Key{RandomUserKey(rng), Tag(1 + rng() % max_seq, static_cast<uint8_t>(rng() % 2))};
}

void ToplingCsppTest::CheckAll(const std::set<Key>& model, std::mt19937_64& rng, int probes) {
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
  // Forward and backward scans.
  std::vector<Key> forward;
  for (it->SeekToFirst(); it->Valid(); it->Next()) forward.push_back(Decode(it->key()));
  ASSERT_EQ(forward, std::vector<Key>(model.begin(), model.end()));
  std::vector<Key> backward;
  for (it->SeekToLast(); it->Valid(); it->Prev()) backward.push_back(Decode(it->key()));
  ASSERT_EQ(backward, std::vector<Key>(model.rbegin(), model.rend()));

  for (int i = 0; i < probes; ++i) {
    const Key target = RandomKey(rng, 4000);
    const std::string memtable_key = MemtableKey(target);
    // Seek: the first entry >= target, then a few steps either way.
    auto want = model.lower_bound(target);
    it->Seek(InternalKey(memtable_key), memtable_key.data());
    if (want == model.end()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(Decode(it->key()), *want);
      for (int step = 0; step < 4 && it->Valid(); ++step) {
        if (rng() % 2) {
          it->Next();
          ++want;
          ASSERT_EQ(it->Valid(), want != model.end());
        } else {
          it->Prev();
          if (want == model.begin()) {
            ASSERT_FALSE(it->Valid());
            break;
          }
          --want;
          ASSERT_TRUE(it->Valid());
        }
        if (it->Valid()) {
          ASSERT_EQ(Decode(it->key()), *want);
        }
      }
    }
    // SeekForPrev: the last entry <= target.
    auto after = model.upper_bound(target);
    it->SeekForPrev(InternalKey(memtable_key), memtable_key.data());
    if (after == model.begin()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(Decode(it->key()), *std::prev(after));
    }
    // Get at the target's snapshot, and Contains.
    ASSERT_EQ(Get(target), Expected(model, target));
    ASSERT_EQ(rep_->Contains(memtable_key.data()), model.count(target) == 1);
  }
}

TEST_F(ToplingCsppTest, EmptyRep) {
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  const std::string k = MemtableKey(Key{"a", Tag(5, 1)});
  it->Seek(InternalKey(k), k.data());
  EXPECT_FALSE(it->Valid());
  it->SeekForPrev(InternalKey(k), k.data());
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(Get(Key{"a", Tag(5, 1)}).empty());
  EXPECT_FALSE(rep_->Contains(k.data()));
}

TEST_F(ToplingCsppTest, OneWriterAgainstModel) {
  std::mt19937_64 rng(1);
  std::set<Key> model;
  for (int i = 0; i < 20000; ++i) {
    Key k = RandomKey(rng, 4000);
    // A duplicate is the same user key and sequence, whatever the type.
    const bool dup = model.lower_bound(Key{k.user_key, k.tag | 0xff}) !=
                     model.upper_bound(Key{k.user_key, k.tag & ~uint64_t{0xff}});
    ASSERT_EQ(Insert(k), !dup) << i;
    if (!dup) model.insert(k);
    if (i % 5000 == 0) CheckAll(model, rng, 200);
  }
  CheckAll(model, rng, 3000);
  EXPECT_GT(rep_->ApproximateMemoryUsage(), 0u);
}

// An iterator made before inserts sees them once positioned again.
TEST_F(ToplingCsppTest, IteratorSeesLaterInsertsWhenRepositioned) {
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
  ASSERT_TRUE(Insert(Key{"b", Tag(10, 1)}));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(Decode(it->key()), (Key{"b", Tag(10, 1)}));
  ASSERT_TRUE(Insert(Key{"a", Tag(11, 1)}));
  ASSERT_TRUE(Insert(Key{"b", Tag(12, 1)}));
  ASSERT_TRUE(Insert(Key{"b", Tag(9, 1)}));
  std::vector<Key> got;
  for (it->SeekToFirst(); it->Valid(); it->Next()) got.push_back(Decode(it->key()));
  EXPECT_EQ(got, (std::vector<Key>{
                     {"a", Tag(11, 1)}, {"b", Tag(12, 1)}, {"b", Tag(10, 1)}, {"b", Tag(9, 1)}}));
}

// Writers on overlapping keys with disjoint sequences, a reader checking
// order and its own Gets meanwhile; then everything against the model.
TEST_F(ToplingCsppTest, ConcurrentWritersAndReaders) {
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 20000;
  std::vector<std::vector<Key>> written(kWriters);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(100 + w);
      for (int i = 0; i < kPerWriter; ++i) {
        // Sequences w, w + kWriters, ... in a shuffled order per writer.
        uint64_t seq = 1 + w + kWriters * (rng() % (4 * kPerWriter));
        Key k{RandomUserKey(rng) + std::to_string(rng() % 64), Tag(seq, 1)};
        if (Insert(k, /*concurrent=*/true)) written[w].push_back(k);
      }
      done.fetch_add(1);
    });
  }
  std::atomic<bool> reader_ok{true};
  threads.emplace_back([&] {
    std::mt19937_64 rng(7);
    while (done.load() < kWriters) {
      std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
      Key target{RandomUserKey(rng), Tag(1u << 30, 0xff)};
      const std::string memtable_key = MemtableKey(target);
      it->Seek(InternalKey(memtable_key), memtable_key.data());
      bool have_prev = false;
      Key prev;
      for (int n = 0; n < 200 && it->Valid(); ++n, it->Next()) {
        Key k = Decode(it->key());
        if (have_prev && !(prev < k)) reader_ok = false;
        prev = k;
        have_prev = true;
      }
      for (const Key& k : Get(target)) {
        if (k.user_key != target.user_key) reader_ok = false;
      }
    }
  });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(reader_ok.load());
  std::set<Key> model;
  for (const auto& keys : written) {
    for (const Key& k : keys) EXPECT_TRUE(model.insert(k).second);
  }
  std::mt19937_64 rng(3);
  CheckAll(model, rng, 2000);
}

// After MarkReadOnly, reads from a thread that never touched the rep.
TEST_F(ToplingCsppTest, ReadsAfterMarkReadOnly) {
  std::set<Key> model;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5000; ++i) {
    Key k{RandomUserKey(rng) + std::to_string(i), Tag(i + 1, 1)};
    ASSERT_TRUE(Insert(k));
    model.insert(k);
  }
  const size_t memory = rep_->ApproximateMemoryUsage();
  rep_->MarkReadOnly();
  std::thread reader([&] {
    std::mt19937_64 rng2(6);
    CheckAll(model, rng2, 500);
  });
  reader.join();
  EXPECT_EQ(rep_->ApproximateMemoryUsage(), memory);
}

}  // namespace
