// The RocksDB face when a rep cannot take a row: RocksDB's write path cannot
// fail, so the adapter keeps the row in its overflow, reads merge the two,
// and the memtable reports itself full so that RocksDB switches it.
#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "format/coding.h"
#include "memory/arena.h"
#include "memrep/registry.h"
#include "memrep/rocksdb.h"
#include "memrep/sorted_hash.h"
#include "memtable_rep_adapter.h"
#include "registry/registry.h"
#include "rocksdb_compat.h"
#include "rocksdb_test_util.h"
#include "sorted_hash/registration.h"
#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

namespace memrep::rocksdb_plugin {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using testing::NumberKey;

// RocksDB's memtable arena, as far as a rep sees it.
class TestArena final : public rdb::Allocator {
 public:
  char* Allocate(size_t bytes) override { return arena_.AllocateAligned(bytes); }
  char* AllocateAligned(size_t bytes, size_t, rdb::Logger*) override {
    return arena_.AllocateAligned(bytes);
  }
  size_t BlockSize() const override { return 4096; }

 private:
  memory::Arena arena_;
};

// A memtable row, written as RocksDB's MemTable::Add writes it.
KeyHandle AddRow(rdb::MemTableRep* rep, const std::string& key, SequenceNumber seq,
                 const std::string& value, bool* inserted) {
  char* buf = nullptr;
  KeyHandle h = rep->Allocate(RowSize(key.size(), value.size()), &buf);
  EncodeRow(buf, EntryView::Of(key, seq, ValueType::kValue, value));
  *inserted = rep->InsertKeyConcurrently(h);
  return h;
}

std::string UserKeyOf(const char* row) { return std::string(DecodeRow(row).user_key); }

// What RocksDB's Get would see for `key` at `seq`: the user keys of the rows
// handed to its callback, in order, while they match.
std::vector<SequenceNumber> Versions(rdb::MemTableRep* rep, const std::string& key) {
#if MEMREP_ROCKSDB_INTERNAL_HEADERS
  const rdb::LookupKey lookup(key, kMaxSequenceNumber);  // RocksDB's own (rocksdb_compat.h)
#else
  std::string memtable_key(5, '\0');
  memtable_key.resize(
      format::EncodeVarint32(memtable_key.data(), static_cast<uint32_t>(key.size() + 8)) -
      memtable_key.data());
  AppendInternalKey(&memtable_key, key, kMaxSequenceNumber,
                    static_cast<uint8_t>(ValueType::kForSeek));
  LookupKeyLayout layout{};
  layout.start = memtable_key.data();
  layout.kstart = memtable_key.data() + (memtable_key.size() - key.size() - 8);
  layout.end = memtable_key.data() + memtable_key.size();
  const auto& lookup = reinterpret_cast<const rdb::LookupKey&>(layout);
#endif
  struct State {
    std::string key;
    std::vector<SequenceNumber> seen;
  } state{key, {}};
  rep->Get(lookup, &state, [](void* arg, const char* row) {
    auto* s = static_cast<State*>(arg);
    const EntryView e = DecodeRow(row);
    if (e.user_key != s->key) return false;
    s->seen.push_back(e.sequence());
    return true;
  });
  return state.seen;
}

class OverflowTest : public ::testing::Test {
 protected:
  // A memtable rep of the factory `spec` names, sized for a 1 MiB write buffer.
  void Make(const std::string& spec) {
    ASSERT_TRUE(NewRepFactory(spec, &factory_).ok());
    rdb::ColumnFamilyOptions cf;
    cf.write_buffer_size = 1 << 20;
    ASSERT_TRUE(factory_->ValidateOptions(rdb::DBOptions(), cf).ok());
    rep_.reset(factory_->CreateMemTableRep(cmp_, &arena_, nullptr, nullptr, 0));
#if defined(__GXX_RTTI)
    adapter_ = dynamic_cast<MemTableRepAdapter*>(rep_.get());
    ASSERT_NE(adapter_, nullptr) << "the factory fell back to another rep";
#else
    // Against a RocksDB built without RTTI (its release builds, with memrep
    // inside): the RTTI builds of this test check that it is no fallback.
    adapter_ = static_cast<MemTableRepAdapter*>(rep_.get());
#endif
  }

