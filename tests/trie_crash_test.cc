// The trie's crash consistency: a child process inserts into a file-backed
// trie from three threads and tells the parent, through a pipe, of every
// insert that returned OK; the parent kills it (SIGKILL) at a random
// instant, then reads the file it left as a live image (no footer:
// VmRegion::OpenReadOnly + Trie::Attach) and requires that
//  - the structure is whole (Trie::Check walks every node, leaf, version);
//  - every acknowledged insert is there, with its value;
//  - every record there is one the child could have written (its value is
//    derived from its key and sequence, and names the key it belongs to).
// Scenarios: keys dense per thread; random keys of many lengths over a large
// space (node growths and splits everywhere, keys shared between threads);
// long shared prefixes (prefixes held in leaves, deep splits). A last test
// corrupts an image on purpose and requires the checks to say so.
//
// MEMREP_TRIE_CRASH_ROUNDS: rounds in all (default 30, shared among the
// scenarios); MEMREP_TRIE_CRASH_SEED: the first round's seed (default:
// random, printed). scripts/trie-crash.sh runs a long series.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "memory/arena.h"
#include "memory/vm_region.h"
#include "memrep/trie.h"
#include "trie/trie.h"
#include "trie/trie_iterator.h"
#include "trie/trie_rep.h"

namespace memrep::trie {
namespace {

constexpr int kThreads = 3;
constexpr int kSequenceShift = 40;  // sequence = thread << 40 | the thread's count
constexpr uint64_t kRegionBytes = uint64_t{256} << 20;
constexpr size_t kBatch = 64;  // records per pipe write: 1 KiB, under PIPE_BUF (atomic)

enum class Keys { kDense, kRandom, kSharedPrefix };

const char* NameOf(Keys k) {
  switch (k) {
    case Keys::kDense:
      return "dense";
    case Keys::kRandom:
      return "random";
    case Keys::kSharedPrefix:
      return "shared-prefix";
  }
  return "?";
}

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t HashBytes(std::string_view s) { return Mix(std::hash<std::string_view>()(s)); }

struct Round {
  Keys keys;
  uint64_t seed;
  std::string path;
};

// The key thread t writes as its key number i.
std::string KeyFor(const Round& r, int t, uint64_t i) {
  const uint64_t h = Mix(r.seed ^ (uint64_t(t) << 56) ^ Mix(i));
  std::string k;
  switch (r.keys) {
    case Keys::kDense:
      // A thread's own prefix, then its count big-endian: the last byte
      // fills each node to a K256.
      k = "t" + std::to_string(t) + "/";
      for (int b = 3; b >= 0; --b) k.push_back(static_cast<char>(i >> (8 * b)));
      break;
    case Keys::kRandom: {
      // 1 to 12 random bytes: short keys collide between threads (versions
      // of one key from several threads) and are prefixes of longer ones.
      const size_t len = 1 + h % 12;
      uint64_t bits = Mix(h);
      for (size_t b = 0; b < len; ++b) {
        if (b % 8 == 0 && b > 0) bits = Mix(bits);
        k.push_back(static_cast<char>(bits >> (8 * (b % 8))));
      }
      break;
    }
    case Keys::kSharedPrefix: {
      // Long prefixes sharing their first 150 bytes, then (mostly) a tail
      // of a byte from a small alphabet and 1 to 5 random bytes: few keys
      // end at a prefix, most are distinct.
      static const std::string kPrefixes[4] = {
          std::string(200, 'p'), std::string(200, 'p') + std::string(100, 'q'),
          std::string(200, 'p') + std::string(100, 'q') + "r", std::string(150, 'p') + "s"};
      k = kPrefixes[h % 4];
      if ((h >> 8) % 64 == 0) break;
      k.push_back(static_cast<char>("ab\0\xff"[(h >> 14) % 4]));
      const size_t len = 1 + (h >> 16) % 5;
      const uint64_t bits = Mix(h);
      for (size_t b = 0; b < len; ++b) k.push_back(static_cast<char>(bits >> (8 * b)));
      break;
    }
  }
  return k;
}

// The value of (key, sequence): the key's number, then bytes derived from both.
std::string ValueFor(std::string_view key, uint64_t seq, uint64_t index) {
  std::string v(8, '\0');
  std::memcpy(v.data(), &index, 8);
  uint64_t h = Mix(HashBytes(key) ^ seq);
  const size_t filler = h % 40;
  for (size_t i = 0; i < filler; ++i) {
    if (i % 8 == 0) h = Mix(h);
    v.push_back(static_cast<char>(h >> (8 * (i % 8))));
  }
  return v;
}

// What the child reports for each insert that returned OK.
struct Ack {
  uint64_t seq;
  uint64_t index;  // the key's number in its thread
};
static_assert(sizeof(Ack) == 16);

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The child: never returns. Exit codes other than death by SIGKILL are
// failures the parent reports.
[[noreturn]] void RunChild(const Round& r, int fd) {
  ::alarm(120);  // if the parent is gone, do not run on
  TrieOptions o;
  o.mem_cap = kRegionBytes;
  o.file = r.path;  // kDontConvert: the file would be removed with the rep, which never goes
  memory::Arena arena;
  RepContext context;
  context.allocator = &arena;
  context.rows = false;
  std::unique_ptr<Rep> rep;
  if (!TrieRep::Make(o, context, &rep).ok()) ::_exit(3);
  const Ack ready{0, 0};
  if (!WriteAll(fd, &ready, sizeof(ready))) ::_exit(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(r.seed + t);
      std::vector<Ack> batch;
      batch.reserve(kBatch);
      uint64_t next_index = 0;
      for (uint64_t n = 1;; ++n) {
        // Mostly new keys; one in eight a new version of an earlier key.
        const uint64_t index = next_index > 0 && rng() % 8 == 0 ? rng() % next_index : next_index++;
        const std::string key = KeyFor(r, t, index);
        const uint64_t seq = uint64_t(t) << kSequenceShift | n;
        const std::string value = ValueFor(key, seq, index);
        const Status s = rep->Add(EntryView::Of(key, seq, ValueType::kValue, value), true);
        if (s.IsFull()) break;
        if (!s.ok()) ::_exit(5);
        batch.push_back(Ack{seq, index});  // only once Add returned OK
        if (batch.size() == kBatch) {
          if (!WriteAll(fd, batch.data(), batch.size() * sizeof(Ack))) ::_exit(6);
          batch.clear();
        }
      }
      if (!batch.empty() && !WriteAll(fd, batch.data(), batch.size() * sizeof(Ack))) ::_exit(6);
      for (;;) ::pause();  // the region is full: wait to be killed
    });
  }
  for (;;) ::pause();
}

