// A trie memtable frozen into a table file (convert_to_sst=kFileMmap: the
// file-backed region itself; kDumpMem: a memory region written out) and read
// back with TrieTable: every record reads as the memtable read it, through
// Get at several snapshots and iterators in both directions and both orders;
// the file ends with its footer; files that are not whole tables are refused
// with a reason; freezing costs the same for a large trie as for a small one.
#include "memrep/trie_table.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "memory/arena.h"
#include "memory/vm_region.h"
#include "memrep/memtable.h"
#include "memrep/trie.h"
#include "test_util.h"
#include "trie/trie.h"
#include "trie/trie_file.h"

namespace memrep {
namespace {

// A file in the test's temporary directory, unique to this process (the
// test shards run at once), removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_(::testing::TempDir() + "/trie_table_" + std::to_string(::getpid()) + "_" + name) {
    ::unlink(path_.c_str());
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

trie::TableFooter FooterOf(const std::string& bytes) {
  trie::TableFooter f{};
  if (bytes.size() >= sizeof(f))
    std::memcpy(&f, bytes.data() + bytes.size() - sizeof(f), sizeof(f));
  return f;
}

std::string TrieSpec(const std::string& convert, const std::string& file, bool sync = false,
                     const std::string& mem_cap = "64M") {
  return "id=memrep.Trie; mem_cap=" + mem_cap + "; convert_to_sst=" + convert + "; file=" + file +
         "; sync_sst_file=" + (sync ? "true" : "false");
}

std::unique_ptr<MemTable> OpenMemTable(const std::string& spec, bool reverse) {
  MemTableOptions o;
  o.rep = spec;
  o.write_buffer_size = uint64_t{16} << 20;  // within 3/4 of the specs' 64M mem_cap
  o.comparator = reverse ? ReverseBytewiseComparator() : nullptr;
  std::unique_ptr<MemTable> t;
  Status s = MemTable::Open(o, &t);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return t;
}

struct Record {
  std::string key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
  bool operator==(const Record&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Record& r) {
  return os << "'" << r.key << "'@" << r.seq << " type " << int(r.type) << " '" << r.value << "'";
}

Record RecordOf(const EntryView& e) {
  return Record{std::string(e.user_key), e.sequence(), static_cast<ValueType>(e.type()),
                std::string(e.value)};
}

// Keys that are prefixes of one another, share long prefixes, or are short:
// the trie's node values, leaf-held prefixes and every node kind.
std::vector<std::string> KeyPool(std::mt19937_64& rng, size_t n) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; ++i) {
    std::string k;
    switch (rng() % 4) {
      case 0:
        k = std::string(100, 'p');
        break;
      case 1:
        k = "user/" + std::to_string(rng() % 1000) + "/";
        break;
      default:
        break;
    }
    const size_t len = rng() % 9;
    for (size_t j = 0; j < len; ++j) k.push_back(static_cast<char>("ab\x00\xff"[rng() % 4]));
    keys.push_back(k);
  }
  return keys;
}

// A few thousand records over the pool: several versions of most keys,
// deletions and merge operands among them. Sequences are 1, 2, ...
struct Workload {
  std::vector<std::string> keys;
  std::vector<Record> records;
  SequenceNumber last_seq = 0;

  explicit Workload(uint64_t seed, size_t n = 4000) {
    std::mt19937_64 rng(seed);
    keys = KeyPool(rng, 700);
    for (size_t i = 0; i < n; ++i) {
      Record r;
      r.key = keys[rng() % keys.size()];
      r.seq = ++last_seq;
      const uint64_t kind = rng() % 10;
      r.type = kind < 7 ? ValueType::kValue : kind < 9 ? ValueType::kDeletion : ValueType::kMerge;
      if (r.type != ValueType::kDeletion)
        r.value = "v" + std::to_string(i) + std::string(i % 23, 'x');
      records.push_back(r);
    }
  }

  void WriteTo(MemTable* t) const {
    for (const Record& r : records) {
      const Status s = t->Add(r.key, r.seq, r.type, r.value);
      ASSERT_TRUE(s.ok()) << s.ToString() << " " << r;
    }
  }

