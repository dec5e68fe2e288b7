// The columnar_memtable peer (peers/columnar_memtable.cc): the rep through
// memrep::MemTable against a std::map model of what a single-version table
// holds, from one and from several threads; its refusals (rows, comparators,
// oversized records); and how memrep_bench treats a standalone peer: listed
// as not memrep's, run through the standalone face, skipped at the rep level
// and where its checks need several versions of a key.
#include <gtest/gtest.h>
#include <rocksdb/options.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "flags.h"
#include "memrep/comparator.h"
#include "memrep/memtable.h"
#include "memrep/registry.h"
#include "memrep/rocksdb.h"
#include "peers/peers.h"
#include "report.h"
#include "reps.h"
#include "workloads.h"

namespace memrep::bench {
namespace {

constexpr const char* kRep = "columnar_memtable";

std::unique_ptr<MemTable> Open(const std::string& rep = kRep) {
  MemTableOptions options;
  options.rep = rep;
  std::unique_ptr<MemTable> table;
  Status s = MemTable::Open(options, &table);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return table;
}

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

struct Record {
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

// Every record in order, with MemTableIterator's SeekToFirst/Next.
std::vector<std::pair<std::string, Record>> Scan(const MemTable& table) {
  std::unique_ptr<MemTableIterator> it;
  EXPECT_TRUE(table.NewIterator(&it).ok());
  std::vector<std::pair<std::string, Record>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const EntryView e = it->entry();
    out.emplace_back(std::string(e.user_key),
                     Record{e.sequence(), static_cast<ValueType>(e.type()), std::string(e.value)});
  }
  EXPECT_TRUE(it->status().ok());
  return out;
}

void ExpectMatches(const MemTable& table, const std::map<std::string, Record>& model) {
  const auto scanned = Scan(table);
  ASSERT_EQ(scanned.size(), model.size());
  auto m = model.begin();
  for (const auto& [key, record] : scanned) {
    EXPECT_EQ(key, m->first);
    EXPECT_EQ(record.seq, m->second.seq) << key;
    EXPECT_EQ(record.type, m->second.type) << key;
    EXPECT_EQ(record.value, m->second.value) << key;
    ++m;
  }
  for (const auto& [key, record] : model) {
    std::string value;
    Status s = table.Get(key, kMaxSequenceNumber, &value);
    if (record.type == ValueType::kValue) {
      ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
      EXPECT_EQ(value, record.value) << key;
    } else {
      EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
    }
  }
}

TEST(ColumnarMemtablePeer, IsRegisteredAsAStandalonePeer) {
  RepInfo info;
  ASSERT_TRUE(DescribeRep(kRep, &info).ok());
  EXPECT_EQ(info.name, "peer.ColumnarMemtable");
  EXPECT_TRUE(info.traits.concurrent_insert);
  EXPECT_EQ(info.traits.duplicates, RepTraits::Duplicates::kNone);
  const StandalonePeer* peer = FindStandalonePeer(info.name);
  ASSERT_NE(peer, nullptr);
  EXPECT_TRUE(peer->single_version);

  // No RocksDB face.
  RepSpec spec;
  ASSERT_TRUE(RepSpec::Parse(kRep, &spec).ok());
  Status s = spec.CheckRowsFace();
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.message().find("no RocksDB face"), std::string::npos) << s.message();

  // The RocksDB plugin's factory of it (the registry gives it one) refuses
  // any column family, saying why.
  std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> plugin_factory;
  ASSERT_TRUE(rocksdb_plugin::NewRepFactory(kRep, &plugin_factory).ok());
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf_options;
  const ROCKSDB_NAMESPACE::Status rs =
      plugin_factory->ValidateOptions(ROCKSDB_NAMESPACE::DBOptions(), cf_options);
  EXPECT_TRUE(rs.IsNotSupported()) << rs.ToString();
  EXPECT_NE(rs.ToString().find("no RocksDB face"), std::string::npos) << rs.ToString();

  // memrep_bench's catalogue: known, not memrep's, in --list_reps as such.
  const std::vector<KnownRep> known = KnownReps();
  const KnownRep* rep = nullptr;
  for (const KnownRep& k : known) {
    if (k.name == kRep) rep = &k;
  }
  ASSERT_NE(rep, nullptr);
  EXPECT_FALSE(rep->memrep);
  EXPECT_TRUE(rep->standalone_peer);
  EXPECT_TRUE(rep->single_version);
  EXPECT_EQ(rep->canonical_name, "peer.ColumnarMemtable");
  const std::string json = RepListJson(known);
  const size_t at = json.find("\"name\": \"columnar_memtable\"");
  ASSERT_NE(at, std::string::npos) << json;
  const std::string line = json.substr(at, json.find('\n', at) - at);
  EXPECT_NE(line.find("\"memrep\": false"), std::string::npos) << line;
  for (const std::string& name : DefaultReps()) EXPECT_NE(name, kRep);