// Reads what is there without blocking longer than `ms` (< 0: until EOF).
void Drain(int fd, int ms, std::string* bytes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  char buf[1 << 16];
  for (;;) {
    int wait = -1;
    if (ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return;
      wait = static_cast<int>(left.count());
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EOF: the child is gone
    bytes->append(buf, static_cast<size_t>(n));
  }
}

// What a round found.
struct Outcome {
  std::vector<Ack> acks;
  uint64_t found = 0;
  std::vector<std::string> faults;  // empty: the image is good
};

void Fault(Outcome* o, std::string what) {
  if (o->faults.size() < 10) o->faults.push_back(std::move(what));
}

// Checks the image at r.path against what the child acknowledged.
void CheckImage(const Round& r, Outcome* out) {
  std::unique_ptr<memory::VmRegion> region;
  Status s = memory::VmRegion::OpenReadOnly(r.path, &region);
  if (!s.ok()) return Fault(out, "open: " + s.ToString());
  std::unique_ptr<Trie> trie;
  s = Trie::Attach(region.get(), &trie);
  if (!s.ok()) return Fault(out, "attach: " + s.ToString());
  if (trie->mode() != Trie::Mode::kViews) return Fault(out, "not a views trie");
  uint64_t entries = 0;
  s = trie->Check(&entries);
  if (!s.ok()) return Fault(out, "check: " + s.ToString());

  // Every record is one the child could have written; each names its key
  // by number in its value, and its sequence is unique.
  std::unordered_map<uint64_t, uint64_t> found;  // sequence -> key number
  found.reserve(entries);
  TrieIterator it(*trie);
  uint64_t n = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next(), ++n) {
    const EntryView e = it.entry();
    const uint64_t seq = e.sequence();
    const int t = static_cast<int>(seq >> kSequenceShift);
    uint64_t index = 0;
    if (e.value.size() >= 8) std::memcpy(&index, e.value.data(), 8);
    if (t >= kThreads || (seq & ((uint64_t{1} << kSequenceShift) - 1)) == 0 ||
        e.type() != static_cast<uint8_t>(ValueType::kValue) || e.value.size() < 8 ||
        e.user_key != KeyFor(r, t, index) || e.value != ValueFor(e.user_key, seq, index)) {
      Fault(out, "a record the child never wrote: seq " + std::to_string(seq) + ", key of " +
                     std::to_string(e.user_key.size()) + " bytes");
    } else if (!found.emplace(seq, index).second) {
      Fault(out, "sequence " + std::to_string(seq) + " is stored twice");
    }
  }
  // Every acknowledged insert is among them, with its key and value; a
  // share of them (and the last ones) is also looked up by key.
  Trie::ReadGuard guard(*trie);
  for (size_t i = 0; i < out->acks.size(); ++i) {
    const Ack& a = out->acks[i];
    const int t = static_cast<int>(a.seq >> kSequenceShift);
    const auto hit = found.find(a.seq);
    if (hit == found.end()) {
      Fault(out, "acknowledged insert missing: thread " + std::to_string(t) + " key #" +
                     std::to_string(a.index) + " seq " + std::to_string(a.seq));
      continue;
    }
    if (hit->second != a.index) {
      Fault(out, "acknowledged insert with another key: seq " + std::to_string(a.seq));
      continue;
    }
    if (i % 8 != 0 && i + 1024 < out->acks.size()) continue;
    const std::string key = KeyFor(r, t, a.index);
    const Ref leaf = trie->FindLeaf(key);
    Ref v = leaf == 0 ? 0 : trie->Head(leaf);
    while (v != 0 && TagSequence(trie->Tag(v)) > a.seq) v = trie->Next(v);
    if (v == 0 || TagSequence(trie->Tag(v)) != a.seq ||
        trie->Value(v) != ValueFor(key, a.seq, a.index)) {
      Fault(out, "acknowledged insert not found by its key: seq " + std::to_string(a.seq));
    }
  }
  if (n != entries) {
    Fault(out,
          "iterated " + std::to_string(n) + " records, Check counted " + std::to_string(entries));
  }
  if (n < out->acks.size()) {
    Fault(out, std::to_string(n) + " records, fewer than the " + std::to_string(out->acks.size()) +
                   " acknowledged");
  }
  out->found = n;
}

