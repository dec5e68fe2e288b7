// Differential tests on real RocksDB databases: one uses RocksDB's skip list
// memtable, the other a memrep rep, for every registered rep (with its
// default options and its conformance options), under the bytewise order and
// its reverse. Both get the same operations, and every read (Get, MultiGet,
// iterators, snapshots, after flushes and reopens) must give the same answer.
// The concurrent-writer test checks the memrep database against a std::map
// instead.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "memrep/rocksdb.h"
#include "registry/registry.h"
#include "rocksdb_compat.h"
#include "rocksdb_test_util.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

using KVs = std::vector<std::pair<std::string, std::string>>;

// Merge appends: "a" then Merge("b") reads "a,b".
class AppendOperator final : public rdb::AssociativeMergeOperator {
 public:
  bool Merge(const rdb::Slice& /*key*/, const rdb::Slice* existing, const rdb::Slice& value,
             std::string* new_value, rdb::Logger* /*logger*/) const override {
    new_value->clear();
    if (existing != nullptr) new_value->assign(existing->data(), existing->size()).push_back(',');
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "DbDiffAppend"; }
};

class FlushCounter final : public rdb::EventListener {
 public:
  void OnFlushCompleted(rdb::DB* /*db*/, const rdb::FlushJobInfo& /*info*/) override { ++count; }
  std::atomic<int> count{0};
};

// Keys for Put/Delete/Merge/DeleteRange.
std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%04d", i);
  return buf;
}
// Keys written only as SingleDelete's contract allows (Put, SingleDelete, Put,
// ...): a flush fails on SingleDelete mixed with Delete (enforce_single_del_contracts).
std::string SdKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "s%04d", i);
  return buf;
}

// The whole view from the iterator's first (or last) entry to its end.
KVs Drain(rdb::Iterator* it, bool backward) {
  KVs out;
  for (backward ? it->SeekToLast() : it->SeekToFirst(); it->Valid();
       backward ? it->Prev() : it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  return out;
}

// `expected` is the skiplist database's view (or a model's), `actual` memrep's.
void ExpectSameKvs(const KVs& expected, const KVs& actual, const std::string& what) {
  for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
    ASSERT_EQ(expected[i].first, actual[i].first) << what << ": entry #" << i;
    ASSERT_EQ(expected[i].second, actual[i].second) << what << ": value of " << expected[i].first;
  }
  ASSERT_EQ(expected.size(), actual.size())
      << what << ": "
      << (expected.size() > actual.size() ? "missing " + expected[actual.size()].first
                                          : "extra " + actual[expected.size()].first);
}

void ExpectSameIterState(rdb::Iterator* skip, rdb::Iterator* memrep, const std::string& what) {
  ASSERT_EQ(skip->status().ToString(), memrep->status().ToString()) << what;
  ASSERT_EQ(skip->Valid(), memrep->Valid())
      << what << ": only " << (skip->Valid() ? "skiplist" : "memrep") << " is valid, at "
      << (skip->Valid() ? skip->key() : memrep->key()).ToString();
  if (!skip->Valid()) return;
  ASSERT_EQ(skip->key().ToString(), memrep->key().ToString()) << what;
  ASSERT_EQ(skip->value().ToString(), memrep->value().ToString())
      << what << ": value of " << skip->key().ToString();
}

// One write. `arg` is the value, or DeleteRange's end key.
struct Op {
  enum Kind { kPut, kDelete, kSingleDelete, kMerge, kDeleteRange } kind;
  std::string key, arg;

  std::string ToString() const {
    static const char* const kNames[] = {"Put", "Delete", "SingleDelete", "Merge", "DeleteRange"};
    return std::string(kNames[kind]) + "(" + key + (kind == kDeleteRange ? ", " + arg : "") + ")";
  }
  rdb::Status ApplyTo(rdb::DB* db) const {
    const rdb::WriteOptions wo;
    if (kind == kDeleteRange) return db->DeleteRange(wo, db->DefaultColumnFamily(), key, arg);
    if (kind == kPut || kind == kMerge) {
      return kind == kPut ? db->Put(wo, key, arg) : db->Merge(wo, key, arg);
    }
    return kind == kDelete ? db->Delete(wo, key) : db->SingleDelete(wo, key);
  }
  rdb::Status AddTo(rdb::WriteBatch* batch) const {
    if (kind == kDeleteRange) return batch->DeleteRange(key, arg);
    if (kind == kPut || kind == kMerge) {
      return kind == kPut ? batch->Put(key, arg) : batch->Merge(key, arg);
    }
    return kind == kDelete ? batch->Delete(key) : batch->SingleDelete(key);
  }
};