  // The newest record of `key` with sequence <= snapshot, if any.
  const Record* Visible(const std::string& key, SequenceNumber snapshot) const {
    if (by_key.empty()) {
      for (const Record& r : records) by_key[r.key].push_back(&r);  // sequence ascending
    }
    const auto it = by_key.find(key);
    if (it == by_key.end()) return nullptr;
    const Record* best = nullptr;
    for (const Record* r : it->second) {
      if (r->seq <= snapshot) best = r;
    }
    return best;
  }
  mutable std::map<std::string, std::vector<const Record*>> by_key;
};

std::vector<Record> Forward(MemTableIterator* it) {
  std::vector<Record> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.push_back(RecordOf(it->entry()));
  EXPECT_TRUE(it->status().ok());
  return out;
}

std::vector<Record> Backward(MemTableIterator* it) {
  std::vector<Record> out;
  for (it->SeekToLast(); it->Valid(); it->Prev()) out.push_back(RecordOf(it->entry()));
  return out;
}

// Every read of the table gives what the memtable gives (and the model).
void ExpectSameContents(const MemTable& mem, const TrieTable& table, const Workload& w) {
  EXPECT_EQ(table.NumEntries(), mem.NumEntries());
  EXPECT_EQ(table.NumEntries(), w.records.size());
  const Status verified = table.Verify();
  EXPECT_TRUE(verified.ok()) << verified.ToString();

  std::unique_ptr<MemTableIterator> mi, ti;
  ASSERT_TRUE(mem.NewIterator(&mi).ok());
  ASSERT_TRUE(table.NewIterator(&ti).ok());
  const std::vector<Record> forward = Forward(mi.get());
  ASSERT_EQ(forward.size(), w.records.size());
  EXPECT_EQ(Forward(ti.get()), forward);
  std::vector<Record> backward = Backward(ti.get());
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(backward, forward);

  // Get: every key (and some never written) at several snapshots.
  std::vector<std::string> probes = w.keys;
  probes.insert(probes.end(), {"", "never", std::string(100, 'p') + "zzz", "user/"});
  for (const SequenceNumber snap :
       {SequenceNumber{0}, SequenceNumber{1}, w.last_seq / 3, w.last_seq / 2, w.last_seq - 1,
        w.last_seq, kMaxSequenceNumber, ~SequenceNumber{0}}) {
    for (const std::string& key : probes) {
      std::string value = "stale", mem_value;
      ValueType type = ValueType::kForSeek;
      const Status s = table.Get(key, snap, &value, &type);
      const Record* want = w.Visible(key, std::min(snap, kMaxSequenceNumber));
      const Status ms = mem.Get(key, snap, &mem_value);
      if (want == nullptr) {
        EXPECT_TRUE(s.IsNotFound()) << s.ToString() << " key '" << key << "' @" << snap;
        EXPECT_TRUE(ms.IsNotFound());
        continue;
      }
      ASSERT_TRUE(s.ok()) << s.ToString() << " key '" << key << "' @" << snap;
      EXPECT_EQ(type, want->type) << key << " @" << snap;
      EXPECT_EQ(value, want->value) << key << " @" << snap;
      if (want->type == ValueType::kValue) {
        EXPECT_TRUE(ms.ok());
        EXPECT_EQ(mem_value, value);
      } else if (want->type == ValueType::kDeletion) {
        EXPECT_TRUE(ms.IsNotFound());
      }
    }
  }

  // Seek and SeekForPrev, then a few steps either way, as the memtable.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) {
    const std::string key =
        i % 3 == 0 ? std::string(1, static_cast<char>(rng())) : probes[rng() % probes.size()];
    const SequenceNumber snap = rng() % (w.last_seq + 2);
    const bool backward_seek = i % 2 == 1;
    if (backward_seek) {
      mi->SeekForPrev(key, snap);
      ti->SeekForPrev(key, snap);
    } else {
      mi->Seek(key, snap);
      ti->Seek(key, snap);
    }
    for (int step = 0; step < 6; ++step) {
      ASSERT_EQ(ti->Valid(), mi->Valid()) << "'" << key << "' @" << snap << " step " << step;
      if (!mi->Valid()) break;
      ASSERT_EQ(RecordOf(ti->entry()), RecordOf(mi->entry()))
          << "'" << key << "' @" << snap << " step " << step;
      if ((step + i) % 3 == 0) {
        mi->Prev();
        ti->Prev();
      } else {
        mi->Next();
        ti->Next();
      }
    }
  }
}

struct Case {
  bool reverse;
  bool dump;  // kDumpMem, else kFileMmap
};