std::string ImagePath(const char* name) {
  return ::testing::TempDir() + "/trie_crash_" + std::to_string(::getpid()) + "_" + name;
}

// Runs the child, kills it after `delay_ms` of inserting, and collects its
// acknowledgements. The image stays at r.path.
void CrashRound(const Round& r, int delay_ms, Outcome* out) {
  ::unlink(r.path.c_str());
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::fflush(nullptr);  // nothing buffered twice
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    RunChild(r, fds[1]);
  }
  ::close(fds[1]);
  std::string bytes;
  // Ready (the trie is created), then inserting for `delay_ms`.
  const auto start = std::chrono::steady_clock::now();
  while (bytes.size() < sizeof(Ack) &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    Drain(fds[0], 100, &bytes);
  }
  if (bytes.size() >= sizeof(Ack)) Drain(fds[0], delay_ms, &bytes);
  ::kill(child, SIGKILL);
  Drain(fds[0], -1, &bytes);  // to EOF: every write it made is in the pipe
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child did not die of the SIGKILL: "
      << (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                            : "signal " + std::to_string(WTERMSIG(status)));
  ASSERT_GE(bytes.size(), sizeof(Ack)) << "the child never became ready";
  ASSERT_EQ(bytes.size() % sizeof(Ack), 0u) << "a torn acknowledgement";
  out->acks.resize(bytes.size() / sizeof(Ack) - 1);
  std::memcpy(out->acks.data(), bytes.data() + sizeof(Ack), bytes.size() - sizeof(Ack));
}

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

constexpr int kScenarios = 3;