using Model = std::map<std::string, std::string>;

// What `op` (a Put or a Delete) does to a model of the database.
void Record(Model* model, const Op& op) {
  if (op.kind == Op::kDelete) {
    model->erase(op.key);
  } else {
    model->emplace(op.key, "").first->second = op.arg;
  }
}

// Get of each of `keys` on `db` agrees with `model`.
void ExpectGets(rdb::DB* db, const Model& model, const std::vector<std::string>& keys,
                const std::string& phase) {
  for (const std::string& k : keys) {
    std::string v;
    const rdb::Status st = db->Get(rdb::ReadOptions(), k, &v);
    const auto want = model.find(k);
    ASSERT_EQ(st.ok(), want != model.end()) << phase << ": Get(" << k << "): " << st.ToString();
    ASSERT_EQ(v, want == model.end() ? std::string() : want->second)
        << phase << ": Get(" << k << ")";
  }
}

// Snapshots taken on both databases at the same point of the op sequence.
struct SnapPair {
  const rdb::Snapshot* of[2] = {nullptr, nullptr};
};

// A rep's options string, and the comparator both databases use.
struct DbParam {
  std::string spec;
  const rdb::Comparator* comparator;
};

void PrintTo(const DbParam& p, std::ostream* os) { *os << p.spec << " / " << p.comparator->Name(); }

// Every rep with its default and conformance options, bytewise; and, with
// `reverse`, each rep under the reverse bytewise order too (for the tests
// that compare the two databases only, not a std::map model).
std::vector<DbParam> DbParams(bool reverse) {
  std::vector<DbParam> params;
  for (const memrep::registry::Registration* rep : memrep::registry::All()) {
    params.push_back({rep->name, rdb::BytewiseComparator()});
    for (const std::string& options : rep->conformance_options) {
      params.push_back({"id=" + rep->name + ";" + options, rdb::BytewiseComparator()});
    }
    if (reverse) params.push_back({rep->name, rdb::ReverseBytewiseComparator()});
  }
  return params;
}

