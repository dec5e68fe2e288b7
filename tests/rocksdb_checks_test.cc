// RocksDB's integrity checks over every rep, against the skip list:
// memtable_protection_bytes_per_key = 8 (a checksum in every row, checked as
// rows are read), paranoid_memory_checks (9.6 on: Get and iterators go
// through the rep's validating calls), memtable_verify_per_key_checksum_on_seek
// (10.7 on: the checksum of every row a lookup visits) and
// memtable_batch_lookup_optimization (11.1 on: MultiGet through the rep's
// MultiGet), each where this RocksDB has it.
//
//   ChecksDiff: with every check on, random writes, then every Get, MultiGet
//   and iterator operation answers as on the skip list (rocksdb_db_test.cc
//   compares the plain calls).
//   Corruption: one stored row changed in place (a byte of its key, its value
//   or its checksum; or, with no checksums, its key moved out of order): a
//   read that the skip list answers with Corruption is Corruption with the
//   rep too, never a memtable silently skipped, but for two known gaps,
//   where a rep finds its way by the stored key that changed
//   (docs/rocksdb.md, "Integrity checks"):
//   - a rep whose Get is a hash probe (the sorted hash, the columnar rep)
//     compares the stored key with the one looked up, so a point read of a
//     key whose stored bytes changed would miss the row where the skip
//     list's search lands on it and checks it. With per-key checksums on
//     seek (10.7 on) the adapter checks the rows the probe rejects too
//     (Rep::ProbedRows), and the read is Corruption; before 10.7 RocksDB
//     hands the rep no check of its own, and the test asks only that the
//     read find no value of it (NotFound).
//   - a point read (Get, MultiGet) of a key moved out of order misses it
//     (NotFound, never its value) where the skip list reports Corruption.
//     Seeks are checked: a binary search over a sorted run, which does not
//     land on the moved key, checks the rows around where it landed
//     (RepIterator::DisorderNearSeek).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "memrep/rocksdb.h"
#include "registry/registry.h"
#include "rocksdb_compat.h"
#include "rocksdb_recording_rep.h"
#include "rocksdb_test_util.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using memrep::testing::RecordingFactory;

// Every check this RocksDB has, on.
void TurnOnChecks(rdb::Options* o, bool checksums) {
  o->memtable_protection_bytes_per_key = checksums ? 8 : 0;
#if MEMREP_ROCKSDB_HAS_VALIDATION
  o->paranoid_memory_checks = true;
#endif
#if MEMREP_ROCKSDB_AT_LEAST(11, 5)
  o->memtable_verify_per_key_checksum_on_seek = checksums;
#elif MEMREP_ROCKSDB_HAS_KEY_VALIDATION
  o->memtable_veirfy_per_key_checksum_on_seek = checksums;  // RocksDB's spelling until 11.5
#endif
#if MEMREP_ROCKSDB_HAS_REP_MULTIGET
  o->memtable_batch_lookup_optimization = true;
#endif
}

class AppendOperator final : public rdb::AssociativeMergeOperator {
 public:
  bool Merge(const rdb::Slice&, const rdb::Slice* existing, const rdb::Slice& value,
             std::string* new_value, rdb::Logger*) const override {
    new_value->clear();
    if (existing != nullptr) new_value->assign(existing->data(), existing->size()).push_back(',');
    new_value->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "ChecksAppend"; }
};

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%04d", i);
  return buf;
}

// One read's outcome: its status, and what it found.
struct Answer {
  rdb::Status status;
  std::string found;
  std::string ToString() const { return status.ToString() + " [" + found + "]"; }
};