void RunScenario(Keys keys) {
  const uint64_t total = EnvNumber("MEMREP_TRIE_CRASH_ROUNDS", 30);
  const uint64_t rounds = (total + kScenarios - 1) / kScenarios;
  const uint64_t base_seed = EnvNumber("MEMREP_TRIE_CRASH_SEED", std::random_device()());
  std::mt19937_64 rng(base_seed ^ static_cast<uint64_t>(keys));
  uint64_t acked = 0, found = 0, delays = 0;
  const std::string path = ImagePath(NameOf(keys));
  for (uint64_t i = 0; i < rounds; ++i) {
    const Round r{keys, base_seed + i, path};
    const int delay_ms = 2 + static_cast<int>(rng() % 199);
    SCOPED_TRACE(std::string("scenario ") + NameOf(keys) + ", round " + std::to_string(i) +
                 ", seed " + std::to_string(r.seed) + ", killed after " + std::to_string(delay_ms) +
                 " ms (MEMREP_TRIE_CRASH_SEED=" + std::to_string(base_seed) + ")");
    Outcome o;
    CrashRound(r, delay_ms, &o);
    if (::testing::Test::HasFatalFailure()) break;
    CheckImage(r, &o);
    for (const std::string& f : o.faults) ADD_FAILURE() << f;
    if (!o.faults.empty()) {
      std::printf("the image is kept at %s\n", path.c_str());
      return;
    }
    acked += o.acks.size();
    found += o.found;
    delays += delay_ms;
  }
  ::unlink(path.c_str());
  std::printf(
      "[ trie crash ] %s: %llu rounds, killed after %llu ms on average; %llu inserts "
      "acknowledged, %llu records found, all checked\n",
      NameOf(keys), static_cast<unsigned long long>(rounds),
      static_cast<unsigned long long>(rounds ? delays / rounds : 0),
      static_cast<unsigned long long>(acked), static_cast<unsigned long long>(found));
}

TEST(TrieCrash, DenseKeysPerThread) { RunScenario(Keys::kDense); }

TEST(TrieCrash, RandomKeysOverALargeSpaceGrowAndSplitNodes) { RunScenario(Keys::kRandom); }

TEST(TrieCrash, LongSharedPrefixes) { RunScenario(Keys::kSharedPrefix); }

// The checks can fail: an image with a bad reference fails Check, one with
// a subtree cut off misses acknowledged inserts, one with a changed value
// holds a record the child never wrote.
TEST(TrieCrash, ACorruptedImageIsReported) {
  const Round r{Keys::kRandom, 12345, ImagePath("corrupted")};
  Outcome o;
  CrashRound(r, 50, &o);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  ASSERT_FALSE(o.acks.empty()) << "the child acknowledged nothing in 50 ms";
  CheckImage(r, &o);
  ASSERT_TRUE(o.faults.empty()) << o.faults[0];

  // Where the first acknowledged key hangs from the root, and its version.
  Meta meta;
  uint64_t slot_at = 0, value_at = 0;
  {
    std::unique_ptr<memory::VmRegion> region;
    ASSERT_TRUE(memory::VmRegion::OpenReadOnly(r.path, &region).ok());
    std::memcpy(&meta, region->base(), sizeof(meta));
    std::unique_ptr<Trie> trie;
    ASSERT_TRUE(Trie::Attach(region.get(), &trie).ok());
    const Ack& a = o.acks.front();
    const std::string key = KeyFor(r, static_cast<int>(a.seq >> kSequenceShift), a.index);
    slot_at = OffsetOf(meta.root) + kChildren256At + 4 * static_cast<uint8_t>(key[0]);
    Ref v = trie->Head(trie->FindLeaf(key));
    while (TagSequence(trie->Tag(v)) != a.seq) v = trie->Next(v);
    value_at = OffsetOf(v) + kViewVersionHeader;
  }
  const int fd = ::open(r.path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  // Each change is made, checked, and undone.
  auto with = [&](uint64_t at, uint32_t bytes, const char* what, const char* expected) {
    uint32_t old = 0;
    ASSERT_EQ(::pread(fd, &old, 4, static_cast<off_t>(at)), 4);
    ASSERT_EQ(::pwrite(fd, &bytes, 4, static_cast<off_t>(at)), 4);
    Outcome bad;
    bad.acks = o.acks;
    CheckImage(r, &bad);
    ASSERT_EQ(::pwrite(fd, &old, 4, static_cast<off_t>(at)), 4);
    ASSERT_FALSE(bad.faults.empty()) << what << " was not reported";
    bool named = false;
    for (const std::string& f : bad.faults) named = named || f.find(expected) != std::string::npos;
    EXPECT_TRUE(named) << what << ": " << bad.faults[0];
  };
  with(slot_at, 0x7ffffff0, "a root child far outside the region", "check: Corruption");
  with(slot_at, 0, "a root child cut off", "acknowledged insert missing");
  uint32_t index_bytes = 0;
  ASSERT_EQ(::pread(fd, &index_bytes, 4, static_cast<off_t>(value_at)), 4);
  with(value_at, index_bytes ^ 0x55, "a value's key number changed", "never wrote");
  ::close(fd);
  Outcome again;
  again.acks = o.acks;
  CheckImage(r, &again);
  EXPECT_TRUE(again.faults.empty()) << "the undone image: " << again.faults[0];
  ::unlink(r.path.c_str());
}

}  // namespace
}  // namespace memrep::trie