std::string DbParamName(const ::testing::TestParamInfo<DbParam>& info) {
  std::string name = std::to_string(info.index) + "_" + info.param.spec.substr(0, 40) +
                     (info.param.comparator == rdb::BytewiseComparator() ? "" : "_Reverse");
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class DbDiffTest : public ::testing::TestWithParam<DbParam> {
 protected:
  static constexpr int kSkip = 0;
  static constexpr int kMemrep = 1;
  static constexpr const char* kSide[2] = {"skiplist", "memrep"};

  bool reverse() const { return GetParam().comparator != rdb::BytewiseComparator(); }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string base = "memrep_db_test_" + std::to_string(::getpid()) + "_" +
                       info->test_suite_name() + "." + info->name() + "_";
    std::replace(base.begin(), base.end(), '/', '_');
    for (int s : {kSkip, kMemrep}) {
      path_[s] = (fs::temp_directory_path() / (base + kSide[s])).string();
      fs::remove_all(path_[s]);
      flushes_[s] = std::make_shared<FlushCounter>();
    }
  }

  void TearDown() override {
    Close();
    for (int s : {kSkip, kMemrep}) fs::remove_all(path_[s]);
  }

  // Opens (or reopens) both databases with the same options but the memtable.
  void Open() {
    if (!factory_[kSkip]) factory_[kSkip] = std::make_shared<rdb::SkipListFactory>();
    if (!factory_[kMemrep]) {
      const rdb::Status st =
          memrep::rocksdb_plugin::NewRepFactory(GetParam().spec, &factory_[kMemrep]);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    for (int s : {kSkip, kMemrep}) {
      rdb::Options o;
      o.create_if_missing = true;
      o.comparator = GetParam().comparator;
      // A rep without concurrent inserts gets them one at a time.
      o.allow_concurrent_memtable_write = factory_[kMemrep]->IsInsertConcurrentlySupported();
      o.merge_operator = std::make_shared<AppendOperator>();
      o.memtable_factory = factory_[s];
      o.listeners.push_back(flushes_[s]);
      if (tweak_) tweak_(o);
      const rdb::Status st = memrep::testing::OpenDb(o, path_[s], &db_[s]);
      ASSERT_TRUE(st.ok()) << kSide[s] << ": Open: " << st.ToString();
    }
  }

  void Close() {
    for (const SnapPair& snap : snaps_) {
      for (int s : {kSkip, kMemrep}) db_[s]->ReleaseSnapshot(snap.of[s]);
    }
    snaps_.clear();
    for (int s : {kSkip, kMemrep}) {
      if (!db_[s]) continue;
      const rdb::Status st = db_[s]->Close();
      EXPECT_TRUE(st.ok()) << kSide[s] << ": Close: " << st.ToString();
      db_[s].reset();
    }
  }

  void Reopen() {
    Close();
    Open();
  }

  const SnapPair* TakeSnapshot() {
    SnapPair snap;
    for (int s : {kSkip, kMemrep}) snap.of[s] = db_[s]->GetSnapshot();
    snaps_.push_back(snap);
    return &snaps_.back();
  }

  // Runs `op` on both databases; both must succeed.
  void Both(const std::string& what, const std::function<rdb::Status(rdb::DB*)>& op) {
    rdb::Status st[2];
    for (int s : {kSkip, kMemrep}) st[s] = op(db_[s].get());
    ASSERT_EQ(st[kSkip].ToString(), st[kMemrep].ToString()) << what << " (skiplist, memrep)";
    ASSERT_TRUE(st[kSkip].ok()) << what << ": " << st[kSkip].ToString();
  }

  void FlushBoth() {
    Both("Flush", [](rdb::DB* db) { return db->Flush(rdb::FlushOptions()); });
  }

  // Whether RandomOp draws DeleteRange (RocksDB's tailing iterators do not
  // serve range tombstones: what they return over one depends on where it
  // sits, a memtable or a file).
  bool range_deletes_ = true;
  Op RandomOp(std::mt19937& rng, size_t value_size) {
    const std::string value = "v" + std::to_string(++counter_) + std::string(value_size, '.');
    const int k = static_cast<int>(rng() % key_space_);
    const unsigned pick = rng() % 16;
    if (pick < 7) return {Op::kPut, Key(k), value};
    if (pick < 9) return {Op::kDelete, Key(k), ""};
    if (pick < 13) return {Op::kMerge, Key(k), value};
    if (pick < 14 && !range_deletes_) return {Op::kPut, Key(k), value};
    if (pick < 14) {
      std::string begin = Key(k), end = Key(k + 1 + static_cast<int>(rng() % 8));
      if (reverse()) std::swap(begin, end);  // [begin, end) in the comparator's order
      return {Op::kDeleteRange, begin, end};
    }
    const int i = static_cast<int>(rng() % sd_space_);
    if (sd_live_.erase(i) != 0) return {Op::kSingleDelete, SdKey(i), ""};
    sd_live_.insert(i);
    return {Op::kPut, SdKey(i), value};
  }

  // A random write, or a WriteBatch of several, applied to both databases.
  void RandomWrite(std::mt19937& rng, size_t value_size = 0) {
    if (rng() % 5 != 0) {
      const Op op = RandomOp(rng, value_size);
      Both(op.ToString(), [&](rdb::DB* db) { return op.ApplyTo(db); });
      return;
    }
    rdb::WriteBatch batch;
    std::string what = "WriteBatch{";
    for (unsigned n = 2 + rng() % 7; n > 0; --n) {
      const Op op = RandomOp(rng, value_size);
      ASSERT_TRUE(op.AddTo(&batch).ok()) << op.ToString();
      what += " " + op.ToString();
    }
    Both(what + " }", [&](rdb::DB* db) {
      rdb::WriteBatch copy = batch;
      return db->Write(rdb::WriteOptions(), &copy);
    });
  }

  // Every key that may have been written, plus two that never are.
  std::vector<std::string> AllKeys() const {
    std::vector<std::string> keys = {"a-never-written", "z-never-written"};
    for (int i = 0; i <= key_space_ + 8; ++i) keys.push_back(Key(i));
    for (int i = 0; i < sd_space_; ++i) keys.push_back(SdKey(i));
    return keys;
  }

  static rdb::ReadOptions Read(int s, const SnapPair* snap, rdb::ReadOptions base = {}) {
    if (snap != nullptr) base.snapshot = snap->of[s];
    return base;
  }

  // Get of every key, and MultiGet over batches of 7 keys.
  void CheckPointReads(const std::string& phase, const SnapPair* snap = nullptr) {
    const std::vector<std::string> keys = AllKeys();
    for (const std::string& k : keys) {
      std::string v[2];
      rdb::Status st[2];
      for (int s : {kSkip, kMemrep}) st[s] = db_[s]->Get(Read(s, snap), k, &v[s]);
      ASSERT_EQ(st[kSkip].ToString(), st[kMemrep].ToString()) << phase << ": Get(" << k << ")";
      ASSERT_TRUE(st[kSkip].ok() || st[kSkip].IsNotFound()) << phase << ": Get(" << k << ")";
      ASSERT_EQ(v[kSkip], v[kMemrep]) << phase << ": Get(" << k << ")";
    }
    for (size_t b = 0; b < keys.size(); b += 7) {
      const std::vector<rdb::Slice> batch(keys.begin() + b,
                                          keys.begin() + std::min(b + 7, keys.size()));
      std::vector<rdb::PinnableSlice> v[2];
      std::vector<rdb::Status> st[2];
      for (int s : {kSkip, kMemrep}) {
        v[s].resize(batch.size());
        st[s].resize(batch.size());
        db_[s]->MultiGet(Read(s, snap), db_[s]->DefaultColumnFamily(), batch.size(), batch.data(),
                         v[s].data(), st[s].data());
      }
      for (size_t i = 0; i < batch.size(); ++i) {
        const std::string what = phase + ": MultiGet of " + batch[i].ToString();
        ASSERT_EQ(st[kSkip][i].ToString(), st[kMemrep][i].ToString()) << what;
        ASSERT_EQ(v[kSkip][i].ToString(), v[kMemrep][i].ToString()) << what;
      }
    }
  }

  // Full forward and backward scans.
  void CheckScans(const std::string& phase, const SnapPair* snap = nullptr,
                  const rdb::ReadOptions& base = {}) {
    for (bool backward : {false, true}) {
      const std::string what = phase + (backward ? ", backward scan" : ", forward scan");
      KVs kv[2];
      for (int s : {kSkip, kMemrep}) {
        std::unique_ptr<rdb::Iterator> it(db_[s]->NewIterator(Read(s, snap, base)));
        kv[s] = Drain(it.get(), backward);
        ASSERT_TRUE(it->status().ok())
            << what << ": " << kSide[s] << ": " << it->status().ToString();
      }
      ASSERT_NO_FATAL_FAILURE(ExpectSameKvs(kv[kSkip], kv[kMemrep], what));
    }
  }

  void CheckAll(const std::string& phase, const SnapPair* snap = nullptr) {
    ASSERT_NO_FATAL_FAILURE(CheckPointReads(phase, snap));
    ASSERT_NO_FATAL_FAILURE(CheckScans(phase, snap));
  }

  // A random walk of Seek/SeekForPrev/SeekToFirst/SeekToLast/Next/Prev on one
  // iterator per database, compared after every step. With write_every > 0,
  // a random write goes to both databases every that many steps: the open
  // iterators must not see it, and must keep working.
  void RandomWalk(const std::string& phase, std::mt19937& rng, int steps, int write_every = 0,
                  const SnapPair* snap = nullptr, const rdb::ReadOptions& base = {}) {
    std::unique_ptr<rdb::Iterator> it[2];
    for (int s : {kSkip, kMemrep}) it[s].reset(db_[s]->NewIterator(Read(s, snap, base)));
    std::deque<std::string> history;
    for (int step = 0; step < steps; ++step) {
      if (write_every > 0 && step % write_every == write_every - 1) {
        ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
      }
      unsigned pick = rng() % 20;
      if (!it[kSkip]->Valid() && pick < 14) pick = 14 + rng() % 6;  // Next/Prev need a position
      std::string target;
      switch (rng() % 8) {
        case 0:
          target = SdKey(static_cast<int>(rng() % sd_space_));
          break;
        case 1:
          target = (rng() % 2) ? "a" : "z";
          break;
        default:
          target = Key(static_cast<int>(rng() % (key_space_ + 2)));
      }
      if (rng() % 3 == 0) target += "~";  // between two keys
      for (int s : {kSkip, kMemrep}) {
        rdb::Iterator* i = it[s].get();
        if (pick < 7) {
          i->Next();
        } else if (pick < 14) {
          i->Prev();
        } else if (pick < 16) {
          i->Seek(target);
        } else if (pick < 18) {
          i->SeekForPrev(target);
        } else {
          pick < 19 ? i->SeekToFirst() : i->SeekToLast();
        }
      }
      history.push_back(pick < 7    ? "Next"
                        : pick < 14 ? "Prev"
                        : pick < 16 ? "Seek(" + target + ")"
                        : pick < 18 ? "SeekForPrev(" + target + ")"
                        : pick < 19 ? "SeekToFirst"
                                    : "SeekToLast");
      if (history.size() > 6) history.pop_front();
      std::string what = phase + ", walk step " + std::to_string(step) + ", after";
      for (const std::string& h : history) what += " " + h;
      ASSERT_NO_FATAL_FAILURE(ExpectSameIterState(it[kSkip].get(), it[kMemrep].get(), what));
    }
  }

  std::string path_[2];
  std::shared_ptr<rdb::MemTableRepFactory> factory_[2];
  std::shared_ptr<FlushCounter> flushes_[2];
  std::unique_ptr<rdb::DB> db_[2];
  std::deque<SnapPair> snaps_;  // a deque: TakeSnapshot's pointers stay valid
  std::function<void(rdb::Options&)> tweak_;
  int key_space_ = 60;  // few keys, so each gets many versions
  int sd_space_ = 12;
  std::set<int> sd_live_;  // SdKeys whose last write is a Put
  uint64_t counter_ = 0;   // makes every value unique
};

// ---------------------------------------------------------------------------
// 1. Random Put/Delete/SingleDelete/Merge/DeleteRange/WriteBatch on 60 keys.

class DbDiffMixed : public DbDiffTest {
 protected:
  void Run() {
#if MEMREP_ROCKSDB_HAS_VALIDATION
    // RocksDB 9.6 on: its paranoid memory checks, on in both databases, send
    // every Get, Seek, Next and Prev through the rep's validating calls
    // (rocksdb_compat.h). The other tests keep the plain calls.
    tweak_ = [](rdb::Options& o) { o.paranoid_memory_checks = true; };
#endif
    ASSERT_NO_FATAL_FAILURE(Open());
    std::mt19937 rng(20240601);
    for (int phase = 0; phase < 5; ++phase) {
      for (int i = 0; i < 600; ++i) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
      const std::string name = "phase " + std::to_string(phase);
      ASSERT_NO_FATAL_FAILURE(CheckAll(name));
      ASSERT_NO_FATAL_FAILURE(RandomWalk(name, rng, 300));
    }
  }
};

TEST_P(DbDiffMixed, RandomOpsReadTheSame) { Run(); }

// ---------------------------------------------------------------------------
// 2. Snapshots: each keeps its view while writes go on.

TEST_P(DbDiffTest, SnapshotsKeepTheirPointInTime) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(7);
  std::vector<const SnapPair*> snaps;
  for (int i = 0; i < 6; ++i) {
    for (int n = 0; n < 300; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
    snaps.push_back(TakeSnapshot());
  }
  for (int n = 0; n < 300; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  for (size_t i = 0; i < snaps.size(); ++i) {
    const std::string name = "snapshot " + std::to_string(i);
    ASSERT_NO_FATAL_FAILURE(CheckAll(name, snaps[i]));
    ASSERT_NO_FATAL_FAILURE(RandomWalk(name, rng, 200, /*write_every=*/10, snaps[i]));
  }
  ASSERT_NO_FATAL_FAILURE(CheckAll("latest"));
}

// ---------------------------------------------------------------------------
// 3. Bounded iterators and random walks with direction changes (total order,
// no prefix extractor).

TEST_P(DbDiffTest, BoundedIteratorsWalkTheSame) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(11);
  for (int n = 0; n < 1500; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  const std::optional<std::string> none;
  const std::pair<std::optional<std::string>, std::optional<std::string>> cases[] = {
      {none, none},           {Key(10), Key(30)}, {none, Key(20)}, {Key(45), none},
      {Key(7) + "~", Key(8)}, {Key(20), Key(21)}, {"s", "t"},      {none, "a"},
      {Key(59) + "~", none},
  };
  for (auto [lo, hi] : cases) {
    if (reverse()) std::swap(lo, hi);  // bounds in the comparator's order
    const std::string name = "bounds [" + lo.value_or("-") + ", " + hi.value_or("-") + ")";
    const std::string lower_key = lo.value_or(""), upper_key = hi.value_or("");
    const rdb::Slice lower(lower_key), upper(upper_key);  // they must outlive the iterators
    rdb::ReadOptions ro;
    if (lo) ro.iterate_lower_bound = &lower;
    if (hi) ro.iterate_upper_bound = &upper;
    ASSERT_NO_FATAL_FAILURE(CheckScans(name, nullptr, ro));
    ASSERT_NO_FATAL_FAILURE(RandomWalk(name, rng, 300, /*write_every=*/0, nullptr, ro));
    ASSERT_NO_FATAL_FAILURE(
        RandomWalk(name + ", writing", rng, 300, /*write_every=*/7, nullptr, ro));
  }
}

// ---------------------------------------------------------------------------
// 4. Refreshed and tailing iterators see new writes. RocksDB rebuilds neither
// while the memtables stay the same: it re-seeks the memtable iterator it has
// (at a newer sequence), which must then see entries inserted since.

TEST_P(DbDiffTest, RefreshedIteratorsSeeNewWrites) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(13);
  for (int n = 0; n < 500; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  std::unique_ptr<rdb::Iterator> it[2];
  for (int s : {kSkip, kMemrep}) it[s].reset(db_[s]->NewIterator(rdb::ReadOptions()));
  for (int round = 0; round < 4; ++round) {
    const std::string name = "round " + std::to_string(round);
    const std::string fresh = "n" + std::to_string(round);  // a key never written before
    for (int n = 0; n < 200; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
    Both("Put(" + fresh + ")", [&](rdb::DB* db) { return db->Put({}, fresh, "new"); });
    KVs before[2], after[2];
    for (int s : {kSkip, kMemrep}) {
      before[s] = Drain(it[s].get(), false);
      const rdb::Status st = it[s]->Refresh();
      ASSERT_TRUE(st.ok()) << name << ": " << kSide[s] << " Refresh: " << st.ToString();
      after[s] = Drain(it[s].get(), false);
    }
    ASSERT_NO_FATAL_FAILURE(
        ExpectSameKvs(before[kSkip], before[kMemrep], name + ", before Refresh"));
    ASSERT_NO_FATAL_FAILURE(ExpectSameKvs(after[kSkip], after[kMemrep], name + ", after Refresh"));
    const KVs::value_type want(fresh, "new");
    ASSERT_EQ(std::count(after[kMemrep].begin(), after[kMemrep].end(), want), 1)
        << name << ": Refresh missed " << fresh;
    ASSERT_NO_FATAL_FAILURE(CheckScans(name + ", new iterators"));
  }
}

// Until `db` runs no flush or compaction and none is pending (at most 60 s).
void WaitForBackgroundWork(rdb::DB* db) {
  for (int i = 0; i < 6000; ++i) {
    uint64_t pending = 0, flushes = 0, compactions = 0;
    ASSERT_TRUE(db->GetIntProperty("rocksdb.mem-table-flush-pending", &pending));
    ASSERT_TRUE(db->GetIntProperty("rocksdb.num-running-flushes", &flushes));
    ASSERT_TRUE(db->GetIntProperty("rocksdb.num-running-compactions", &compactions));
    if (pending == 0 && flushes == 0 && compactions == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "background work still running after 60 s";
}

TEST_P(DbDiffTest, TailingIteratorsSeeNewWrites) {
  // No DeleteRange: RocksDB's tailing iterator (ForwardIterator) does not
  // serve range tombstones, and shows a range-deleted key or not depending
  // on whether the tombstone was flushed, which differs between the two
  // databases (a small rep switches memtables at other writes).
  range_deletes_ = false;
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(29);
  for (int n = 0; n < 500; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  rdb::ReadOptions tailing;
  tailing.tailing = true;
  std::unique_ptr<rdb::Iterator> tail[2];
  for (int s : {kSkip, kMemrep}) tail[s].reset(db_[s]->NewIterator(tailing));
  for (int round = 0; round < 4; ++round) {
    const std::string name = "round " + std::to_string(round);
    const std::string fresh = "n" + std::to_string(round);
    for (int n = 0; n < 200; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
    Both("Put(" + fresh + ")", [&](rdb::DB* db) { return db->Put({}, fresh, "new"); });
    // A flush or compaction that finishes while a tailing iterator scans
    // decides what it still sees, and the two databases switch memtables at
    // different writes: both are quiet before the scan, so what is compared
    // is what a Seek sees of the writes before it.
    for (int s : {kSkip, kMemrep}) ASSERT_NO_FATAL_FAILURE(WaitForBackgroundWork(db_[s].get()));
    KVs seen[2];  // forward only: tailing iterators have no Prev
    for (int s : {kSkip, kMemrep}) {
      for (tail[s]->Seek("a"); tail[s]->Valid(); tail[s]->Next()) {
        seen[s].emplace_back(tail[s]->key().ToString(), tail[s]->value().ToString());
      }
      ASSERT_TRUE(tail[s]->status().ok()) << name << ": " << kSide[s] << " tailing";
    }
    ASSERT_NO_FATAL_FAILURE(ExpectSameKvs(seen[kSkip], seen[kMemrep], name + ", tailing Seek"));
    const KVs::value_type want(fresh, "new");
    ASSERT_EQ(std::count(seen[kMemrep].begin(), seen[kMemrep].end(), want), 1)
        << name << ": the tailing iterator missed " << fresh;
  }
}

// ---------------------------------------------------------------------------
// 5. Flush, then writes over the flushed data, then a reopen.

TEST_P(DbDiffTest, FlushAndReopenKeepTheSameView) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(17);
  for (int n = 0; n < 1000; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  ASSERT_NO_FATAL_FAILURE(CheckAll("before flush"));
  ASSERT_NO_FATAL_FAILURE(FlushBoth());
  ASSERT_NO_FATAL_FAILURE(CheckAll("after flush"));
  for (int n = 0; n < 1000; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
  ASSERT_NO_FATAL_FAILURE(CheckAll("memtable over an SST"));
  ASSERT_NO_FATAL_FAILURE(RandomWalk("memtable over an SST", rng, 300));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(CheckAll("after reopen"));
  EXPECT_GE(flushes_[kMemrep]->count.load(), 1);
}

// ---------------------------------------------------------------------------
// 6. Close without flushing, then recover from the WAL: into the memtable,
// then again with the recovered memtable flushed at open.

TEST_P(DbDiffTest, ReopenFromTheWalLosesNothing) {
  bool keep_in_memtable = true;
  tweak_ = [&](rdb::Options& o) {
    o.avoid_flush_during_shutdown = true;
    o.avoid_flush_during_recovery = keep_in_memtable;
  };
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(19);
  Model model;  // of the "w" keys, written only with Put and Delete
  std::vector<std::string> model_keys;
  for (int i = 0; i < 100; ++i) model_keys.push_back("w" + std::to_string(i));
  for (int n = 0; n < 1500; ++n) {
    ASSERT_NO_FATAL_FAILURE(RandomWrite(rng));
    const std::string& k = model_keys[rng() % model_keys.size()];
    const Op op = n % 5 == 4 ? Op{Op::kDelete, k, ""} : Op{Op::kPut, k, "w" + std::to_string(n)};
    Both(op.ToString(), [&](rdb::DB* db) { return op.ApplyTo(db); });
    Record(&model, op);
  }
  ASSERT_NO_FATAL_FAILURE(CheckAll("before close"));
  for (bool keep : {true, false}) {
    keep_in_memtable = keep;
    const std::string phase = keep ? "recovered into the memtable" : "recovered and flushed";
    ASSERT_NO_FATAL_FAILURE(Reopen());
    uint64_t entries = 0;
    ASSERT_TRUE(db_[kMemrep]->GetIntProperty("rocksdb.num-entries-active-mem-table", &entries));
    EXPECT_EQ(entries > 1000, keep) << phase << ": " << entries << " entries in the memtable";
    ASSERT_NO_FATAL_FAILURE(ExpectGets(db_[kMemrep].get(), model, model_keys, phase));
    ASSERT_NO_FATAL_FAILURE(CheckAll(phase));
    ASSERT_NO_FATAL_FAILURE(RandomWalk(phase, rng, 200));
  }
}

// ---------------------------------------------------------------------------
// 7. Concurrent writers on disjoint keys (memrep only), checked against a map.

TEST_P(DbDiffTest, ConcurrentWritersLoseNothing) {
  // Concurrent memtable writes where the rep takes them (Open follows its
  // traits); RocksDB serializes the inserts for one that does not.
  tweak_ = [](rdb::Options& o) { o.enable_pipelined_write = false; };
  ASSERT_NO_FATAL_FAILURE(Open());
  rdb::DB* db = db_[kMemrep].get();
  constexpr int kThreads = 4, kOps = 600, kKeys = 300;
  std::vector<std::string> keys;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kKeys; ++i) keys.push_back("t" + std::to_string(t) + "-" + Key(i));
  }
  std::vector<Model> written(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      for (int n = 0; n < kOps && errors[t].empty(); ++n) {
        // A single Put, or a WriteBatch of Puts and Deletes, on this thread's keys.
        const bool batched = rng() % 2 == 0;
        std::vector<Op> ops;
        for (unsigned i = batched ? 1 + rng() % 8 : 1; i > 0; --i) {
          const std::string& k = keys[t * kKeys + rng() % kKeys];
          const std::string v = k + "@" + std::to_string(n) + "." + std::to_string(i);
          ops.push_back(batched && rng() % 10 == 0 ? Op{Op::kDelete, k, ""} : Op{Op::kPut, k, v});
        }
        rdb::WriteBatch batch;
        rdb::Status st;
        for (const Op& op : ops) st = st.ok() ? op.AddTo(&batch) : st;
        if (st.ok()) st = batched ? db->Write(rdb::WriteOptions(), &batch) : ops[0].ApplyTo(db);
        if (!st.ok()) errors[t] = "op " + std::to_string(n) + ": " + st.ToString();
        for (const Op& op : ops) Record(&written[t], op);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) ASSERT_EQ(errors[t], "") << "writer " << t;
  Model want;
  for (const Model& m : written) want.insert(m.begin(), m.end());
  const KVs want_kvs(want.begin(), want.end());
  const KVs want_reversed(want_kvs.rbegin(), want_kvs.rend());

  for (const std::string phase : {"in the memtable", "after flush"}) {
    ASSERT_NO_FATAL_FAILURE(ExpectGets(db, want, keys, phase));
    for (bool backward : {false, true}) {
      std::unique_ptr<rdb::Iterator> it(db->NewIterator(rdb::ReadOptions()));
      const KVs got = Drain(it.get(), backward);
      ASSERT_TRUE(it->status().ok()) << phase;
      ASSERT_NO_FATAL_FAILURE(ExpectSameKvs(backward ? want_reversed : want_kvs, got,
                                            phase + (backward ? ", backward" : ", forward")));
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  }
}

// ---------------------------------------------------------------------------
// 8. A 64 KiB write buffer: memtables switch and flush during the run.

TEST_P(DbDiffTest, SmallWriteBufferSwitchesAndFlushes) {
  tweak_ = [](rdb::Options& o) {
    o.write_buffer_size = 64 << 10;
    o.max_write_buffer_number = 4;
  };
  key_space_ = 400;
  ASSERT_NO_FATAL_FAILURE(Open());
  std::mt19937 rng(23);
  for (int phase = 0; phase < 3; ++phase) {
    for (int n = 0; n < 1000; ++n) ASSERT_NO_FATAL_FAILURE(RandomWrite(rng, /*value_size=*/100));
    // Reads span the active memtable, immutable ones and SSTs.
    ASSERT_NO_FATAL_FAILURE(CheckAll("phase " + std::to_string(phase)));
  }
  ASSERT_NO_FATAL_FAILURE(RandomWalk("small buffer", rng, 300, /*write_every=*/5));
  ASSERT_NO_FATAL_FAILURE(FlushBoth());
  EXPECT_GE(flushes_[kMemrep]->count.load(), 4) << "memtables did not switch";
  ASSERT_NO_FATAL_FAILURE(CheckAll("after flush"));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(CheckAll("after reopen"));
}

// ---------------------------------------------------------------------------
// 9. GetApproximateMemTableStats counts keys the memtable holds in a range.

TEST_P(DbDiffTest, ApproximateMemTableStatsCountTheRange) {
  ASSERT_NO_FATAL_FAILURE(Open());
  // Only memrep's count is checked: the skip list's estimate is randomized
  // and can itself be 0 for a range of a few hundred keys.
  const auto count = [&](int lo, int hi) {
    uint64_t n = 0, size = 0;
    const std::string b = Key(lo), e = Key(hi);
    db_[kMemrep]->GetApproximateMemTableStats(rdb::Range(b, e), &n, &size);
    return n;
  };
  const auto put_range = [&](int lo, int hi) {
    for (int i = lo; i < hi; ++i) {
      Both("Put(" + Key(i) + ")", [&](rdb::DB* db) { return db->Put({}, Key(i), "value"); });
    }
  };
  const auto expect_counted = [&](const std::string& phase, int lo, int hi) {
    const std::string what = phase + ": range [" + Key(lo) + ", " + Key(hi) + ")";
    EXPECT_GT(count(lo, hi), 0u) << what << " holds " << hi - lo << " keys";
  };
  put_range(0, 500);
  expect_counted("fresh writes", 100, 300);
  expect_counted("fresh writes", 400, 420);
  ASSERT_NO_FATAL_FAILURE(CheckScans("scan"));  // memrep sorts what the scans read
  expect_counted("after scans", 100, 300);
  expect_counted("after scans", 400, 420);
  put_range(500, 1000);  // a new key range, written after the scans
  expect_counted("new range after scans", 600, 800);
  expect_counted("new range after scans", 100, 900);
}

INSTANTIATE_TEST_SUITE_P(AllReps, DbDiffTest, ::testing::ValuesIn(DbParams(false)), DbParamName);
INSTANTIATE_TEST_SUITE_P(AllReps, DbDiffMixed, ::testing::ValuesIn(DbParams(true)), DbParamName);

}  // namespace