  // Its factory: no RocksDB rep; an options string runs under its bench name.
  std::unique_ptr<RepFactory> factory;
  ASSERT_TRUE(RepFactory::Make(kRep, RepConfig(), 1 << 20, &factory).ok());
  EXPECT_TRUE(factory->standalone_peer());
  EXPECT_TRUE(factory->single_version());
  EXPECT_FALSE(factory->memrep());
  std::unique_ptr<BenchRep> bench_rep;
  EXPECT_TRUE(factory->NewRep(&bench_rep).IsInvalidArgument());
  RepChoice choice;
  ASSERT_TRUE(ResolveRep("id=peer.ColumnarMemtable;shards=4", &choice).ok());
  EXPECT_EQ(choice.name, kRep);
  ASSERT_TRUE(
      RepFactory::Make("id=peer.ColumnarMemtable;shards=4", RepConfig(), 1 << 20, &factory).ok());
  EXPECT_NE(factory->description().find("shards=4"), std::string::npos) << factory->description();
  EXPECT_TRUE(RepFactory::Make("id=peer.ColumnarMemtable;shards=0", RepConfig(), 1 << 20, &factory)
                  .IsInvalidArgument());
}

TEST(ColumnarMemtablePeer, RefusesWhatItCannotServe) {
  MemTableOptions options;
  options.rep = kRep;
  options.comparator = ReverseBytewiseComparator();
  std::unique_ptr<MemTable> table;
  Status s = MemTable::Open(options, &table);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bytewise"), std::string::npos) << s.ToString();

  table = Open();
  // A record over the seed's 32 KiB arena chunk: refused, and a batch stops there.
  const std::string big(40000, 'x');
  s = table->Put("big", big, 1);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  const std::vector<EntryView> batch = {
      EntryView::Of("a", 2, ValueType::kValue, "1"),
      EntryView::Of("b", 3, ValueType::kValue, big),
      EntryView::Of("c", 4, ValueType::kValue, "3"),
  };
  s = table->Write(batch);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("batch record 1"), std::string::npos) << s.ToString();
  std::string value;
  EXPECT_TRUE(table->Get("a", kMaxSequenceNumber, &value).ok());
  EXPECT_TRUE(table->Get("b", kMaxSequenceNumber, &value).IsNotFound());
  EXPECT_TRUE(table->Get("c", kMaxSequenceNumber, &value).IsNotFound());
  EXPECT_TRUE(table->Get("big", kMaxSequenceNumber, &value).IsNotFound());
}

// One version per key: the last write wins; sequences and types come back.
TEST(ColumnarMemtablePeer, SingleVersionWithSequencesAndTypes) {
  auto table = Open();
  ASSERT_TRUE(table->Put("apple", "red", 10).ok());
  std::string value;
  ASSERT_TRUE(table->Get("apple", 10, &value).ok());
  EXPECT_EQ(value, "red");
  EXPECT_TRUE(table->Get("apple", 9, &value).IsNotFound()) << "newer than the snapshot";
  ASSERT_TRUE(table->Put("apple", "green", 20).ok());
  ASSERT_TRUE(table->Get("apple", kMaxSequenceNumber, &value).ok());
  EXPECT_EQ(value, "green");
  EXPECT_TRUE(table->Get("apple", 15, &value).IsNotFound()) << "the old version is gone";
  ASSERT_TRUE(table->Delete("apple", 30).ok());
  Status s = table->Get("apple", kMaxSequenceNumber, &value);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find("deleted at sequence 30"), std::string::npos) << s.ToString();
  ASSERT_TRUE(table->Add("pear", 40, ValueType::kMerge, "+1").ok());
  EXPECT_TRUE(table->Get("pear", kMaxSequenceNumber, &value).IsInvalidArgument());

  const auto scanned = Scan(*table);
  ASSERT_EQ(scanned.size(), 2u);
  EXPECT_EQ(scanned[0].first, "apple");
  EXPECT_EQ(scanned[0].second.seq, 30u);
  EXPECT_EQ(scanned[0].second.type, ValueType::kDeletion);
  EXPECT_EQ(scanned[1].first, "pear");
  EXPECT_EQ(scanned[1].second.type, ValueType::kMerge);
  EXPECT_EQ(scanned[1].second.value, "+1");
  EXPECT_EQ(table->NumEntries(), 4u) << "entries written";
}