// A skip-list database and one on the rep, both on a RecordingFactory, with
// the same options.
class ChecksFixture : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr int kSkip = 0, kRep = 1;
  static constexpr const char* kSide[2] = {"skiplist", "rep"};

  void TearDown() override { Close(); }

  void Open(bool checksums) {
    Close();
    std::shared_ptr<rdb::MemTableRepFactory> inner[2];
    inner[kSkip] = std::make_shared<rdb::SkipListFactory>();
    const rdb::Status made = memrep::rocksdb_plugin::NewRepFactory(GetParam(), &inner[kRep]);
    ASSERT_TRUE(made.ok()) << made.ToString();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string base = "memrep_checks_" + std::to_string(::getpid()) + "_" + info->name() + "_";
    std::replace(base.begin(), base.end(), '/', '_');
    for (int s : {kSkip, kRep}) {
      path_[s] = (fs::temp_directory_path() / (base + kSide[s])).string();
      fs::remove_all(path_[s]);
      factory_[s] = std::make_shared<RecordingFactory>(inner[s]);
      rdb::Options o;
      o.create_if_missing = true;
      o.allow_concurrent_memtable_write = inner[kRep]->IsInsertConcurrentlySupported();
      o.merge_operator = std::make_shared<AppendOperator>();
      o.memtable_factory = factory_[s];
      TurnOnChecks(&o, checksums);
      const rdb::Status st = memrep::testing::OpenDb(o, path_[s], &db_[s]);
      ASSERT_TRUE(st.ok()) << kSide[s] << ": " << st.ToString();
    }
  }
  void Close() {
    for (int s : {kSkip, kRep}) {
      db_[s].reset();
      if (!path_[s].empty()) fs::remove_all(path_[s]);
    }
  }

  // `write` on both databases; both must succeed.
  void Both(const std::function<rdb::Status(rdb::DB*)>& write) {
    for (int s : {kSkip, kRep}) {
      const rdb::Status st = write(db_[s].get());
      ASSERT_TRUE(st.ok()) << kSide[s] << ": " << st.ToString();
    }
  }

  Answer Get(int s, const std::string& key) {
    Answer a;
    a.status = db_[s]->Get(rdb::ReadOptions(), key, &a.found);
    return a;
  }
  // MultiGet of `keys`: the first status not OK or NotFound, else OK; and
  // what each key found.
  Answer MultiGet(int s, const std::vector<std::string>& keys) {
    const std::vector<rdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rdb::PinnableSlice> values(keys.size());
    std::vector<rdb::Status> statuses(keys.size());
    db_[s]->MultiGet(rdb::ReadOptions(), db_[s]->DefaultColumnFamily(), keys.size(), slices.data(),
                     values.data(), statuses.data());
    Answer a;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (a.status.ok() && !statuses[i].ok() && !statuses[i].IsNotFound()) a.status = statuses[i];
      a.found += statuses[i].ToString() + "=" + values[i].ToString() + ";";
    }
    return a;
  }
  // A scan from SeekToFirst (SeekToLast backward), or from Seek(from).
  Answer Scan(int s, bool backward, const std::string* from = nullptr) {
    std::unique_ptr<rdb::Iterator> it(db_[s]->NewIterator(rdb::ReadOptions()));
    if (from != nullptr) {
      backward ? it->SeekForPrev(*from) : it->Seek(*from);
    } else {
      backward ? it->SeekToLast() : it->SeekToFirst();
    }
    Answer a;
    for (; it->Valid(); backward ? it->Prev() : it->Next()) {
      a.found += it->key().ToString() + "=" + it->value().ToString() + ";";
    }
    a.status = it->status();
    return a;
  }

  std::string path_[2];
  std::shared_ptr<RecordingFactory> factory_[2];
  std::unique_ptr<rdb::DB> db_[2];
};

std::vector<std::string> AllReps(bool with_options) {
  std::vector<std::string> specs;
  for (const memrep::registry::Registration* rep : memrep::registry::All()) {
    specs.push_back(rep->name);
    if (!with_options) continue;
    for (const std::string& options : rep->conformance_options) {
      specs.push_back("id=" + rep->name + ";" + options);
    }
  }
  return specs;
}

