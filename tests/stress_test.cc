// Concurrency stress: writers, point readers and iterators on a memtable that
// is switched (frozen and replaced) under them, as an LSM engine does. Run
// under ThreadSanitizer in CI. Each reader checks that everything a writer had
// finished before the read began is visible.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "memory/arena.h"
#include "memrep/memtable.h"
#include "memrep/registry.h"
#include "registry/registry.h"
#include "test_util.h"

namespace memrep {
namespace {

constexpr int kWriters = 2;

struct Table {
  std::unique_ptr<MemTable> mt;
  // progress[w]: writer w finished every key index < progress[w] in this table.
  std::array<std::atomic<int64_t>, kWriters> progress{};
};

std::string Key(int w, int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "w%d-%012lld", w, static_cast<long long>(i));
  return buf;
}

class Stress {
 public:
  explicit Stress(std::string spec) : spec_(std::move(spec)) {}

  std::shared_ptr<Table> Current() {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }

  void Switch() {
    auto next = std::make_shared<Table>();
    MemTableOptions o;
    o.rep = spec_;
    o.write_buffer_size = 1 << 20;
    Status s = MemTable::Open(o, &next->mt);
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::shared_ptr<Table> old;
    {
      std::lock_guard<std::mutex> lock(mu_);
      old = std::move(current_);
      current_ = next;
    }
    if (old != nullptr) {
      const Status frozen = old->mt->Freeze();  // readers may still be reading it
      EXPECT_TRUE(frozen.ok()) << frozen.ToString();
    }
  }

 private:
  const std::string spec_;
  std::mutex mu_;
  std::shared_ptr<Table> current_;
};

// Every registered rep, with its default options and each of the options
// strings it gives the conformance suite (for the sorted hash rep: iterators
// that seal their tails, or share a tail sorted incrementally).
std::vector<std::string> Specs() {
  std::vector<std::string> specs;
  for (const registry::Registration* rep : registry::All()) {
    specs.push_back(rep->name);
    for (const std::string& options : rep->conformance_options) {
      specs.push_back("id=" + rep->name + ";" + options);
    }
  }
  return specs;
}

class StressTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StressTest, WritersReadersIteratorsAndSwitches) {
  Stress stress(GetParam());
  stress.Switch();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> checks{0};
  std::vector<std::thread> threads;

  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      int64_t i = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        std::shared_ptr<Table> t = stress.Current();
        for (int n = 0; n < 64; ++n, ++i) {
          Status s = t->mt->Put(Key(w, i), "value", static_cast<SequenceNumber>(i + 1));
          if (s.IsFrozen()) break;  // switched: go on in the new table
          ASSERT_TRUE(s.ok()) << s.ToString();
          // release: a reader that sees this progress sees the Put.
          t->progress[w].store(i + 1, std::memory_order_release);
        }
      }
    });
  }
  threads.emplace_back([&] {  // point reader
    std::mt19937 rng(1);
    while (!stop.load(std::memory_order_relaxed)) {
      std::shared_ptr<Table> t = stress.Current();
      const int w = rng() % kWriters;
      const int64_t done = t->progress[w].load(std::memory_order_acquire);
      if (done == 0) continue;
      // Any finished index in this table; indexes from an older table read NotFound.
      const int64_t i = done - 1 - static_cast<int64_t>(rng() % 64);
      if (i < 0) continue;
      std::string v;
      Status s = t->mt->Get(Key(w, i), kMaxSequenceNumber, &v);
      if (s.ok()) {
        ASSERT_EQ(v, "value");
      } else {
        ASSERT_TRUE(s.IsNotFound()) << s.ToString();
      }
      if (i == done - 1) {
        ASSERT_TRUE(s.ok()) << "the newest finished Put must be visible";
      }
      ++checks;
    }
  });
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&] {  // iterator readers
      while (!stop.load(std::memory_order_relaxed)) {
        std::shared_ptr<Table> t = stress.Current();
        std::array<int64_t, kWriters> done;
        for (int w = 0; w < kWriters; ++w) done[w] = t->progress[w].load(std::memory_order_acquire);
        std::unique_ptr<MemTableIterator> it;
        ASSERT_TRUE(t->mt->NewIterator(&it).ok());
        for (int w = 0; w < kWriters; ++w) {
          if (done[w] == 0) continue;
          const std::string key = Key(w, done[w] - 1);
          it->Seek(key);
          ASSERT_TRUE(it->Valid()) << key;
          ASSERT_EQ(it->entry().user_key, key) << "an iterator must see every finished Put";
        }
        // A short scan in each direction stays strictly ordered.
        std::string prev;
        int n = 0;
        for (it->SeekToFirst(); it->Valid() && n < 200; it->Next(), ++n) {
          std::string k(it->entry().user_key);
          ASSERT_LT(prev, k);
          prev = k;
        }
        prev.clear();
        n = 0;
        for (it->SeekToLast(); it->Valid() && n < 200; it->Prev(), ++n) {
          std::string k(it->entry().user_key);
          if (!prev.empty()) {
            ASSERT_GT(prev, k);
          }
          prev = k;
        }
        ++checks;
      }
    });
  threads.emplace_back([&] {  // switcher: a new memtable every few milliseconds
    // 60 switches, and on until the readers made their checks (a slow
    // machine or a sanitizer may need longer), 30 s at most.
    for (int n = 0; (n < 60 || checks.load() <= 100) && n < 1500 && !stop.load(); ++n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      stress.Switch();
    }
    stop = true;
  });
  for (auto& th : threads) th.join();
  EXPECT_GT(checks.load(), 100);
}