class TrieTableContents : public ::testing::TestWithParam<Case> {};

TEST_P(TrieTableContents, ReadsBackEveryRecordAsTheMemTableDid) {
  const Case c = GetParam();
  TempFile file("contents");
  const std::string convert = c.dump ? "kDumpMem" : "kFileMmap";
  auto mem = OpenMemTable(TrieSpec(convert, file.path()), c.reverse);
  ASSERT_NE(mem, nullptr);
  const Workload w(c.reverse * 2 + c.dump + 1);
  w.WriteTo(mem.get());
  const Status frozen = mem->Freeze();
  ASSERT_TRUE(frozen.ok()) << frozen.ToString();

  // The file ends with its footer, which says where the trie ends and how
  // many records it holds.
  const std::string bytes = ReadFile(file.path());
  const trie::TableFooter footer = FooterOf(bytes);
  EXPECT_EQ(footer.magic, trie::TableFooter::kMagic);
  EXPECT_EQ(footer.trie_bytes + sizeof(footer), bytes.size());
  EXPECT_EQ(footer.entries, w.records.size());
  EXPECT_EQ(footer.comparator, c.reverse ? 1u : 0u);

  std::unique_ptr<TrieTable> table;
  const Status opened = TrieTable::Open(file.path(), &table);
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  EXPECT_EQ(table->reverse(), c.reverse);
  EXPECT_EQ(table->FileBytes(), bytes.size());
  ExpectSameContents(*mem, *table, w);

  // A second Freeze makes no second footer.
  EXPECT_TRUE(mem->Freeze().ok());
  EXPECT_EQ(FileSize(file.path()), bytes.size());
  // The table outlives its memtable (kFileMmap: the file stays).
  mem.reset();
  std::unique_ptr<MemTableIterator> it;
  ASSERT_TRUE(table->NewIterator(&it).ok());
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  EXPECT_EQ(n, w.records.size());
}

INSTANTIATE_TEST_SUITE_P(Both, TrieTableContents,
                         ::testing::Values(Case{false, false}, Case{true, false}, Case{false, true},
                                           Case{true, true}),
                         [](const auto& info) {
                           return std::string(info.param.dump ? "DumpMem" : "FileMmap") +
                                  (info.param.reverse ? "Reverse" : "Bytewise");
                         });

TEST(TrieTable, BothConversionsGiveTheSameRecords) {
  TempFile mapped("same_mapped"), dumped("same_dumped");
  const Workload w(11);
  for (const auto& [convert, path] :
       {std::pair<std::string, std::string>{"kFileMmap", mapped.path()},
        std::pair<std::string, std::string>{"kDumpMem", dumped.path()}}) {
    auto mem = OpenMemTable(TrieSpec(convert, path, /*sync=*/true), false);
    ASSERT_NE(mem, nullptr);
    w.WriteTo(mem.get());
    ASSERT_TRUE(mem->Freeze().ok());
  }
  std::unique_ptr<TrieTable> a, b;
  ASSERT_TRUE(TrieTable::Open(mapped.path(), &a).ok());
  ASSERT_TRUE(TrieTable::Open(dumped.path(), &b).ok());
  std::unique_ptr<MemTableIterator> ia, ib;
  ASSERT_TRUE(a->NewIterator(&ia).ok());
  ASSERT_TRUE(b->NewIterator(&ib).ok());
  EXPECT_EQ(Forward(ia.get()), Forward(ib.get()));
  EXPECT_EQ(a->NumEntries(), b->NumEntries());
}

TEST(TrieTable, MemoryUsageDoesNotGrowWhenFreezeAddsTheFooter) {
  TempFile mapped("usage_mapped");
  auto mem = OpenMemTable(TrieSpec("kFileMmap", mapped.path()), false);
  ASSERT_NE(mem, nullptr);
  Workload(5).WriteTo(mem.get());
  const size_t before = mem->MemoryUsage();
  ASSERT_TRUE(mem->Freeze().ok());
  EXPECT_EQ(mem->MemoryUsage(), before);
  std::unique_ptr<TrieTable> table;
  ASSERT_TRUE(TrieTable::Open(mapped.path(), &table).ok());  // the footer is there
}