// Puts, batches, overwrites and deletions against a model; Get, MultiGet and
// every iterator call; an iterator positioned again sees later writes.
TEST(ColumnarMemtablePeer, MatchesAModel) {
  // Small active blocks, so that records go through sealing and sorting.
  auto table = Open("id=peer.ColumnarMemtable; active_block_bytes=4K; shards=4");
  std::map<std::string, Record> model;
  SequenceNumber seq = 0;
  for (uint64_t i = 0; i < 3000; ++i) {
    const std::string key = Key((i * 7919) % 2000);
    const std::string value = "v" + std::to_string(i);
    ++seq;
    if (i % 11 == 5) {
      ASSERT_TRUE(table->Delete(key, seq).ok());
      model[key] = Record{seq, ValueType::kDeletion, ""};
    } else {
      ASSERT_TRUE(table->Put(key, value, seq).ok());
      model[key] = Record{seq, ValueType::kValue, value};
    }
  }
  std::vector<std::string> batch_keys, batch_values;
  std::vector<EntryView> batch;
  for (uint64_t i = 0; i < 500; ++i) {
    batch_keys.push_back(Key(1500 + i * 3));
    batch_values.push_back("b" + std::to_string(i));
  }
  for (uint64_t i = 0; i < 500; ++i) {
    ++seq;
    batch.push_back(EntryView::Of(batch_keys[i], seq, ValueType::kValue, batch_values[i]));
    model[batch_keys[i]] = Record{seq, ValueType::kValue, batch_values[i]};
  }
  ASSERT_TRUE(table->Write(batch).ok());
  ExpectMatches(*table, model);

  // MultiGet agrees with Get, present and absent keys alike.
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 3000; i += 7) keys.push_back(Key(i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<Status> statuses;
  ASSERT_TRUE(table->MultiGet(views, kMaxSequenceNumber, &values, &statuses).ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string value;
    Status s = table->Get(keys[i], kMaxSequenceNumber, &value);
    EXPECT_EQ(statuses[i].code(), s.code()) << keys[i];
    if (s.ok()) {
      EXPECT_EQ(values[i], value) << keys[i];
    }
  }

  // Seek, SeekForPrev, SeekToLast, Prev, and direction changes.
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(table->NewIterator(&it).ok());
  for (uint64_t probe = 0; probe < 3200; probe += 37) {
    const std::string target = Key(probe) + (probe % 2 ? "x" : "");
    it->Seek(target);
    auto next = model.lower_bound(target);
    if (next == model.end()) {
      EXPECT_FALSE(it->Valid()) << target;
    } else {
      ASSERT_TRUE(it->Valid()) << target;
      EXPECT_EQ(it->entry().user_key, next->first);
      EXPECT_EQ(it->entry().sequence(), next->second.seq);
      it->Next();
      auto after = std::next(next);
      if (after == model.end()) {
        EXPECT_FALSE(it->Valid());
      } else {
        ASSERT_TRUE(it->Valid());
        EXPECT_EQ(it->entry().user_key, after->first);
        it->Prev();
        ASSERT_TRUE(it->Valid());
        EXPECT_EQ(it->entry().user_key, next->first);
      }
    }
    it->SeekForPrev(target, 0);
    auto prev = model.upper_bound(target);
    if (prev == model.begin()) {
      EXPECT_FALSE(it->Valid()) << target;
    } else {
      --prev;
      ASSERT_TRUE(it->Valid()) << target;
      EXPECT_EQ(it->entry().user_key, prev->first);
    }
  }
  // Seek at a snapshot below a key's version lands on the next key.
  const auto first = model.begin();
  it->Seek(first->first, first->second.seq - 1);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, std::next(first)->first);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, model.rbegin()->first);
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, std::next(model.rbegin())->first);
  // A forward scan, then Prev from the middle of it.
  it->SeekToFirst();
  for (int i = 0; i < 10; ++i) it->Next();
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, std::next(model.begin(), 9)->first);

  // Positioned again, the same iterator sees writes made since.
  ASSERT_TRUE(table->Put("zzz", "last", ++seq).ok());
  ASSERT_TRUE(table->Put("aaa", "first", ++seq).ok());
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, "zzz");
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().user_key, "aaa");
  it->Seek("aaa");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->entry().value, "first");
  it.reset();

  ASSERT_TRUE(table->Freeze().ok());
  EXPECT_TRUE(table->Put("late", "x", ++seq).IsFrozen());
  model["zzz"] = Record{seq - 2, ValueType::kValue, "last"};
  model["aaa"] = Record{seq - 1, ValueType::kValue, "first"};
  ExpectMatches(*table, model);
  EXPECT_GT(table->MemoryUsage(), 0u);
}

