// Writes and Freeze, ordered: a write either lands before Freeze returns
// (and is visible) or is refused with Frozen. Run under ThreadSanitizer in CI.
#include "concurrency/write_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "memrep/memtable.h"
#include "registry/registry.h"
#include "test_util.h"

namespace memrep {
namespace {

TEST(WriteGate, EnterIsRefusedOnceClosedAndCloseWaitsForWritersInside) {
  concurrency::WriteGate gate;
  ASSERT_TRUE(gate.Enter());
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    gate.Close();
    closed = true;
  });
  // The closer cannot return while a writer is inside.
  while (!gate.closed()) std::this_thread::yield();
  EXPECT_FALSE(gate.Enter()) << "closing refuses new writers at once";
  EXPECT_FALSE(closed.load()) << "Close returned while a writer was inside";
  gate.Exit();
  closer.join();
  EXPECT_TRUE(closed.load());
  EXPECT_FALSE(gate.Enter());
  gate.Close();  // again: nothing to wait for
}

// Writers loop Put while another thread freezes the table. Afterwards every
// Put that returned OK must be visible, every refused one must be Frozen and
// absent, and no entry may arrive once Freeze has returned.
class FreezeRaceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FreezeRaceTest, AWriteLandsBeforeFreezeReturnsOrIsRefused) {
  constexpr int kWriters = 3;
  for (int round = 0; round < 30; ++round) {
    MemTableOptions options;
    options.rep = GetParam();
    options.write_buffer_size = 1 << 20;
    std::unique_ptr<MemTable> table;
    ASSERT_TRUE(MemTable::Open(options, &table).ok());
    std::atomic<bool> go{false};
    std::vector<std::vector<std::pair<std::string, bool>>> results(kWriters);
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        for (int i = 0;; ++i) {
          const std::string key = "w" + std::to_string(w) + "-" + std::to_string(i);
          Status s = table->Put(key, "v", static_cast<SequenceNumber>(i + 1));
          ASSERT_TRUE(s.ok() || s.IsFrozen()) << s.ToString();
          results[w].emplace_back(key, s.ok());
          if (s.IsFrozen()) return;
        }
      });
    }
    // A flusher that drains as soon as it sees the table frozen: it must see
    // every write that was acknowledged.
    std::set<std::string> drained;
    std::thread flusher([&] {
      while (!table->frozen()) std::this_thread::yield();
      ASSERT_TRUE(table->Drain([&](const EntryView& e) { drained.emplace(e.user_key); }).ok());
    });
    go.store(true, std::memory_order_release);
    std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 5)));
    EXPECT_TRUE(table->Freeze().ok());  // not ASSERT: the threads must be joined
    const uint64_t at_freeze = table->NumEntries();
    for (auto& t : writers) t.join();
    flusher.join();
    EXPECT_EQ(table->NumEntries(), at_freeze) << "an entry arrived after Freeze returned";
    uint64_t landed = 0;
    for (const auto& per_writer : results) {
      for (const auto& [key, ok] : per_writer) {
        std::string value;
        Status s = table->Get(key, kMaxSequenceNumber, &value);
        if (ok) {
          ++landed;
          ASSERT_TRUE(s.ok()) << key << " was acknowledged but is not visible: " << s.ToString();
          ASSERT_EQ(drained.count(key), 1u) << key << " was acknowledged but not drained";
        } else {
          ASSERT_TRUE(s.IsNotFound()) << key << " was refused but is stored";
        }
      }
    }
    EXPECT_EQ(landed, at_freeze);
  }
}

std::vector<std::string> RepNames() {
  std::vector<std::string> names;
  for (const registry::Registration* rep : registry::All()) names.push_back(rep->name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllReps, FreezeRaceTest, ::testing::ValuesIn(RepNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace memrep