  // Every row, forward and backward, is the expected set in order.
  void ExpectScans(const std::set<std::pair<std::string, SequenceNumber>>& expected) {
    std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
    std::vector<std::pair<std::string, SequenceNumber>> forward, backward;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      forward.emplace_back(UserKeyOf(it->key()), DecodeRow(it->key()).sequence());
    }
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      backward.emplace_back(UserKeyOf(it->key()), DecodeRow(it->key()).sequence());
    }
    // The model orders by key, then sequence descending.
    std::vector<std::pair<std::string, SequenceNumber>> want(expected.begin(), expected.end());
    std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    EXPECT_EQ(forward, want);
    std::reverse(backward.begin(), backward.end());
    EXPECT_EQ(backward, want);
  }

  TestArena arena_;
  testing::TestKeyComparator cmp_{rdb::BytewiseComparator()};
  std::shared_ptr<rdb::MemTableRepFactory> factory_;
  std::unique_ptr<rdb::MemTableRep> rep_;
  MemTableRepAdapter* adapter_ = nullptr;
};

TEST_F(OverflowTest, AFullRepStillTakesEveryWriteReadsMergeAndTheMemtableAsksToBeSwitched) {
  ASSERT_NO_FATAL_FAILURE(Make("id=test.Map; max_entries=100"));
  const size_t usage_before = rep_->ApproximateMemoryUsage();
  std::set<std::pair<std::string, SequenceNumber>> expected;
  std::mt19937 rng(3);
  for (int i = 0; i < 300; ++i) {
    const std::string key = NumberKey(rng() % 120);
    const SequenceNumber seq = 1 + i;
    bool inserted = false;
    AddRow(rep_.get(), key, seq, "v" + std::to_string(i), &inserted);
    ASSERT_TRUE(inserted) << i << ": a write inside RocksDB must land";
    expected.emplace(key, seq);
  }
  EXPECT_EQ(adapter_->OverflowCount(), 200u);
  EXPECT_GE(rep_->ApproximateMemoryUsage(), usage_before + 2 * (1 << 20))
      << "full: reported as more than the write buffer";
  ExpectScans(expected);
  // Get walks the versions of a key across both, newest first.
  for (int k = 0; k < 120; ++k) {
    std::vector<SequenceNumber> want;
    for (auto it = expected.rbegin(); it != expected.rend(); ++it) {
      if (it->first == NumberKey(k)) want.push_back(it->second);
    }
    std::sort(want.rbegin(), want.rend());
    EXPECT_EQ(Versions(rep_.get(), NumberKey(k)), want) << NumberKey(k);
  }
  // Seeks, and direction changes across the two sources.
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
  std::string target;
  AppendInternalKey(&target, NumberKey(60), kMaxSequenceNumber, 0x16);
  it->Seek(rdb::Slice(target), nullptr);
  ASSERT_TRUE(it->Valid());
  EXPECT_GE(UserKeyOf(it->key()), NumberKey(60));
  const std::string at = UserKeyOf(it->key());
  const SequenceNumber at_seq = DecodeRow(it->key()).sequence();
  it->Next();
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(UserKeyOf(it->key()), at);
  EXPECT_EQ(DecodeRow(it->key()).sequence(), at_seq);
  // Duplicates are still refused, whichever side holds the original.
  for (const auto& [key, seq] : {*expected.begin(), *expected.rbegin()}) {
    bool inserted = true;
    AddRow(rep_.get(), key, seq, "dup", &inserted);
    EXPECT_FALSE(inserted) << key << "@" << seq;
    std::string ikey;
    AppendInternalKey(&ikey, key, seq, 1);
    std::string memtable_key(1, static_cast<char>(ikey.size()));
    EXPECT_TRUE(rep_->Contains((memtable_key + ikey).c_str()));
  }
  // The figure never grows once the memtable is read-only.
  const size_t at_freeze = rep_->ApproximateMemoryUsage();
  rep_->MarkReadOnly();
  ExpectScans(expected);
  EXPECT_LE(rep_->ApproximateMemoryUsage(), at_freeze);
}