std::string SpecName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::to_string(info.index) + "_" + info.param.substr(0, 40);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// ---------------------------------------------------------------------------
// 1. With every check on, every read answers as on the skip list.

using ChecksDiff = ChecksFixture;

TEST_P(ChecksDiff, EveryReadAnswersAsTheSkipList) {
  ASSERT_NO_FATAL_FAILURE(Open(/*checksums=*/true));
  constexpr int kKeys = 80;
  std::mt19937 rng(20261201);
  uint64_t counter = 0;
  const auto random_write = [&](rdb::WriteBatch* batch) {
    const std::string key = Key(static_cast<int>(rng() % kKeys));
    const std::string value = "v" + std::to_string(++counter);
    switch (rng() % 8) {
      case 0:
        return batch->Delete(key);
      case 1:
      case 2:
        return batch->Merge(key, value);
      default:
        return batch->Put(key, value);
    }
  };
  std::vector<std::string> keys = {"a", "z"};  // two never written
  for (int i = 0; i <= kKeys; ++i) keys.push_back(Key(i));
  for (int phase = 0; phase < 4; ++phase) {
    for (int n = 0; n < 400; ++n) {
      rdb::WriteBatch batch;
      for (unsigned ops = 1 + rng() % 4; ops > 0; --ops) ASSERT_TRUE(random_write(&batch).ok());
      ASSERT_NO_FATAL_FAILURE(Both([&](rdb::DB* db) {
        rdb::WriteBatch copy = batch;
        return db->Write(rdb::WriteOptions(), &copy);
      }));
    }
    const std::string what = "phase " + std::to_string(phase);
    for (const std::string& k : keys) {
      const Answer skip = Get(kSkip, k), rep = Get(kRep, k);
      ASSERT_TRUE(skip.status.ok() || skip.status.IsNotFound()) << what << ": " << skip.ToString();
      ASSERT_EQ(skip.ToString(), rep.ToString()) << what << ": Get(" << k << ")";
    }
    for (size_t b = 0; b < keys.size(); b += 9) {
      const std::vector<std::string> batch(keys.begin() + b,
                                           keys.begin() + std::min(b + 9, keys.size()));
      ASSERT_EQ(MultiGet(kSkip, batch).ToString(), MultiGet(kRep, batch).ToString())
          << what << ": MultiGet from " << batch[0];
    }
    for (bool backward : {false, true}) {
      const Answer skip = Scan(kSkip, backward), rep = Scan(kRep, backward);
      ASSERT_TRUE(skip.status.ok()) << what << ": " << skip.status.ToString();
      ASSERT_EQ(skip.ToString(), rep.ToString()) << what << (backward ? ": backward" : ": forward");
    }
    // A random walk of every positioning call and step, compared after each.
    std::unique_ptr<rdb::Iterator> it[2];
    for (int s : {kSkip, kRep}) it[s].reset(db_[s]->NewIterator(rdb::ReadOptions()));
    for (int step = 0; step < 400; ++step) {
      const unsigned pick = it[kSkip]->Valid() ? rng() % 10 : 6 + rng() % 4;
      std::string target = Key(static_cast<int>(rng() % (kKeys + 2)));
      if (rng() % 3 == 0) target += "~";
      for (int s : {kSkip, kRep}) {
        rdb::Iterator* i = it[s].get();
        if (pick < 3) {
          i->Next();
        } else if (pick < 6) {
          i->Prev();
        } else if (pick == 6) {
          i->Seek(target);
        } else if (pick == 7) {
          i->SeekForPrev(target);
        } else {
          pick == 8 ? i->SeekToFirst() : i->SeekToLast();
        }
      }
      const std::string at = what + ", walk step " + std::to_string(step) + " (op " +
                             std::to_string(pick) + ", " + target + ")";
      ASSERT_EQ(it[kSkip]->status().ToString(), it[kRep]->status().ToString()) << at;
      ASSERT_TRUE(it[kSkip]->status().ok()) << at;
      ASSERT_EQ(it[kSkip]->Valid(), it[kRep]->Valid()) << at;
      if (!it[kSkip]->Valid()) continue;
      ASSERT_EQ(it[kSkip]->key().ToString(), it[kRep]->key().ToString()) << at;
      ASSERT_EQ(it[kSkip]->value().ToString(), it[kRep]->value().ToString()) << at;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllReps, ChecksDiff, ::testing::ValuesIn(AllReps(true)), SpecName);

// ---------------------------------------------------------------------------
// 2. A corrupted row is Corruption wherever the skip list says so.

class Corruption : public ChecksFixture {
 protected:
  static constexpr int kKeys = 100;
  static constexpr int kVictim = 50;  // keys are Key(2 * i): Key(100) is the one changed

  void Fill() {
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_NO_FATAL_FAILURE(Both([&](rdb::DB* db) {
        return db->Put(rdb::WriteOptions(), Key(2 * i), "value-" + std::to_string(i));
      }));
    }
  }

  // Where database s keeps the victim's row: its internal key, its value
  // and the row's end (the checksum is the last 8 bytes, if any).
  struct Row {
    char* internal_key = nullptr;
    size_t internal_key_size = 0;
    char* value = nullptr;
    size_t value_size = 0;
    char* end = nullptr;
  };
  Row Victim(int s) {
    const std::string want = Key(2 * kVictim);
    memrep::testing::RowLog& log = factory_[s]->log();
    std::lock_guard<std::mutex> lock(log.mu);
    for (const auto& [buf, len] : log.rows) {
      const rdb::Slice ik = rdb::GetLengthPrefixedSlice(buf);
      if (ik.size() < 8 || rdb::Slice(ik.data(), ik.size() - 8) != want) continue;
      const rdb::Slice value = rdb::GetLengthPrefixedSlice(ik.data() + ik.size());
      return {const_cast<char*>(ik.data()), ik.size(), const_cast<char*>(value.data()),
              value.size(), buf + len};
    }
    ADD_FAILURE() << kSide[s] << ": no row of " << want << " was allocated";
    return {};
  }

  // Whether the rep's point reads are hash probes of the key.
  static bool HashProbes() {
    const memrep::registry::Registration* r = memrep::registry::Find(GetParam());
    return r != nullptr && r->traits.point_read_while_mutable == memrep::RepTraits::Cost::kConstant;
  }

  // Which of the known gaps (above) a change opens.
  enum class Gap {
    kNone,
    kHashProbesMiss,  // the key's bytes changed: a hash probe misses the row
    kPointReadsMiss,  // the key moved out of order: a point read misses it
  };

  // Changes the victim's row in both databases with `change`, then reads:
  // every read the skip list answers with Corruption must be Corruption on
  // the rep, but for `gap`. Returns how many reads the skip list found
  // corrupt.
  int ChangeAndRead(const std::string& what, Gap gap,
                    const std::function<void(const Row&)>& change) {
    // Reads first, so that a rep's lazily built state (sorted runs, a sorted
    // vector) exists before the row changes, as in a long-lived memtable.
    for (int s : {kSkip, kRep}) {
      EXPECT_TRUE(Scan(s, false).status.ok()) << what << ": " << kSide[s] << " before";
    }
    for (int s : {kSkip, kRep}) {
      const Row row = Victim(s);
      if (row.internal_key == nullptr) return 0;
      change(row);
    }
    const std::string victim = Key(2 * kVictim), before = Key(2 * kVictim - 2);
    const std::vector<std::string> around = {before, victim, Key(2 * kVictim + 2)};
    struct Read {
      std::string name;
      std::function<Answer(int)> run;
      bool point = false;  // a point read of the victim
    } reads[] = {
      {"Get(victim)", [&](int s) { return Get(s, victim); }, true},
#if MEMREP_ROCKSDB_HAS_VALIDATION
      // Before 9.6 a MultiGet that meets a corrupted memtable row leaves the
      // key unfinished, and RocksDB's own assertion stops the process
      // (Version::MultiGet: "iter->s->ok() || iter->s->IsMergeInProgress()",
      // Debian's 7.8.3 has its assertions on), with the skip list too.
      {"MultiGet(around the victim)", [&](int s) { return MultiGet(s, around); }, true},
#endif
      {"forward scan", [&](int s) { return Scan(s, false); }},
      {"backward scan", [&](int s) { return Scan(s, true); }},
      {"Seek(victim) and on", [&](int s) { return Scan(s, false, &victim); }},
      {"Seek(before the victim) and on", [&](int s) { return Scan(s, false, &before); }},
      {"SeekForPrev(victim) and back", [&](int s) { return Scan(s, true, &victim); }},
    };
    int corrupt = 0;
    for (const Read& read : reads) {
      const Answer skip = read.run(kSkip), rep = read.run(kRep);
      if (!skip.status.IsCorruption()) continue;
      ++corrupt;
      if ((gap == Gap::kHashProbesMiss && read.point && HashProbes() &&
           !MEMREP_ROCKSDB_HAS_KEY_VALIDATION) ||
          (gap == Gap::kPointReadsMiss && read.point)) {
        // A miss, never the victim's value.
        const std::string value = "=value-" + std::to_string(kVictim) + ";";
        EXPECT_TRUE(rep.status.IsCorruption() ||
                    (read.name.rfind("Get", 0) == 0 ? rep.found.empty()
                                                    : rep.found.find(value) == std::string::npos))
            << what << ", " << read.name << ": the rep " << rep.ToString();
        continue;
      }
      EXPECT_TRUE(rep.status.IsCorruption())
          << what << ", " << read.name << ": the skip list says " << skip.status.ToString()
          << ", the rep " << rep.ToString();
    }
    return corrupt;
  }
};

TEST_P(Corruption, AFlippedByteOfAKeyValueOrChecksumIsCorruption) {
  const struct {
    const char* what;
    Gap gap;
    std::function<void(const Row&)> change;
  } cases[] = {
      // The user key's last digit, even to odd: the key keeps its place in
      // the order, and only its checksum tells.
      {"a flipped key byte", Gap::kHashProbesMiss,
       [](const Row& r) { r.internal_key[r.internal_key_size - 9] ^= 1; }},
      {"a flipped value byte", Gap::kNone, [](const Row& r) { r.value[r.value_size / 2] ^= 0x20; }},
      {"a flipped checksum byte", Gap::kNone, [](const Row& r) { r.end[-1] ^= 0x01; }},
  };
  for (const auto& c : cases) {
    ASSERT_NO_FATAL_FAILURE(Open(/*checksums=*/true));
    ASSERT_NO_FATAL_FAILURE(Fill());
    EXPECT_GT(ChangeAndRead(c.what, c.gap, c.change), 0)
        << c.what << ": the skip list found nothing corrupt";
  }
}

#if MEMREP_ROCKSDB_HAS_VALIDATION
TEST_P(Corruption, AKeyOutOfOrderIsCorruption) {
  // No checksums: only the order checks of paranoid_memory_checks can tell.
  // The victim's "k" becomes "K", which sorts before every other key.
  ASSERT_NO_FATAL_FAILURE(Open(/*checksums=*/false));
  ASSERT_NO_FATAL_FAILURE(Fill());
  EXPECT_GT(ChangeAndRead("a key out of order", Gap::kPointReadsMiss,
                          [](const Row& r) { r.internal_key[0] ^= 0x20; }),
            0)
      << "the skip list found nothing out of order";
}
#endif

INSTANTIATE_TEST_SUITE_P(AllReps, Corruption, ::testing::ValuesIn(AllReps(false)), SpecName);

}  // namespace