// A small, good table's bytes, and a place to write variants of them.
class TrieTableRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    auto mem = OpenMemTable(TrieSpec("kFileMmap", good_.path()), false);
    ASSERT_NE(mem, nullptr);
    Workload(3, 500).WriteTo(mem.get());
    ASSERT_TRUE(mem->Freeze().ok());
    bytes_ = ReadFile(good_.path());
    ASSERT_GT(bytes_.size(), 2000u);
  }

  // Opens `bytes` written as a file: the status.
  Status OpenBytes(const std::string& bytes) {
    WriteFile(bad_.path(), bytes);
    std::unique_ptr<TrieTable> table;
    return TrieTable::Open(bad_.path(), &table);
  }

  void ExpectCorruption(const std::string& bytes, const std::string& words,
                        const std::string& what) {
    const Status s = OpenBytes(bytes);
    EXPECT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
    EXPECT_NE(s.message().find(words), std::string::npos) << what << ": " << s.ToString();
    EXPECT_NE(s.message().find(bad_.path()), std::string::npos) << what << ": " << s.ToString();
  }

  TempFile good_{"refusal_good"}, bad_{"refusal_bad"};
  std::string bytes_;
};

TEST_F(TrieTableRefusal, ATruncatedFile) {
  ExpectCorruption(bytes_.substr(0, bytes_.size() - 1), "no table footer", "one byte short");
  ExpectCorruption(bytes_.substr(0, bytes_.size() - 64), "no table footer", "no footer");
  ExpectCorruption(bytes_.substr(0, bytes_.size() / 2), "no table footer", "half");
  ExpectCorruption(bytes_.substr(0, 100), "too short", "100 bytes");
  // Extended: the footer no longer ends the file.
  ExpectCorruption(bytes_ + std::string(64, '\0'), "no table footer", "64 bytes longer");
}

TEST_F(TrieTableRefusal, AFlippedByteInTheFooterOrTheHeader) {
  const size_t footer_at = bytes_.size() - sizeof(trie::TableFooter);
  // Every byte of the footer after its magic, and of the trie's header.
  for (size_t i = 8; i < sizeof(trie::TableFooter); ++i) {
    std::string b = bytes_;
    b[footer_at + i] ^= 0x10;
    const Status s = OpenBytes(b);
    EXPECT_TRUE(s.IsCorruption()) << "footer byte " << i << ": " << s.ToString();
  }
  for (size_t i = 0; i < sizeof(trie::Meta); ++i) {
    std::string b = bytes_;
    b[i] ^= 0x01;
    ExpectCorruption(b, "checksum", "header byte " + std::to_string(i));
  }
  std::string b = bytes_;
  b[footer_at] ^= 0x01;
  ExpectCorruption(b, "no table footer", "the footer's magic");
}

TEST_F(TrieTableRefusal, AnEmptyOrRandomFileOrALiveImage) {
  ExpectCorruption("", "too short", "empty");
  std::mt19937_64 rng(5);
  for (const size_t size : {size_t{2000}, size_t{1} << 20}) {
    std::string random(size, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    ExpectCorruption(random, "no table footer", "random " + std::to_string(size));
  }
  // A region image that was never frozen into a table (what a crash leaves).
  TempFile live("live");
  {
    memory::VmRegionOptions o;
    o.capacity = uint64_t{1} << 20;
    o.path = live.path();
    std::unique_ptr<memory::VmRegion> region;
    ASSERT_TRUE(memory::VmRegion::Open(o, &region).ok());
    std::unique_ptr<trie::Trie> t;
    ASSERT_TRUE(
        trie::Trie::Create(region.get(), trie::Trie::Mode::kViews, false, 4096, 4096, &t).ok());
    ASSERT_TRUE(t->InsertView(EntryView::Of("k", 1, ValueType::kValue, "v")).ok());
  }
  std::unique_ptr<TrieTable> table;
  const Status s = TrieTable::Open(live.path(), &table);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("never frozen"), std::string::npos) << s.ToString();
  EXPECT_TRUE(TrieTable::Open(good_.path() + ".missing", &table).IsIOError());
}