// A rep whose region address space is exhausted: the same fallback.
TEST_F(OverflowTest, ASortedHashRepWhoseRegionIsExhaustedKeepsTakingWrites) {
  ASSERT_NO_FATAL_FAILURE(Make("test.TinySortedHash"));
  std::set<std::pair<std::string, SequenceNumber>> expected;
  for (int i = 0; i < 8000; ++i) {
    bool inserted = false;
    AddRow(rep_.get(), NumberKey(i), 1, std::string(200, 'v'), &inserted);
    ASSERT_TRUE(inserted) << i;
    expected.emplace(NumberKey(i), 1);
  }
  EXPECT_GT(adapter_->OverflowCount(), 0u) << "the 8 MiB region should have run out";
  ExpectScans(expected);
  EXPECT_EQ(Versions(rep_.get(), NumberKey(7999)), std::vector<SequenceNumber>{1});
  EXPECT_EQ(Versions(rep_.get(), NumberKey(1)), std::vector<SequenceNumber>{1});
}

// A sorted hash rep over a region of 8 MiB of address space, for tests that
// fill one up; registered with one line, as any rep is.
Status MakeTinySortedHash(const registry::AnyOptions& options, const RepContext& context,
                          std::unique_ptr<Rep>* out) {
  return sorted_hash::SortedHashRep::Make(options.As<SortedHashOptions>(), context, out,
                                          /*region_bytes=*/uint64_t{1} << 23);
}
const registry::Registration kTinySortedHash = [] {
  registry::Registration r = sorted_hash::RepRegistration();
  r.name = "test.TinySortedHash";
  r.aliases = {};
  r.conformance_options = {};
  r.summary = "the sorted hash rep with an 8 MiB region (tests only)";
  r.make = MakeTinySortedHash;
  return r;
}();
const registry::Registrar kTinySortedHashRegistrar(&kTinySortedHash);

class FlushCounter final : public rdb::EventListener {
 public:
  void OnFlushCompleted(rdb::DB*, const rdb::FlushJobInfo&) override { ++count; }
  std::atomic<int> count{0};
};

// Through a real database: a rep that fills up long before the write buffer
// does makes RocksDB switch memtables, and nothing is lost.
TEST(OverflowDb, ARepThatFillsUpBeforeTheWriteBufferIsSwitchedAndLosesNothing) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("memrep_overflow_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(path);
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 20;  // the rep's region holds 8 MiB of address space
  auto flushes = std::make_shared<FlushCounter>();
  options.listeners.push_back(flushes);
  ASSERT_TRUE(NewRepFactory("test.TinySortedHash", &options.memtable_factory).ok());
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(testing::OpenDb(options, path, &db).ok());
  rdb::WriteOptions write;
  write.disableWAL = true;
  constexpr int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(db->Put(write, NumberKey(i), std::string(100, 'a' + i % 26)).ok());
  }
  for (int i = 0; i < kKeys; i += 7) {
    std::string v;
    ASSERT_TRUE(db->Get(rdb::ReadOptions(), NumberKey(i), &v).ok()) << i;
    EXPECT_EQ(v, std::string(100, 'a' + i % 26));
  }
  // 20000 rows of ~130 bytes fill a tenth of the write buffer but more than
  // the rep's region: RocksDB must have switched memtables.
  uint64_t active = 0;
  ASSERT_TRUE(db->GetIntProperty("rocksdb.num-entries-active-mem-table", &active));
  EXPECT_LT(active, static_cast<uint64_t>(kKeys)) << "flushes so far: " << flushes->count.load();
  db.reset();
  std::filesystem::remove_all(path);
}