// Concurrent Puts and batches from several threads, then every key once.
TEST(ColumnarMemtablePeer, ConcurrentWriters) {
  auto table = Open("id=peer.ColumnarMemtable; active_block_bytes=16K");
  constexpr uint64_t kThreads = 4, kPerThread = 5000;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> keys, values;
      for (uint64_t i = 0; i < kPerThread; ++i) {
        const uint64_t n = i * kThreads + t;
        if (i % 2 == 0) {
          ASSERT_TRUE(table->Put(Key(n), "v" + std::to_string(n), n + 1).ok());
        } else {
          keys.push_back(Key(n));
          values.push_back("v" + std::to_string(n));
        }
      }
      std::vector<EntryView> batch;
      for (size_t i = 0; i < keys.size(); ++i) {
        const uint64_t n = (2 * i + 1) * kThreads + t;
        batch.push_back(EntryView::Of(keys[i], n + 1, ValueType::kValue, values[i]));
        if (batch.size() == 64 || i + 1 == keys.size()) {
          ASSERT_TRUE(table->Write(batch).ok());
          batch.clear();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const auto scanned = Scan(*table);
  ASSERT_EQ(scanned.size(), kThreads * kPerThread);
  for (uint64_t n = 0; n < scanned.size(); ++n) {
    EXPECT_EQ(scanned[n].first, Key(n));
    EXPECT_EQ(scanned[n].second.seq, n + 1);
    EXPECT_EQ(scanned[n].second.value, "v" + std::to_string(n));
  }
  EXPECT_EQ(table->NumEntries(), kThreads * kPerThread);
}

Flags TinyFlags(BenchFace face) {
  Flags f;
  f.num_operations = 3000;
  f.num_threads = 2;
  f.item_size = 20;
  f.num_scans = 5;
  f.repeats = 1;
  f.progress = false;
  f.face = face;
  return f;
}

// Every workload through the standalone face passes, or is skipped for the
// versions it would need; at the rep level every one is skipped.
TEST(ColumnarMemtablePeer, BenchRunsItThroughTheStandaloneFace) {
  for (const BenchFace face : {BenchFace::kStandalone, BenchFace::kRep, BenchFace::kTrieTable}) {
    const Flags flags = TinyFlags(face);
    const KeyCodec keys(flags.key_size, flags.shared_prefix);
    const ValuePool values(flags.item_size, flags.seed);
    for (const WorkloadInfo& workload : KnownWorkloads()) {
      const KeyPlan plan = MakeKeyPlan(workload, flags);
      WorkloadInput input = WorkloadInput::Of(flags, keys, values, plan);
      std::unique_ptr<RepFactory> factory;
      ASSERT_TRUE(
          RepFactory::Make(kRep, RepConfigOf(flags), ExpectedArenaBytes(workload, flags), &factory)
              .ok());
      const Measurement m = RunWorkload(workload, *factory, input);
      const std::string what = workload.name + " face " + std::to_string(static_cast<int>(face));
      ASSERT_TRUE(m.ok) << what << ": " << m.error;
      if (face != BenchFace::kStandalone) {
        EXPECT_TRUE(m.skipped) << what;
        EXPECT_NE(m.note.find("no RocksDB face"), std::string::npos) << what << ": " << m.note;
        continue;
      }
      // mix8020 runs: its scan afterwards expects the newest version alone.
      const bool versions = workload.name == "overwrite" ||
                            (workload.kind == WorkloadKind::kMixed && workload.name != "mix8020");
      EXPECT_EQ(m.skipped, versions) << what << ": " << m.note;
      if (versions) {
        EXPECT_NE(m.note.find("single version"), std::string::npos) << what << ": " << m.note;
        continue;
      }
      EXPECT_EQ(m.face, BenchFace::kStandalone) << what;
      EXPECT_GT(m.ops, 0u) << what;
      EXPECT_GT(m.entries, 0u) << what;
    }
  }
}

}  // namespace
}  // namespace memrep::bench
