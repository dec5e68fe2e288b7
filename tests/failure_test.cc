// Running out of memory, or of a rep's region, in the standalone face: a
// write that cannot get memory stores nothing and says why with a Status the
// caller can act on; what was stored before stays readable.
#include <gtest/gtest.h>

#include <atomic>

#include "memory/arena.h"
#include "memrep/memtable.h"
#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

namespace memrep {
namespace {

using testing::NumberKey;

// An allocator that can be told to fail.
class SwitchableAllocator final : public Allocator {
 public:
  char* AllocateAligned(size_t bytes) noexcept override {
    if (fail_.load()) {
      ++refused_;
      return nullptr;
    }
    return arena_.AllocateAligned(bytes);
  }
  void set_fail(bool fail) { fail_ = fail; }
  int refused() const { return refused_.load(); }

 private:
  memory::Arena arena_;
  std::atomic<bool> fail_{false};
  std::atomic<int> refused_{0};
};

TEST(OutOfMemory, AWriteThatGetsNoMemoryIsRefusedAndStoresNothing) {
  for (const char* rep : {"memrep.SortedHash", "test.Map"}) {
    SwitchableAllocator allocator;
    MemTableOptions options;
    options.rep = rep;
    options.allocator = &allocator;
    std::unique_ptr<MemTable> table;
    ASSERT_TRUE(MemTable::Open(options, &table).ok());
    ASSERT_TRUE(table->Put("before", "v", 1).ok());
    allocator.set_fail(true);
    // Rows fill chunks of the allocator's memory: write until one is needed.
    Status s;
    int i = 0;
    for (; i < 100000 && s.ok(); ++i) s = table->Put(NumberKey(i), std::string(100, 'x'), 10 + i);
    ASSERT_TRUE(s.IsOutOfMemory()) << rep << ": " << s.ToString();
    EXPECT_GT(allocator.refused(), 0);
    const std::string refused_key = NumberKey(i - 1);
    std::string value;
    EXPECT_TRUE(table->Get(refused_key, kMaxSequenceNumber, &value).IsNotFound())
        << rep << ": a refused write stored something";
    EXPECT_EQ(table->NumEntries(), static_cast<uint64_t>(i))
        << rep << ": 'before' and the ones that fit";
    ASSERT_TRUE(table->Get("before", kMaxSequenceNumber, &value).ok());
    // Memory again: the same write now lands.
    allocator.set_fail(false);
    ASSERT_TRUE(table->Put(refused_key, "again", 10 + i - 1).ok());
    ASSERT_TRUE(table->Get(refused_key, kMaxSequenceNumber, &value).ok());
    EXPECT_EQ(value, "again");
  }
}

TEST(Full, ARepAtItsLimitSaysSwitchMemtables) {
  std::unique_ptr<MemTable> table;
  ASSERT_TRUE(MemTable::Open("id=test.Map; max_entries=10", &table).ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(table->Put(NumberKey(i), "v", i + 1).ok());
  Status s = table->Put(NumberKey(10), "v", 11);
  EXPECT_TRUE(s.IsFull()) << s.ToString();
  EXPECT_NE(s.message().find("switch memtables"), std::string::npos) << s.ToString();
  EXPECT_EQ(table->NumEntries(), 10u);
  WriteBatch batch;
  ASSERT_TRUE(batch.Put("x", "1").ok());
  EXPECT_TRUE(table->Write(batch, 100).IsFull());
}

TEST(Full, ASortedHashRegionFillsUpWarningFirstAndKeepsWhatItHolds) {
  memory::Arena arena;
  RepContext context;
  context.allocator = &arena;
  context.write_buffer_size = 4 << 20;  // 4 KiB chunks
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(sorted_hash::SortedHashRep::Make(SortedHashOptions(), context, &rep,
                                               /*region_bytes=*/uint64_t{1} << 20)
                  .ok());
  const std::string value(200, 'v');
  Status s;
  int stored = 0;
  bool warned = false;
  for (; stored < 100000; ++stored) {
    s = rep->Add(EntryView::Of(NumberKey(stored), 1, ValueType::kValue, value), true);
    if (!s.ok()) break;
    warned = warned || rep->NearlyFull();
  }
  ASSERT_TRUE(s.IsFull()) << s.ToString();
  EXPECT_TRUE(warned) << "NearlyFull came before Full";
  EXPECT_GT(stored, 1000);
  EXPECT_EQ(rep->NumEntries(), static_cast<uint64_t>(stored));
  auto it = rep->NewIterator();
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->entry().user_key, NumberKey(n));
    ASSERT_EQ(it->entry().value, value);
  }
  EXPECT_EQ(n, stored);
}

}  // namespace
}  // namespace memrep