// A trie whose region fills within one write batch (RocksDB switches
// memtables only between batches): Allocate says Full, the rows go to the
// overflow, and every write of the batch reads back.
TEST(OverflowDb, ATrieWhoseRegionFillsInOneBatchLosesNothing) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("memrep_trie_overflow_" + std::to_string(::getpid())))
                               .string();
  std::filesystem::remove_all(path);
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 768 << 10;  // 3/4 of the region, as allowed
  ASSERT_TRUE(NewRepFactory("id=memrep.Trie; mem_cap=1M", &options.memtable_factory).ok());
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(testing::OpenDb(options, path, &db).ok());
  rdb::WriteOptions write;
  write.disableWAL = true;
  constexpr int kKeys = 4000;  // about 2 MiB of rows in one batch
  rdb::WriteBatch batch;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(batch.Put(NumberKey(i), std::string(500, 'a' + i % 26)).ok());
  }
  ASSERT_TRUE(db->Write(write, &batch).ok());
  for (int i = 0; i < kKeys; ++i) {
    std::string v;
    ASSERT_TRUE(db->Get(rdb::ReadOptions(), NumberKey(i), &v).ok()) << i;
    ASSERT_EQ(v, std::string(500, 'a' + i % 26)) << i;
  }
  std::unique_ptr<rdb::Iterator> it(db->NewIterator(rdb::ReadOptions()));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ASSERT_EQ(it->key().ToString(), NumberKey(n++));
  EXPECT_EQ(n, kKeys);
  it.reset();
  // Later writes go to a new memtable; the full one flushes like any other.
  ASSERT_TRUE(db->Put(write, "after", "x").ok());
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  std::string v;
  ASSERT_TRUE(db->Get(rdb::ReadOptions(), NumberKey(kKeys - 1), &v).ok());
  db.reset();
  std::filesystem::remove_all(path);
}

#if MEMREP_ROCKSDB_HAS_VALIDATION
// ---------------------------------------------------------------------------
// RocksDB's paranoid memory checks (9.6 on): the adapter's validating calls
// answer as the plain ones do over a rep that keeps its order, and Corruption
// over one that does not.