// Sixteen threads on one memtable: writers beside threads that only read,
// some with Gets and some with iterators (new ones, seeking what writers
// finished, and scanning), as RocksDB's readers run beside its writers on a
// machine with many cores. Every Put a writer finished before a read began
// must be visible to it.
TEST_P(StressTest, SixteenThreadsReadersOnlyBesideWriters) {
  constexpr int kWriterThreads = 4, kGetters = 6, kIterators = 6;
  // Small: the test runs for every rep and its option strings under
  // ThreadSanitizer too (about 15 s there in all at these sizes).
  constexpr int64_t kPerWriter = 1500;
  constexpr int kMinChecks = 30;  // per reader, however fast the writers are
  MemTableOptions o;
  o.rep = GetParam();
  o.write_buffer_size = 8 << 20;
  std::unique_ptr<MemTable> mt;
  ASSERT_TRUE(MemTable::Open(o, &mt).ok());
  std::array<std::atomic<int64_t>, kWriterThreads> progress{};
  std::atomic<int> writers_done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriterThreads; ++w) {
    threads.emplace_back([&, w] {
      for (int64_t i = 0; i < kPerWriter; ++i) {
        const SequenceNumber seq = static_cast<SequenceNumber>(w * kPerWriter + i + 1);
        Status s = mt->Put(Key(w, i), "value", seq);
        ASSERT_TRUE(s.ok()) << s.ToString();
        progress[w].store(i + 1, std::memory_order_release);  // the Put is visible
      }
      writers_done.fetch_add(1);
    });
  }
  auto reading = [&](int own) { return writers_done.load() < kWriterThreads || own < kMinChecks; };
  for (int r = 0; r < kGetters; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(r);
      for (int own = 0; reading(own);) {
        const int w = static_cast<int>(rng() % kWriterThreads);
        const int64_t done = progress[w].load(std::memory_order_acquire);
        if (done == 0) continue;
        const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(done));
        std::string v;
        Status s = mt->Get(Key(w, i), kMaxSequenceNumber, &v);
        ASSERT_TRUE(s.ok()) << Key(w, i) << ": " << s.ToString();
        ASSERT_EQ(v, "value");
        ++own;
      }
    });
  }
  for (int r = 0; r < kIterators; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(100 + r);
      for (int own = 0; reading(own); ++own) {
        std::array<int64_t, kWriterThreads> done;
        for (int w = 0; w < kWriterThreads; ++w) {
          done[w] = progress[w].load(std::memory_order_acquire);
        }
        std::unique_ptr<MemTableIterator> it;
        ASSERT_TRUE(mt->NewIterator(&it).ok());
        const int w = static_cast<int>(rng() % kWriterThreads);
        if (done[w] > 0) {
          const std::string key = Key(w, static_cast<int64_t>(rng() % done[w]));
          it->Seek(key);
          ASSERT_TRUE(it->Valid()) << key;
          ASSERT_EQ(it->entry().user_key, key) << "an iterator must see every finished Put";
        }
        std::string prev;
        int n = 0;
        for (; it->Valid() && n < 50; it->Next(), ++n) {
          std::string k(it->entry().user_key);
          ASSERT_LT(prev, k);
          prev = k;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mt->NumEntries(), static_cast<uint64_t>(kWriterThreads * kPerWriter));
}

// The single-writer path, as RocksDB uses it without concurrent memtable
// writes: one thread calls Insert (which publishes with plain stores where a
// rep allows it, not a CAS) while readers look the writer's finished keys up
// through the rows face and iterate. A key the writer had finished before a
// read began must be found.
TEST_P(StressTest, AnExclusiveWriterAndConcurrentReaders) {
  RepSpec spec;
  ASSERT_TRUE(RepSpec::Parse(GetParam(), &spec).ok());
  memory::Arena arena;
  RepContext context;
  context.allocator = &arena;
  context.rows = true;
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(spec.NewRep(context, &rep).ok());
  constexpr int64_t kKeys = 20000;
  std::atomic<int64_t> done{0};  // keys [0, done) are inserted
  std::atomic<int> checks{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (int64_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(rep->Insert(testing::MakeEntry(rep.get(), Key(0, i), 1, 1, "v")));
      done.store(i + 1, std::memory_order_release);
    }
  });
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(r);
      // Until the writer is done, and at least kMinChecks times (a fast
      // writer may finish before a reader starts).
      constexpr int kMinChecks = 200;
      int own = 0;
      while (done.load(std::memory_order_acquire) < kKeys || own < kMinChecks) {
        const int64_t finished = done.load(std::memory_order_acquire);
        if (finished == 0) continue;
        const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(finished));
        ASSERT_TRUE(rep->Contains(testing::InternalKey(Key(0, i), 1))) << i;
        if (rng() % 64 == 0) {
          auto it = rep->NewIterator();
          int64_t n = 0;
          for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
          ASSERT_GE(n, finished);
        }
        ++checks;
        ++own;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(rep->NumEntries(), static_cast<uint64_t>(kKeys));
  EXPECT_GE(checks.load(), 2 * 200);
}

INSTANTIATE_TEST_SUITE_P(AllReps, StressTest, ::testing::ValuesIn(Specs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = std::to_string(info.index) + "_" + info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace memrep