TEST_F(TrieTableRefusal, ABadNodeIsFoundByVerifyNotByOpen) {
  // Open reads the footer and the header only; Verify walks the body. Point
  // the root's first child slot far outside the file.
  std::string b = bytes_;
  const size_t root_children = sizeof(trie::Meta) + sizeof(trie::NodeHeader);
  size_t slot = root_children;
  while (std::memcmp(b.data() + slot, "\0\0\0\0", 4) == 0) slot += 4;
  ASSERT_LT(slot, root_children + 256 * 4);
  const trie::Ref far = 0x7ffffff0;
  std::memcpy(b.data() + slot, &far, 4);
  WriteFile(bad_.path(), b);
  std::unique_ptr<TrieTable> table;
  ASSERT_TRUE(TrieTable::Open(bad_.path(), &table).ok());
  const Status s = table->Verify();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(TrieTable, ARowsTrieIsNoTable) {
  TempFile file("rows");
  {
    memory::VmRegionOptions o;
    o.capacity = uint64_t{1} << 20;
    o.path = file.path();
    std::unique_ptr<memory::VmRegion> region;
    ASSERT_TRUE(memory::VmRegion::Open(o, &region).ok());
    memory::Arena arena;
    std::unique_ptr<trie::Trie> t;
    ASSERT_TRUE(
        trie::Trie::Create(region.get(), trie::Trie::Mode::kRows, false, 4096, 4096, &t, &arena)
            .ok());
    t->Freeze();
    ASSERT_TRUE(trie::WriteTableFromRegion(*t, *region, false).ok());
  }
  std::unique_ptr<TrieTable> table;
  const Status s = TrieTable::Open(file.path(), &table);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.message().find("RocksDB face"), std::string::npos) << s.ToString();
}

TEST(TrieTable, AConversionThatFailsIsReportedAndTheMemTableStaysReadable) {
  const std::string nowhere =
      ::testing::TempDir() + "/no-such-dir-" + std::to_string(::getpid()) + "/table";
  auto mem = OpenMemTable(TrieSpec("kDumpMem", nowhere), false);
  ASSERT_NE(mem, nullptr);
  ASSERT_TRUE(mem->Put("k", "v", 1).ok());
  const Status s = mem->Freeze();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(nowhere), std::string::npos) << s.ToString();
  EXPECT_TRUE(mem->frozen());
  std::string v;
  EXPECT_TRUE(mem->Get("k", 1, &v).ok());
  EXPECT_EQ(v, "v");
  EXPECT_TRUE(mem->Put("k", "w", 2).IsFrozen());
  EXPECT_TRUE(mem->Freeze().IsIOError());  // the same result again
}

// Freezing writes a footer and truncates the file: nothing in it depends on
// the trie's size. Timed (and logged, not asserted) for a small trie and a
// 512 MiB one.
TEST(TrieTable, FreezingInPlaceTakesAsLongForALargeTrieAsForASmallOne) {
  for (const uint64_t target : {uint64_t{1} << 20, uint64_t{512} << 20}) {
    TempFile file("timing");
    auto mem = OpenMemTable(TrieSpec("kFileMmap", file.path(), false, "1G"), false);
    ASSERT_NE(mem, nullptr);
    const std::string value(4096, 'v');
    uint64_t n = 0;
    while (mem->MemoryUsage() < target) {
      ASSERT_TRUE(
          mem->Put(testing::NumberKey(n * 2654435761u % 1000000007u, 10), value, n + 1).ok());
      ++n;
    }
    const uint64_t used = mem->MemoryUsage();
    const auto start = std::chrono::steady_clock::now();
    const Status s = mem->Freeze();
    const auto froze = std::chrono::steady_clock::now();
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<TrieTable> table;
    ASSERT_TRUE(TrieTable::Open(file.path(), &table).ok());
    const auto opened = std::chrono::steady_clock::now();
    EXPECT_EQ(table->NumEntries(), n);
    std::string got;
    ValueType type;
    ASSERT_TRUE(table->Get(testing::NumberKey(0, 10), 1, &got, &type).ok());
    EXPECT_EQ(got, value);
    const auto us = [](auto d) {
      return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    };
    std::printf(
        "[ trie table ] %llu MiB trie (%llu records): Freeze (kFileMmap, no sync) %lld us, "
        "TrieTable::Open %lld us\n",
        static_cast<unsigned long long>(used >> 20), static_cast<unsigned long long>(n),
        static_cast<long long>(us(froze - start)), static_cast<long long>(us(opened - froze)));
    ::testing::Test::RecordProperty("freeze_us_" + std::to_string(used >> 20) + "MiB",
                                    static_cast<int>(us(froze - start)));
  }
}

}  // namespace
}  // namespace memrep