// A broken rep: rows in the order they came, never sorted. Seek lands on the
// first row (in that order) at or after the target; Get hands every row from
// there on.
class InsertionOrderRep final : public Rep {
 public:
  explicit InsertionOrderRep(Allocator* allocator) : allocator_(allocator) {}
  Status Allocate(size_t len, KeyHandle* handle, char** row) override {
    *row = allocator_->AllocateAligned(len);
    *handle = *row;
    return Status::OK();
  }
  bool Insert(KeyHandle handle) override {
    rows_.push_back(static_cast<const char*>(handle));
    return true;
  }
  bool InsertConcurrently(KeyHandle handle) override { return Insert(handle); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override {
    for (size_t i = First(internal_key); i < rows_.size(); ++i) {
      if (!callback(arg, rows_[i])) return;
    }
  }
  bool Contains(std::string_view) const override { return false; }
  Status RandomSample(size_t, uint64_t, std::vector<const char*>*) const override {
    return Status::OK();
  }
  std::unique_ptr<RepIterator> NewIterator() const override {
    return std::make_unique<Iterator>(this);
  }
  void Freeze() override {}
  bool frozen() const override { return false; }
  size_t MemoryUsage() const override { return 0; }
  uint64_t NumEntries() const override { return rows_.size(); }
  uint64_t ApproximateNumEntries(std::string_view, std::string_view) const override { return 0; }

 private:
  // The first row, in insertion order, whose internal key is >= `key`.
  size_t First(std::string_view key) const {
    size_t i = 0;
    while (i < rows_.size() &&
           rdb::GetLengthPrefixedSlice(rows_[i]).compare(rdb::Slice(key.data(), key.size())) < 0) {
      ++i;
    }
    return i;
  }
  class Iterator final : public RepIterator {
   public:
    explicit Iterator(const InsertionOrderRep* rep) : rep_(rep) {}
    bool Valid() const override {
      return pos_ >= 0 && pos_ < static_cast<ptrdiff_t>(rep_->rows_.size());
    }
    const char* row() const override { return rep_->rows_[static_cast<size_t>(pos_)]; }
    void SeekToFirst() override { pos_ = 0; }
    void SeekToLast() override { pos_ = static_cast<ptrdiff_t>(rep_->rows_.size()) - 1; }
    void Seek(std::string_view key) override { pos_ = static_cast<ptrdiff_t>(rep_->First(key)); }
    void SeekForPrev(std::string_view key) override { Seek(key); }
    void Next() override { ++pos_; }
    void Prev() override { --pos_; }

   private:
    const InsertionOrderRep* rep_;
    ptrdiff_t pos_ = -1;
  };

  Allocator* const allocator_;
  std::vector<const char*> rows_;
};

// The validating calls, in the form this RocksDB has (rocksdb_compat.h);
// `check_key` is passed only where RocksDB has one.
rdb::Status SeekChecked(rdb::MemTableRep::Iterator* it, const rdb::Slice& target,
                        [[maybe_unused]] const KeyCheck& check_key = nullptr) {
#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
  return it->SeekAndValidate(target, nullptr, false, /*check_order=*/true, check_key);
#else
  return it->SeekAndValidate(target, nullptr, false);
#endif
}

// A rep that serves through another and counts the batch lookups
// (Rep::MultiGetRows) it is asked for.
class BatchCountingRep final : public Rep {
 public:
  BatchCountingRep(std::unique_ptr<Rep> inner, int* batches)
      : inner_(std::move(inner)), batches_(batches) {}
  Status Allocate(size_t len, KeyHandle* handle, char** row) override {
    return inner_->Allocate(len, handle, row);
  }
  bool Insert(KeyHandle handle) override { return inner_->Insert(handle); }
  bool InsertConcurrently(KeyHandle handle) override { return inner_->InsertConcurrently(handle); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override {
    inner_->GetRows(internal_key, arg, callback);
  }
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override {
    ++*batches_;
    inner_->MultiGetRows(internal_keys, arg, callback);
  }
  bool Contains(std::string_view internal_key) const override {
    return inner_->Contains(internal_key);
  }
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override {
    return inner_->RandomSample(target, seed, out);
  }
  std::unique_ptr<RepIterator> NewIterator() const override { return inner_->NewIterator(); }
  void Freeze() override { inner_->Freeze(); }
  bool frozen() const override { return inner_->frozen(); }
  size_t MemoryUsage() const override { return inner_->MemoryUsage(); }
  uint64_t NumEntries() const override { return inner_->NumEntries(); }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override {
    return inner_->ApproximateNumEntries(start, end);
  }

 private:
  const std::unique_ptr<Rep> inner_;
  int* const batches_;
};

class ValidationTest : public ::testing::Test {
 protected:
  // An adapter over `rep` (nullptr: an ordered test.Map) holding a, b, c;
  // the broken rep holds them in the order b, a, c. With `batches`, the
  // rep counts its batch lookups there.
  void Make(bool ordered, int* batches = nullptr) {
    auto allocator = std::make_unique<ArenaAllocator>(&arena_);
    std::unique_ptr<Rep> rep;
    if (ordered) {
      RepSpec spec;
      ASSERT_TRUE(RepSpec::Parse("test.Map", &spec).ok());
      RepContext context;
      context.allocator = allocator.get();
      context.comparator = BytewiseComparator();
      context.rows = true;
      ASSERT_TRUE(spec.NewRep(context, &rep).ok());
    } else {
      rep = std::make_unique<InsertionOrderRep>(allocator.get());
    }
    if (batches != nullptr) rep = std::make_unique<BatchCountingRep>(std::move(rep), batches);
    adapter_ = std::make_unique<MemTableRepAdapter>(cmp_, &arena_, std::move(allocator),
                                                    /*order=*/nullptr, std::move(rep), RepTraits{});
    bool inserted = false;
    for (const char* key : {"b", "a", "c"}) AddRow(adapter_.get(), key, 7, "v", &inserted);
  }
  // The user keys GetAndValidate hands on from `key`, and its status.
  rdb::Status Get(const std::string& key, std::vector<std::string>* seen, bool data = false,
                  [[maybe_unused]] const KeyCheck& check_key = nullptr) {
    const rdb::LookupKey lookup(key, kMaxSequenceNumber);
    auto collect = [](void* arg, const char* row) {
      static_cast<std::vector<std::string>*>(arg)->push_back(UserKeyOf(row));
      return true;
    };
#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
    return adapter_->GetAndValidate(lookup, seen, collect, data, /*check_order=*/true, check_key);
#else
    return adapter_->GetAndValidate(lookup, seen, collect, data);
#endif
  }

  TestArena arena_;
  testing::TestKeyComparator cmp_{rdb::BytewiseComparator()};
  std::unique_ptr<MemTableRepAdapter> adapter_;
};

TEST_F(ValidationTest, AnOrderedRepPassesEveryCheckAndAnswersAsThePlainCalls) {
  ASSERT_NO_FATAL_FAILURE(Make(/*ordered=*/true));
  std::vector<std::string> seen;
  EXPECT_TRUE(Get("a", &seen).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c"}));
  std::unique_ptr<rdb::MemTableRep::Iterator> it(adapter_->GetIterator(nullptr));
  const rdb::LookupKey a("a", kMaxSequenceNumber);
  ASSERT_TRUE(SeekChecked(it.get(), a.internal_key()).ok());
  std::vector<std::string> forward{UserKeyOf(it->key())};
  while (it->Valid()) {
    ASSERT_TRUE(it->NextAndValidate(false).ok());
    if (it->Valid()) forward.push_back(UserKeyOf(it->key()));
  }
  EXPECT_EQ(forward, (std::vector<std::string>{"a", "b", "c"}));
  it->SeekToLast();
  std::vector<std::string> backward{UserKeyOf(it->key())};
  while (it->Valid()) {
    ASSERT_TRUE(it->PrevAndValidate(false).ok());
    if (it->Valid()) backward.push_back(UserKeyOf(it->key()));
  }
  EXPECT_EQ(backward, (std::vector<std::string>{"c", "b", "a"}));
}

TEST_F(ValidationTest, RowsOutOfOrderAreCorruptionAndStopTheRead) {
  ASSERT_NO_FATAL_FAILURE(Make(/*ordered=*/false));
  // Get from "a": b is handed on, then a comes after b, and the read stops.
  std::vector<std::string> seen;
  rdb::Status s = Get("a", &seen);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(seen, std::vector<std::string>{"b"});
  // Only with allow_data_in_errors does the message show the keys (in hex:
  // "a" is 61).
  EXPECT_EQ(s.ToString().find("61"), std::string::npos) << s.ToString();
  seen.clear();
  s = Get("a", &seen, /*data=*/true);
  EXPECT_NE(s.ToString().find("61"), std::string::npos) << s.ToString();

  std::unique_ptr<rdb::MemTableRep::Iterator> it(adapter_->GetIterator(nullptr));
  const rdb::LookupKey a("a", kMaxSequenceNumber);
  ASSERT_TRUE(SeekChecked(it.get(), a.internal_key()).ok());  // at b
  ASSERT_EQ(UserKeyOf(it->key()), "b");
  s = it->NextAndValidate(false);  // to a: backwards
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
  // A new positioning call starts afresh; Prev from a (second) to b (first)
  // goes forward in key order.
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  it->Next();
  ASSERT_EQ(UserKeyOf(it->key()), "a");
  s = it->PrevAndValidate(false);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(it->Valid());
}

#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
// RocksDB checks the rows of the looked-up key itself (SaveValue) and the
// row a seek lands on (its memtable iterator): the adapter runs RocksDB's
// check on every other row it hands on, and a failure stops the read.
TEST_F(ValidationTest, RocksDbsCheckOfARowSeesTheRowsRocksDbDoesNotCheckItself) {
  ASSERT_NO_FATAL_FAILURE(Make(/*ordered=*/true));
  std::vector<std::string> checked, seen;
  const KeyCheck fail_at_c = [&checked](const char* row, bool) {
    checked.push_back(UserKeyOf(row));
    return UserKeyOf(row) == "c" ? rdb::Status::Corruption("bad checksum") : rdb::Status::OK();
  };
  rdb::Status s = Get("a", &seen, false, fail_at_c);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(checked, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));  // c failed before it was handed on
  // A Get of c hands c on unchecked: RocksDB checks it before reading it.
  checked.clear();
  seen.clear();
  EXPECT_TRUE(Get("c", &seen, false, fail_at_c).ok());
  EXPECT_TRUE(checked.empty());
  EXPECT_EQ(seen, std::vector<std::string>{"c"});
  // A seek leaves the row it lands on to RocksDB's iterator too.
  std::unique_ptr<rdb::MemTableRep::Iterator> it(adapter_->GetIterator(nullptr));
  const rdb::LookupKey c("c", kMaxSequenceNumber);
  EXPECT_TRUE(SeekChecked(it.get(), c.internal_key(), fail_at_c).ok());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(UserKeyOf(it->key()), "c");
  EXPECT_TRUE(checked.empty());
}
#endif  // MEMREP_ROCKSDB_HAS_KEY_VALIDATION

#if MEMREP_ROCKSDB_HAS_REP_MULTIGET
TEST_F(ValidationTest, MultiGetIsTheRepsBatchLookupWithEveryRowChecked) {
  int batches = 0;
  ASSERT_NO_FATAL_FAILURE(Make(/*ordered=*/true, &batches));
  const rdb::LookupKey a("a", kMaxSequenceNumber), b("b", kMaxSequenceNumber),
      c("c", kMaxSequenceNumber);
  const char* keys[] = {a.memtable_key().data(), b.memtable_key().data(), c.memtable_key().data()};
  std::vector<std::string> seen[3];
  void* args[] = {&seen[0], &seen[1], &seen[2]};
  auto one = [](void* arg, const char* row) {  // the newest row at or after the key only
    static_cast<std::vector<std::string>*>(arg)->push_back(UserKeyOf(row));
    return false;
  };
  ASSERT_TRUE(adapter_->MultiGet(3, keys, args, one, false, false, nullptr).ok());
  EXPECT_EQ(seen[0], std::vector<std::string>{"a"});
  EXPECT_EQ(seen[1], std::vector<std::string>{"b"});
  EXPECT_EQ(seen[2], std::vector<std::string>{"c"});
  EXPECT_EQ(batches, 1) << "the keys were not one batch lookup of the rep";

  // Checked: "ab" is answered by b, a row of another key, which the adapter
  // checks (RocksDB checks only the rows of the key it looks up: a's); the
  // check fails there, and neither b nor anything after it is handed on.
  std::vector<std::string> checked;
  const KeyCheck fail_at_b = [&checked](const char* row, bool) {
    checked.push_back(UserKeyOf(row));
    return UserKeyOf(row) == "b" ? rdb::Status::Corruption("bad checksum") : rdb::Status::OK();
  };
  const rdb::LookupKey ab("ab", kMaxSequenceNumber);
  const char* checked_keys[] = {a.memtable_key().data(), ab.memtable_key().data(),
                                c.memtable_key().data()};
  for (auto& v : seen) v.clear();
  const rdb::Status s = adapter_->MultiGet(3, checked_keys, args, one, false, true, fail_at_b);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(checked, std::vector<std::string>{"b"});
  EXPECT_EQ(seen[0], std::vector<std::string>{"a"});
  EXPECT_TRUE(seen[1].empty() && seen[2].empty());
  EXPECT_EQ(batches, 2);

  // The default MultiGet's way in: a seek by memtable key, internal key empty.
  std::unique_ptr<rdb::MemTableRep::Iterator> it(adapter_->GetIterator(nullptr));
  it->Seek(rdb::Slice(), keys[2]);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(UserKeyOf(it->key()), "c");
}

TEST_F(ValidationTest, MultiGetOverRowsOutOfOrderIsCorruption) {
  ASSERT_NO_FATAL_FAILURE(Make(/*ordered=*/false));
  // From "a" the broken rep hands on b, then a: backwards.
  const rdb::LookupKey a("a", kMaxSequenceNumber);
  const char* keys[] = {a.memtable_key().data()};
  std::vector<std::string> seen;
  void* args[] = {&seen};
  auto all = [](void* arg, const char* row) {
    static_cast<std::vector<std::string>*>(arg)->push_back(UserKeyOf(row));
    return true;
  };
  const rdb::Status s = adapter_->MultiGet(1, keys, args, all, false, true, nullptr);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(seen, std::vector<std::string>{"b"});
}
#endif  // MEMREP_ROCKSDB_HAS_REP_MULTIGET
#endif  // MEMREP_ROCKSDB_HAS_VALIDATION

}  // namespace
}  // namespace memrep::rocksdb_plugin
