// memrep_phased: one database through four workload phases, per memtable rep.
//
// memrep.Auto picks the rep of each memtable from what the memtables before
// it were asked to do. This program gives it, and the fixed reps beside it,
// a workload that changes shape three times within one database, and shows
// how fast each rep runs each phase and which reps Auto chose when. Per rep
// and round it opens a database in a fresh directory and runs, in order:
//
//   bulk       WriteBatches of 1,000 random keys, one writer;
//   readwrite  one thread alternating a Put of a new key and a Get of one of
//              the last 10,000 keys written in the phase;
//   scanwrite  one thread: Puts of new keys, and after every 4th a range
//              scan (a new iterator for every scan: Seek to a random key,
//              16 Next);
//   readers    one writer of Puts and 4 reader threads Getting keys among
//              the last 10,000 the writer wrote, 2 Gets per write in all;
//              the phase ends when the writer and every reader are done.
//
// Every phase writes enough entries for --switches_per_phase memtable
// switches, counted by an EventListener and reported. Every Get must find
// its key with the value written, and every scan must come back in key order
// with the values written: the benchmark doubles as a check.
//
// Figures, per rep (bench/README.md, "The phased benchmark"): each phase's
// median seconds over --rounds and its ops/s, the total, the total over the
// best fixed rep's and over skip_list's; for each Auto rep, the reps its
// memtables used in each phase, run-length encoded, and after how many
// switches it settled.
//
// Exit status: 0 every check passed, 1 a check failed or RocksDB returned an
// error (the message says which rep, phase and key), 2 bad flags or a rep
// that cannot be created.
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/listener.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "memrep/auto.h"
#include "memrep/rocksdb.h"
#include "common/program_util.h"

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using memrep::bench_program::JsonString;
using memrep::bench_program::LoadAverage;
using memrep::bench_program::Median;
using memrep::bench_program::ParseCount;
using memrep::bench_program::SplitCommas;

constexpr uint64_t kBatch = 1000;            // entries per WriteBatch in the bulk phase
constexpr uint64_t kRecent = 10000;          // Gets pick among this many last written keys
constexpr uint64_t kScanLength = 16;         // Next calls after each scan's Seek
constexpr uint64_t kWritesPerScan = 4;       // scanwrite: a scan after every 4th Put
constexpr uint64_t kReaders = 4;             // reader threads of the readers phase
constexpr uint64_t kReadsPerWrite = 2;       // the readers' Gets, all together, per write
constexpr uint64_t kEntryOverhead = 20;      // bytes a memtable adds to an entry, for sizing
constexpr uint64_t kMaxWriteBuffers = 4;     // max_write_buffer_number
constexpr uint64_t kBackgroundJobs = 2;      // max_background_jobs
constexpr uint64_t kPollEverySwitches = 32;  // Auto keeps its last 64 decisions

enum Phase { kBulk, kReadWrite, kScanWrite, kReadersPhase, kPhases };
constexpr const char* kPhaseNames[kPhases] = {"bulk", "readwrite", "scanwrite", "readers"};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// ---------------------------------------------------------------------------
// Flags

struct Flags {
  std::vector<std::string> reps = {"skip_list",   "memrep.SortedHash", "memrep.Vector",
                                   "memrep.Trie", "memrep.Columnar",   "memrep.Auto"};
  uint64_t rounds = 3;
  uint64_t key_size = 16;
  uint64_t value_size = 100;
  uint64_t write_buffer_size = 16 << 20;
  uint64_t switches_per_phase = 20;
  uint64_t entries_per_phase = 0;  // 0: from --switches_per_phase
  uint64_t seed = 0;
  std::string db;  // "": a fresh mkdtemp directory under /tmp
  std::string json;
};

constexpr const char* kUsage =
    "usage: memrep_phased [--name=value ...]\n"
    "  --reps=LIST              comma list: skip_list, or memrep factory strings\n"
    "                           (skip_list,memrep.SortedHash,memrep.Vector,memrep.Trie,\n"
    "                           memrep.Columnar,memrep.Auto)\n"
    "  --rounds=N               rounds; each runs every rep once, in --reps order (3)\n"
    "  --key_size=N             bytes of every key, random (16)\n"
    "  --value_size=N           bytes of every value (100)\n"
    "  --write_buffer_size=N    memtable bytes (16777216)\n"
    "  --switches_per_phase=N   memtable switches each phase is sized for (20)\n"
    "  --entries_per_phase=N    entries written per phase; 0: from --switches_per_phase (0)\n"
    "  --seed=N                 seed of the keys, the Gets' picks and the Seeks' targets (0)\n"
    "  --db=DIR                 parent of the per-run database directories\n"
    "                           (a fresh /tmp/memrep_phased-XXXXXX)\n"
    "  --json=FILE              write every run's figures, the medians and Auto's choices\n";

uint64_t* CountFlag(std::string_view name, Flags* flags) {
  return name == "rounds"               ? &flags->rounds
         : name == "key_size"           ? &flags->key_size
         : name == "value_size"         ? &flags->value_size
         : name == "write_buffer_size"  ? &flags->write_buffer_size
         : name == "switches_per_phase" ? &flags->switches_per_phase
         : name == "entries_per_phase"  ? &flags->entries_per_phase
         : name == "seed"               ? &flags->seed
                                        : nullptr;
}

// ceil(switches × write buffer / entry bytes), plus 10%: an entry costs the
// memtable a little more or less than the estimate, depending on the rep.
uint64_t EntriesPerPhase(const Flags& flags) {
  if (flags.entries_per_phase != 0) return flags.entries_per_phase;
  const double entry = static_cast<double>(flags.key_size + flags.value_size + kEntryOverhead);
  const double fill = std::ceil(static_cast<double>(flags.switches_per_phase) *
                                static_cast<double>(flags.write_buffer_size) / entry);
  return static_cast<uint64_t>(std::ceil(fill * 1.1));
}

bool CheckFlags(const Flags& flags, std::string* error) {
  if (flags.rounds == 0 || flags.key_size == 0 || flags.write_buffer_size == 0) {
    *error = "--rounds, --key_size and --write_buffer_size must be at least 1";
    return false;
  }
  if (flags.key_size > (1 << 20) || flags.value_size > (1 << 26)) {
    *error = "--key_size must be at most 1048576 and --value_size at most 67108864";
    return false;
  }
  if (flags.switches_per_phase == 0 && flags.entries_per_phase == 0) {
    *error = "--switches_per_phase must be at least 1 (or give --entries_per_phase)";
    return false;
  }
  // The keys of one phase are held in memory.
  const double key_bytes =
      static_cast<double>(EntriesPerPhase(flags)) * static_cast<double>(flags.key_size);
  if (key_bytes > static_cast<double>(uint64_t{1} << 36)) {
    *error =
        "a phase's keys would take more than 64 GiB; lower --switches_per_phase, "
        "--write_buffer_size or --entries_per_phase";
    return false;
  }
  if (flags.reps.empty()) {
    *error = "--reps must not be empty";
    return false;
  }
  return true;
}

// Fills `flags` from argv. On a bad flag, returns false with `error` set
// ("" for --help).
bool ParseFlags(int argc, char** argv, Flags* flags, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *error = "";
      return false;
    }
    const size_t eq = arg.find('=');
    if (arg.substr(0, 2) != "--" || eq == std::string_view::npos) {
      *error = "expected --name=value, got '" + std::string(arg) + "'";
      return false;
    }
    const std::string_view name = arg.substr(2, eq - 2);
    const std::string_view value = arg.substr(eq + 1);
    if (uint64_t* count = CountFlag(name, flags); count != nullptr) {
      if (!ParseCount(value, count)) {
        *error =
            "--" + std::string(name) + " takes a whole number, got '" + std::string(value) + "'";
        return false;
      }
    } else if (name == "reps") {
      flags->reps = SplitCommas(value);
    } else if (name == "db") {
      flags->db = value;
    } else if (name == "json") {
      flags->json = value;
    } else {
      *error = "unknown flag --" + std::string(name);
      return false;
    }
  }
  return CheckFlags(*flags, error);
}

// ---------------------------------------------------------------------------
// Keys and values

// SplitMix64's finalizer.
uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t KeyHash(std::string_view key) {
  uint64_t h = Mix64(key.size());
  for (size_t at = 0; at < key.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, key.data() + at, std::min<size_t>(8, key.size() - at));
    h = Mix64(h ^ word);
  }
  return h;
}

// Fills `n` bytes at `out` from `rng`.
void RandomBytes(std::mt19937_64* rng, char* out, size_t n) {
  for (size_t at = 0; at < n; at += 8) {
    const uint64_t word = (*rng)();
    std::memcpy(out + at, &word, std::min<size_t>(8, n - at));
  }
}

// One phase's keys, drawn before the phase is timed. Key i is bytes
// [i × key_size, (i + 1) × key_size).
class Keys {
 public:
  Keys(std::mt19937_64* rng, uint64_t count, uint64_t key_size)
      : key_size_(key_size), bytes_(count * key_size, '\0') {
    RandomBytes(rng, bytes_.data(), bytes_.size());
  }
  rdb::Slice operator[](uint64_t i) const {
    return rdb::Slice(bytes_.data() + i * key_size_, key_size_);
  }

 private:
  uint64_t key_size_;
  std::string bytes_;
};

// A value is a function of its key: one pattern drawn from --seed, its first
// 8 bytes (or fewer) replaced by a hash of the key. A key drawn twice thus
// has one value, and a reader can check any value it finds.
class Values {
 public:
  Values(uint64_t seed, uint64_t value_size) : pattern_(value_size, '\0') {
    std::mt19937_64 rng(Mix64(seed ^ 0x76616c756573ULL));
    RandomBytes(&rng, pattern_.data(), pattern_.size());
  }
  // A buffer that Set() turns into a key's value.
  std::string Buffer() const { return pattern_; }
  void Set(rdb::Slice key, std::string* buffer) const {
    const uint64_t h = KeyHash(std::string_view(key.data(), key.size()));
    std::memcpy(buffer->data(), &h, HashBytes());
  }
  bool Matches(rdb::Slice key, rdb::Slice value) const {
    if (value.size() != pattern_.size()) return false;
    const uint64_t h = KeyHash(std::string_view(key.data(), key.size()));
    const size_t n = HashBytes();
    return std::memcmp(value.data(), &h, n) == 0 &&
           std::memcmp(value.data() + n, pattern_.data() + n, pattern_.size() - n) == 0;
  }

 private:
  size_t HashBytes() const { return std::min<size_t>(8, pattern_.size()); }
  std::string pattern_;
};

std::string Hex(rdb::Slice bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// ---------------------------------------------------------------------------
// Reps

// memrep.Auto by name, alias ("auto") or options string: "auto" in any case.
bool IsAuto(std::string_view spec) {
  std::string lower(spec);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("auto") != std::string::npos;
}

// A new factory for `spec`: RocksDB's skip list, or one of memrep's. Every run
// gets a new factory, so memrep.Auto starts each run without history.
rdb::Status NewFactory(const std::string& spec, std::shared_ptr<rdb::MemTableRepFactory>* out) {
  if (spec == "skip_list") {
    *out = std::make_shared<rdb::SkipListFactory>();
    return rdb::Status::OK();
  }
  return memrep::rocksdb_plugin::NewRepFactory(spec, out);
}

// Checks that every rep's factory can be made; then prints each one's name.
bool CheckReps(const Flags& flags, std::string* error) {
  std::string names;
  for (const std::string& spec : flags.reps) {
    std::shared_ptr<rdb::MemTableRepFactory> factory;
    const rdb::Status s = NewFactory(spec, &factory);
    if (!s.ok() || factory == nullptr) {
      *error = "--reps: cannot create memtable factory '" + spec +
               "': " + (s.ok() ? "no factory returned" : s.ToString()) +
               "\n  (skip_list, or memrep's names: memrep.SortedHash, memrep.Vector, "
               "memrep.Trie, memrep.Columnar, memrep.Auto, or an options string such as "
               "'id=memrep.Auto; margin_percent=10')";
      return false;
    }
    char line[256];
    std::snprintf(line, sizeof line, "rep %-20s factory %s\n", spec.c_str(), factory->Name());
    names += line;
  }
  std::fputs(names.c_str(), stdout);
  return true;
}

// Counts memtable switches. RocksDB calls it on the thread that switches
// (the writer here).
class SwitchCounter final : public rdb::EventListener {
 public:
  void OnMemTableSealed(const rdb::MemTableInfo& /*info*/) override {
    sealed_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t sealed() const { return sealed_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> sealed_{0};
};

// One memtable's rep, as memrep.Auto chose it.
struct Choice {
  std::string rep;
  bool switched = false;
};

// memrep.Auto's decisions of one run, by memtable index. Auto keeps only its
// last 64 decisions, so the writer polls every kPollEverySwitches switches.
class AutoTracker {
 public:
  AutoTracker(const rdb::MemTableRepFactory* factory, bool enabled)
      : factory_(factory), enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  // Called by the writer between operations: cheap unless a poll is due.
  rdb::Status MaybePoll(uint64_t sealed) {
    if (!enabled_ || sealed - polled_at_ < kPollEverySwitches) return rdb::Status::OK();
    polled_at_ = sealed;
    return Poll();
  }
  rdb::Status Poll() {
    if (!enabled_) return rdb::Status::OK();
    memrep::AutoCounters counters;
    rdb::Status s = memrep::rocksdb_plugin::GetAutoCounters(*factory_, &counters);
    if (!s.ok()) return s;
    memtables_ = counters.memtables;
    for (const memrep::AutoDecision& d : counters.recent) {
      choices_[d.memtable] = Choice{d.rep, d.switched};
    }
    return rdb::Status::OK();
  }
  uint64_t memtables() const { return memtables_; }
  const std::map<uint64_t, Choice>& choices() const { return choices_; }

 private:
  const rdb::MemTableRepFactory* factory_;
  bool enabled_;
  uint64_t polled_at_ = 0;
  uint64_t memtables_ = 0;
  std::map<uint64_t, Choice> choices_;
};

// ---------------------------------------------------------------------------
// Figures

struct PhaseFigures {
  double seconds = 0;
  uint64_t ops = 0;            // Puts, Gets and scans of the phase's timed thread(s)
  uint64_t reader_gets = 0;    // the readers phase's reader threads
  uint64_t switches = 0;       // memtables sealed during the phase
  uint64_t last_memtable = 0;  // memrep.Auto: memtables made by the phase's end
};

struct RunFigures {
  PhaseFigures phases[kPhases];
  std::map<uint64_t, Choice> choices;  // memrep.Auto's, by memtable index
  double total() const {
    double sum = 0;
    for (const PhaseFigures& p : phases) sum += p.seconds;
    return sum;
  }
};

// What one run needs: the database, the options, the values, the counters.
struct Run {
  const Flags& flags;
  rdb::DB* db;
  const Values& values;
  const SwitchCounter& counter;
  AutoTracker* tracker;
  rdb::WriteOptions write_options;
  rdb::ReadOptions read_options;
};

// The message of a failed check or RocksDB error for key `key`.
std::string KeyError(const std::string& what, rdb::Slice key, const std::string& detail) {
  return what + " of key " + Hex(key) + ": " + detail;
}

bool Failed(const rdb::Status& s, const char* what, std::string* error) {
  if (s.ok()) return false;
  *error = std::string(what) + ": " + s.ToString();
  return true;
}

// ---------------------------------------------------------------------------
// The phases. Each returns false with `error` set on a RocksDB error or a
// failed check; `ops` counts what it did.

bool Bulk(Run& run, const Keys& keys, uint64_t entries, uint64_t* ops, std::string* error) {
  std::string value = run.values.Buffer();
  for (uint64_t first = 0; first < entries; first += kBatch) {
    rdb::WriteBatch batch;
    const uint64_t end = std::min(entries, first + kBatch);
    for (uint64_t i = first; i < end; ++i) {
      run.values.Set(keys[i], &value);
      if (Failed(batch.Put(keys[i], value), "WriteBatch::Put", error)) return false;
    }
    const std::string what = "Write of the batch of the phase's entries " + std::to_string(first) +
                             " to " + std::to_string(end - 1);
    if (Failed(run.db->Write(run.write_options, &batch), what.c_str(), error)) return false;
    if (Failed(run.tracker->MaybePoll(run.counter.sealed()), "GetAutoCounters", error)) {
      return false;
    }
  }
  *ops = entries;
  return true;
}

// A Get of `key`, which must be found with its value.
bool CheckedGet(Run& run, rdb::Slice key, std::string* value, std::string* error) {
  const rdb::Status s = run.db->Get(run.read_options, key, value);
  if (!s.ok()) {
    *error = KeyError("Get", key, s.ToString());
    return false;
  }
  if (!run.values.Matches(key, *value)) {
    *error = KeyError("Get", key, "returned a different value");
    return false;
  }
  return true;
}

// The index of a key among the last kRecent of the `written` first.
uint64_t PickRecent(std::mt19937_64* rng, uint64_t written) {
  return written - 1 - (*rng)() % std::min(written, kRecent);
}

bool ReadWrite(Run& run, const Keys& keys, uint64_t entries, uint64_t* ops, std::string* error) {
  std::mt19937_64 picker(Mix64(run.flags.seed + 1));
  std::string value = run.values.Buffer();
  std::string found;
  for (uint64_t i = 0; i < entries; ++i) {
    run.values.Set(keys[i], &value);
    const rdb::Status s = run.db->Put(run.write_options, keys[i], value);
    if (!s.ok()) {
      *error = KeyError("Put", keys[i], s.ToString());
      return false;
    }
    if (!CheckedGet(run, keys[PickRecent(&picker, i + 1)], &found, error)) return false;
    if (Failed(run.tracker->MaybePoll(run.counter.sealed()), "GetAutoCounters", error)) {
      return false;
    }
  }
  *ops = 2 * entries;
  return true;
}

// A scan from `target`: the entry the Seek lands on and up to kScanLength
// more (one Next each), each greater than the one before and holding its
// key's value. A new iterator for every scan.
bool CheckedScan(Run& run, rdb::Slice target, std::string* error) {
  std::unique_ptr<rdb::Iterator> it(run.db->NewIterator(run.read_options));
  it->Seek(target);
  std::string previous;
  for (uint64_t n = 0; it->Valid() && n <= kScanLength; ++n) {
    const rdb::Slice key = it->key();
    if ((n > 0 && key.compare(previous) <= 0) || key.compare(target) < 0) {
      *error = KeyError("scan from " + Hex(target) + ": Next", key, "out of order");
      return false;
    }
    if (!run.values.Matches(key, it->value())) {
      *error = KeyError("scan from " + Hex(target) + ": Next", key, "a different value");
      return false;
    }
    if (n == kScanLength) break;
    previous.assign(key.data(), key.size());
    it->Next();
  }
  if (!it->status().ok()) {
    *error = KeyError("scan from", target, it->status().ToString());
    return false;
  }
  return true;
}

bool ScanWrite(Run& run, const Keys& keys, uint64_t entries, uint64_t* ops, std::string* error) {
  std::mt19937_64 targets(Mix64(run.flags.seed + 2));
  std::string value = run.values.Buffer();
  std::string target(run.flags.key_size, '\0');
  for (uint64_t i = 0; i < entries; ++i) {
    run.values.Set(keys[i], &value);
    const rdb::Status s = run.db->Put(run.write_options, keys[i], value);
    if (!s.ok()) {
      *error = KeyError("Put", keys[i], s.ToString());
      return false;
    }
    if (i % kWritesPerScan == kWritesPerScan - 1) {
      RandomBytes(&targets, target.data(), target.size());
      if (!CheckedScan(run, target, error)) return false;
    }
    if (Failed(run.tracker->MaybePoll(run.counter.sealed()), "GetAutoCounters", error)) {
      return false;
    }
  }
  *ops = entries + entries / kWritesPerScan;
  return true;
}

// The readers phase's shared state: the writer publishes how many keys it
// has written; the first failure stops every thread.
struct Shared {
  std::atomic<uint64_t> written{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::string error;  // the first failure

  void Fail(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error.empty()) error = message;
    stop.store(true, std::memory_order_relaxed);
  }
};

// Does `quota` Gets of recent keys, then stops (or at the first failure).
void Reader(Run& run, const Keys& keys, uint64_t id, uint64_t quota, Shared* shared,
            uint64_t* gets) {
  std::mt19937_64 picker(Mix64(run.flags.seed + 16 + id));
  std::string found, error;
  while (!shared->go.load(std::memory_order_acquire)) std::this_thread::yield();
  uint64_t done = 0;
  while (done < quota && !shared->stop.load(std::memory_order_relaxed)) {
    const uint64_t written = shared->written.load(std::memory_order_acquire);
    if (written == 0) {
      std::this_thread::yield();
      continue;
    }
    if (!CheckedGet(run, keys[PickRecent(&picker, written)], &found, &error)) {
      shared->Fail("reader " + std::to_string(id) + ": " + error);
      break;
    }
    ++done;
  }
  *gets = done;
}

bool Readers(Run& run, const Keys& keys, uint64_t entries, PhaseFigures* figures,
             std::string* error) {
  Shared shared;
  std::vector<uint64_t> gets(kReaders, 0);
  std::vector<std::thread> readers;
  for (uint64_t id = 0; id < kReaders; ++id) {
    readers.emplace_back(Reader, std::ref(run), std::cref(keys), id,
                         entries * kReadsPerWrite / kReaders, &shared, &gets[id]);
  }
  std::string value = run.values.Buffer();
  const Clock::time_point start = Clock::now();
  shared.go.store(true, std::memory_order_release);
  for (uint64_t i = 0; i < entries && !shared.stop.load(std::memory_order_relaxed); ++i) {
    run.values.Set(keys[i], &value);
    rdb::Status s = run.db->Put(run.write_options, keys[i], value);
    if (!s.ok()) {
      shared.Fail(KeyError("Put", keys[i], s.ToString()));
      break;
    }
    shared.written.store(i + 1, std::memory_order_release);
    s = run.tracker->MaybePoll(run.counter.sealed());
    if (!s.ok()) shared.Fail("GetAutoCounters: " + s.ToString());
  }
  // The phase is done when the writer has written and the readers have read
  // their quotas.
  for (std::thread& t : readers) t.join();
  figures->seconds = Seconds(Clock::now() - start);
  if (!shared.error.empty()) {
    *error = shared.error;
    return false;
  }
  figures->ops = entries;
  for (uint64_t g : gets) figures->reader_gets += g;
  return true;
}

// Runs phase `phase` on `entries` fresh keys from `rng`, timed, and fills
// its figures.
bool RunPhase(Run& run, Phase phase, std::mt19937_64* rng, uint64_t entries, PhaseFigures* figures,
              std::string* error) {
  const Keys keys(rng, entries, run.flags.key_size);
  const uint64_t sealed_before = run.counter.sealed();
  bool ok = true;
  if (phase == kReadersPhase) {
    ok = Readers(run, keys, entries, figures, error);
  } else {
    const Clock::time_point start = Clock::now();
    ok = phase == kBulk        ? Bulk(run, keys, entries, &figures->ops, error)
         : phase == kReadWrite ? ReadWrite(run, keys, entries, &figures->ops, error)
                               : ScanWrite(run, keys, entries, &figures->ops, error);
    figures->seconds = Seconds(Clock::now() - start);
  }
  if (!ok) return false;
  figures->switches = run.counter.sealed() - sealed_before;
  if (Failed(run.tracker->Poll(), "GetAutoCounters", error)) return false;
  figures->last_memtable = run.tracker->memtables();
  return true;
}

rdb::Options DbOptions(const Flags& flags) {
  rdb::Options options;
  options.create_if_missing = true;
  options.compression = rdb::kNoCompression;
  options.write_buffer_size = flags.write_buffer_size;
  options.max_write_buffer_number = static_cast<int>(kMaxWriteBuffers);
  options.max_background_jobs = static_cast<int>(kBackgroundJobs);
  return options;  // allow_concurrent_memtable_write: RocksDB's default (true)
}

bool HasAutoCounters(const rdb::MemTableRepFactory& factory) {
  memrep::AutoCounters counters;
  return memrep::rocksdb_plugin::GetAutoCounters(factory, &counters).ok();
}

// The four phases against one database in `dir`. On failure, `error` says
// which phase and key.
bool RunPhases(const Flags& flags, const std::string& spec, const std::string& dir,
               RunFigures* figures, std::string* error) {
  rdb::Options options = DbOptions(flags);
  if (Failed(NewFactory(spec, &options.memtable_factory), "creating the memtable factory", error)) {
    return false;
  }
  auto counter = std::make_shared<SwitchCounter>();
  options.listeners.push_back(counter);
  rdb::DB* raw = nullptr;
  if (Failed(rdb::DB::Open(options, dir, &raw), ("opening " + dir).c_str(), error)) return false;
  std::unique_ptr<rdb::DB> db(raw);

  const Values values(flags.seed, flags.value_size);
  AutoTracker tracker(options.memtable_factory.get(),
                      IsAuto(spec) && HasAutoCounters(*options.memtable_factory));
  Run run{flags, db.get(), values, *counter, &tracker, rdb::WriteOptions(), rdb::ReadOptions()};
  run.write_options.disableWAL = true;
  // One generator for the run's keys, phase after phase: every rep and round
  // writes the same keys.
  std::mt19937_64 rng(flags.seed);
  const uint64_t entries = EntriesPerPhase(flags);
  for (int p = 0; p < kPhases; ++p) {
    if (!RunPhase(run, static_cast<Phase>(p), &rng, entries, &figures->phases[p], error)) {
      *error = std::string(kPhaseNames[p]) + ": " + *error;
      return false;
    }
  }
  figures->choices = tracker.choices();
  return !Failed(db->Close(), ("closing " + dir).c_str(), error);
}

// A fresh directory under `parent` for one run, removed (DestroyDB, then the
// directory) when the run is over.
bool RunInFreshDir(const Flags& flags, const std::string& spec, const std::string& parent,
                   RunFigures* figures, std::string* error) {
  std::string dir = (fs::path(parent) / "run-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    *error = "cannot create a directory under " + parent + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = RunPhases(flags, spec, dir, figures, error);
  const rdb::Status destroyed = rdb::DestroyDB(dir, rdb::Options());
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ok && (!destroyed.ok() || ec)) {
    *error = "removing " + dir + ": " + (ec ? ec.message() : destroyed.ToString());
    return false;
  }
  return ok;
}

// The parent of the runs' directories: --db, or a fresh directory under /tmp.
// Removed at exit if empty (--db may hold other things).
class ParentDir {
 public:
  ParentDir() = default;
  ParentDir(const ParentDir&) = delete;
  ParentDir& operator=(const ParentDir&) = delete;
  ~ParentDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }

  bool Create(const std::string& db_flag, std::string* error) {
    std::error_code ec;
    if (!db_flag.empty()) {
      fs::create_directories(db_flag, ec);
      if (ec) {
        *error = "--db: cannot create " + db_flag + ": " + ec.message();
        return false;
      }
      path_ = db_flag;
      return true;
    }
    std::string dir = (fs::temp_directory_path(ec) / "memrep_phased-XXXXXX").string();
    if (ec || mkdtemp(dir.data()) == nullptr) {
      *error = "cannot create a directory under /tmp: " +
               (ec ? ec.message() : std::string(std::strerror(errno)));
      return false;
    }
    path_ = dir;
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------
// memrep.Auto's choices in one phase

struct AutoPhase {
  uint64_t first = 0;  // the phase's memtables: those made during it, [first, last]
  uint64_t last = 0;   // (the first phase's include the one made at DB::Open)
  std::vector<std::pair<std::string, uint64_t>> runs;  // rep, memtables in a row
  std::string from;       // the rep before the phase's first memtable, if that one switched
  uint64_t switches = 0;  // memtables of the phase whose rep differs from the one before
  int64_t settled = -1;   // switches up to the final run's start; -1: never settled
  uint64_t missing = 0;   // memtables whose decision was not seen
};

AutoPhase SummarizeAuto(const std::map<uint64_t, Choice>& choices, uint64_t first, uint64_t last) {
  AutoPhase phase;
  phase.first = first;
  phase.last = last;
  bool last_switched = false;
  for (uint64_t m = first; m <= last; ++m) {
    const auto it = choices.find(m);
    const std::string rep = it == choices.end() ? "?" : it->second.rep;
    last_switched = it != choices.end() && it->second.switched;
    if (it == choices.end()) ++phase.missing;
    if (last_switched) ++phase.switches;
    if (last_switched && m == first) {
      const auto before = choices.find(m - 1);
      phase.from = before == choices.end() ? "?" : before->second.rep;
    }
    if (phase.runs.empty() || phase.runs.back().first != rep) {
      phase.runs.emplace_back(rep, 0);
      phase.settled = static_cast<int64_t>(phase.switches);
    }
    ++phase.runs.back().second;
  }
  // A rep reached on the phase's last memtable is not known to be kept.
  if (phase.runs.empty() || (phase.runs.back().second == 1 && last_switched)) phase.settled = -1;
  return phase;
}

// Each phase's summary of one run.
std::vector<AutoPhase> AutoPhases(const RunFigures& figures) {
  std::vector<AutoPhase> phases;
  uint64_t first = 1;
  for (const PhaseFigures& p : figures.phases) {
    phases.push_back(SummarizeAuto(figures.choices, first, p.last_memtable));
    first = std::max(first, p.last_memtable + 1);
  }
  return phases;
}

// The phase's runs, "memrep.Vector×2 → memrep.Trie×21"; past kShownRuns runs,
// the first and last few, with how many were left out between (the JSON has all).
std::string Sequence(const AutoPhase& phase) {
  constexpr size_t kShownRuns = 12;
  if (phase.runs.empty()) return "no new memtable";
  std::string out = phase.from.empty() ? "" : "(from " + phase.from + ") ";
  const size_t n = phase.runs.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > kShownRuns && i == kShownRuns / 2) {
      out += " → … " + std::to_string(n - kShownRuns) + " more runs …";
      i += n - kShownRuns - 1;
      continue;
    }
    out += (i == 0 ? "" : " → ") + phase.runs[i].first + "×" + std::to_string(phase.runs[i].second);
  }
  return out;
}

std::string Settled(const AutoPhase& phase) {
  if (phase.runs.empty()) return "-";
  if (phase.settled < 0) return "never settled";
  return "settled after " + std::to_string(phase.settled) +
         (phase.settled == 1 ? " switch" : " switches");
}

// ---------------------------------------------------------------------------
// Medians and output

std::string Format(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string JsonNumber(double value) {
  if (std::isnan(value) || std::isinf(value)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

struct RunRecord {
  uint64_t round;
  size_t rep;
  RunFigures figures;
};

struct RepMedians {
  double seconds[kPhases] = {};
  double ops_per_s[kPhases] = {};
  double reader_gets_per_s = NAN;
  double total = 0;  // the sum of the phases' medians
  double vs_best_fixed = NAN;
  double vs_skip_list = NAN;
};

std::vector<RepMedians> Medians(const Flags& flags, const std::vector<RunRecord>& runs) {
  std::vector<RepMedians> medians(flags.reps.size());
  for (size_t r = 0; r < medians.size(); ++r) {
    RepMedians& m = medians[r];
    std::vector<double> gets_per_s;
    for (int p = 0; p < kPhases; ++p) {
      std::vector<double> seconds;
      uint64_t ops = 0;
      for (const RunRecord& run : runs) {
        if (run.rep != r) continue;
        const PhaseFigures& figures = run.figures.phases[p];
        seconds.push_back(figures.seconds);
        ops = figures.ops;  // the same every round
        if (p == kReadersPhase) {
          gets_per_s.push_back(static_cast<double>(figures.reader_gets) / figures.seconds);
        }
      }
      m.seconds[p] = Median(seconds);
      m.ops_per_s[p] = static_cast<double>(ops) / m.seconds[p];
      m.total += m.seconds[p];
    }
    m.reader_gets_per_s = Median(gets_per_s);
  }
  double best_fixed = NAN, skip_list = NAN;
  for (size_t r = 0; r < medians.size(); ++r) {
    const double total = medians[r].total;
    if (!IsAuto(flags.reps[r]) && (std::isnan(best_fixed) || total < best_fixed)) {
      best_fixed = total;
    }
    if (flags.reps[r] == "skip_list") skip_list = medians[r].total;
  }
  for (RepMedians& m : medians) {
    m.vs_best_fixed = m.total / best_fixed;
    m.vs_skip_list = m.total / skip_list;
  }
  return medians;
}

void PrintRun(const std::string& label, const RunFigures& figures) {
  std::printf("%-32s", label.c_str());
  for (int p = 0; p < kPhases; ++p) {
    const PhaseFigures& f = figures.phases[p];
    std::printf(" %s %.2f s (%llu switches),", kPhaseNames[p], f.seconds,
                static_cast<unsigned long long>(f.switches));
  }
  const PhaseFigures& readers = figures.phases[kReadersPhase];
  std::printf(" reader gets/s %.0f, total %.2f s, all checks passed\n",
              static_cast<double>(readers.reader_gets) / readers.seconds, figures.total());
  std::fflush(stdout);
}

void WarnFewSwitches(const Flags& flags, const std::string& label, const RunFigures& figures) {
  for (int p = 0; p < kPhases; ++p) {
    if (figures.phases[p].switches >= flags.switches_per_phase) continue;
    std::fprintf(stderr,
                 "memrep_phased: warning: %s: phase %s saw %llu memtable switches, fewer than "
                 "--switches_per_phase=%llu\n",
                 label.c_str(), kPhaseNames[p],
                 static_cast<unsigned long long>(figures.phases[p].switches),
                 static_cast<unsigned long long>(flags.switches_per_phase));
  }
}

void PrintTable(const Flags& flags, const std::vector<RepMedians>& medians) {
  std::printf(
      "\n| rep | bulk s | ops/s | readwrite s | ops/s | scanwrite s | ops/s | readers s | "
      "writer ops/s | reader gets/s | total s | ÷ best fixed | ÷ skip_list |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t r = 0; r < medians.size(); ++r) {
    const RepMedians& m = medians[r];
    std::printf("| %s |", flags.reps[r].c_str());
    for (int p = 0; p < kPhases; ++p) {
      std::printf(" %s | %s |", Format(m.seconds[p], 3).c_str(), Format(m.ops_per_s[p], 0).c_str());
    }
    std::printf(" %s | %s | %s | %s |\n", Format(m.reader_gets_per_s, 0).c_str(),
                Format(m.total, 3).c_str(), Format(m.vs_best_fixed, 2).c_str(),
                Format(m.vs_skip_list, 2).c_str());
  }
}

void PrintAuto(const Flags& flags, const std::vector<RunRecord>& runs) {
  for (const RunRecord& run : runs) {
    const std::string& spec = flags.reps[run.rep];
    if (!IsAuto(spec)) continue;
    std::printf("\n%s, round %llu: the reps of the memtables made in each phase\n", spec.c_str(),
                static_cast<unsigned long long>(run.round));
    const std::vector<AutoPhase> phases = AutoPhases(run.figures);
    for (int p = 0; p < kPhases; ++p) {
      const AutoPhase& phase = phases[p];
      const std::string missing =
          phase.missing == 0 ? "" : " (" + std::to_string(phase.missing) + " decisions not seen)";
      std::printf("  %-10s memtables %llu-%llu: %s; %s%s\n", kPhaseNames[p],
                  static_cast<unsigned long long>(phase.first),
                  static_cast<unsigned long long>(phase.last), Sequence(phase).c_str(),
                  Settled(phase).c_str(), missing.c_str());
    }
  }
}

// The numeric parameters, in the order they are printed and written.
std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags) {
  return {{"rounds", flags.rounds},
          {"entries_per_phase", EntriesPerPhase(flags)},
          {"switches_per_phase", flags.switches_per_phase},
          {"key_size", flags.key_size},
          {"value_size", flags.value_size},
          {"write_buffer_size", flags.write_buffer_size},
          {"max_write_buffer_number", kMaxWriteBuffers},
          {"max_background_jobs", kBackgroundJobs},
          {"batch", kBatch},
          {"recent", kRecent},
          {"scan_length", kScanLength},
          {"writes_per_scan", kWritesPerScan},
          {"readers", kReaders},
          {"seed", flags.seed}};
}

std::string JsonAutoPhase(const AutoPhase& phase) {
  std::string out = "{\"first_memtable\": " + std::to_string(phase.first) +
                    ", \"last_memtable\": " + std::to_string(phase.last) +
                    ", \"from\": " + (phase.from.empty() ? "null" : JsonString(phase.from)) +
                    ", \"sequence\": [";
  for (size_t i = 0; i < phase.runs.size(); ++i) {
    out += std::string(i == 0 ? "" : ", ") + "{\"rep\": " + JsonString(phase.runs[i].first) +
           ", \"memtables\": " + std::to_string(phase.runs[i].second) + "}";
  }
  return out + "], \"switches\": " + std::to_string(phase.switches) +
         ", \"settled_after\": " + (phase.settled < 0 ? "null" : std::to_string(phase.settled)) +
         ", \"missing_decisions\": " + std::to_string(phase.missing) + "}";
}

std::string JsonRun(const Flags& flags, const RunRecord& run) {
  std::string out = "{\"round\": " + std::to_string(run.round) +
                    ", \"rep\": " + JsonString(flags.reps[run.rep]) + ", \"phases\": {";
  for (int p = 0; p < kPhases; ++p) {
    const PhaseFigures& f = run.figures.phases[p];
    out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[p]) +
           ": {\"seconds\": " + JsonNumber(f.seconds) + ", \"ops\": " + std::to_string(f.ops) +
           ", \"ops_per_s\": " + JsonNumber(static_cast<double>(f.ops) / f.seconds) +
           ", \"switches\": " + std::to_string(f.switches);
    if (p == kReadersPhase) {
      out += ", \"reader_gets\": " + std::to_string(f.reader_gets) + ", \"reader_gets_per_s\": " +
             JsonNumber(static_cast<double>(f.reader_gets) / f.seconds);
    }
    out += "}";
  }
  out += "}, \"total_s\": " + JsonNumber(run.figures.total());
  if (IsAuto(flags.reps[run.rep])) {
    const std::vector<AutoPhase> phases = AutoPhases(run.figures);
    out += ", \"auto\": {";
    for (int p = 0; p < kPhases; ++p) {
      out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[p]) + ": " +
             JsonAutoPhase(phases[p]);
    }
    out += "}";
  }
  return out + "}";
}

std::string JsonMedians(const std::string& spec, const RepMedians& m) {
  std::string out = "{\"rep\": " + JsonString(spec) + ", \"phases\": {";
  for (int p = 0; p < kPhases; ++p) {
    out += std::string(p == 0 ? "" : ", ") + JsonString(kPhaseNames[p]) +
           ": {\"seconds\": " + JsonNumber(m.seconds[p]) +
           ", \"ops_per_s\": " + JsonNumber(m.ops_per_s[p]) + "}";
  }
  return out + "}, \"reader_gets_per_s\": " + JsonNumber(m.reader_gets_per_s) +
         ", \"total_s\": " + JsonNumber(m.total) +
         ", \"vs_best_fixed\": " + JsonNumber(m.vs_best_fixed) +
         ", \"vs_skip_list\": " + JsonNumber(m.vs_skip_list) + "}";
}

bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<RunRecord>& runs,
               const std::vector<RepMedians>& medians, const std::string& load_start,
               const std::string& load_end) {
  std::string json = "{\"params\": {";
  for (const auto& [name, value] : Parameters(flags)) {
    if (json.back() != '{') json += ", ";
    json += JsonString(name) + ": " + std::to_string(value);
  }
  json += ", \"scan_iterator\": \"new per scan\"},\n \"loadavg_start\": " + JsonString(load_start) +
          ", \"loadavg_end\": " + JsonString(load_end) + ",\n \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    json += std::string(i == 0 ? "" : ",") + "\n  " + JsonRun(flags, runs[i]);
  }
  json += "],\n \"medians\": [";
  for (size_t r = 0; r < medians.size(); ++r) {
    json += std::string(r == 0 ? "" : ",") + "\n  " + JsonMedians(flags.reps[r], medians[r]);
  }
  json += "]}\n";
  return std::fputs(json.c_str(), out) >= 0 && std::fflush(out) == 0;
}

void PrintHeader(const Flags& flags, const std::string& parent, const std::string& load_start) {
  std::printf("memrep_phased:");
  for (const auto& [name, value] : Parameters(flags)) {
    std::printf(" %s=%s", name, std::to_string(value).c_str());
  }
  std::printf(
      " db=%s\n  phases: bulk (WriteBatches), readwrite (Put + Get), scanwrite (4 Puts + a scan, a "
      "new iterator per scan), readers (1 writer + %llu readers); WAL off, no compression, "
      "allow_concurrent_memtable_write=true\n",
      parent.c_str(), static_cast<unsigned long long>(kReaders));
  std::printf("load average at start: %s\n", load_start.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::string error;
  if (!ParseFlags(argc, argv, &flags, &error)) {
    if (error.empty()) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::fprintf(stderr, "memrep_phased: %s\n(--help lists the flags)\n", error.c_str());
    return 2;
  }
  // Every rep is created, and the JSON file opened, before anything runs:
  // a bad name costs no time.
  if (!CheckReps(flags, &error)) {
    std::fprintf(stderr, "memrep_phased: %s\n", error.c_str());
    return 2;
  }
  std::FILE* json = nullptr;
  if (!flags.json.empty() && (json = std::fopen(flags.json.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "memrep_phased: --json: cannot write %s: %s\n", flags.json.c_str(),
                 std::strerror(errno));
    return 2;
  }
  ParentDir parent;
  if (!parent.Create(flags.db, &error)) {
    std::fprintf(stderr, "memrep_phased: %s\n", error.c_str());
    if (json != nullptr) std::fclose(json);
    return 2;
  }
  const std::string load_start = LoadAverage();
  PrintHeader(flags, parent.path(), load_start);

  // Reps alternate within each round, in --reps order.
  std::vector<RunRecord> runs;
  for (uint64_t round = 1; round <= flags.rounds; ++round) {
    for (size_t r = 0; r < flags.reps.size(); ++r) {
      const std::string label = "round " + std::to_string(round) + " " + flags.reps[r];
      RunFigures figures;
      if (!RunInFreshDir(flags, flags.reps[r], parent.path(), &figures, &error)) {
        std::fprintf(stderr, "memrep_phased: %s: %s\n", label.c_str(), error.c_str());
        if (json != nullptr) std::fclose(json);
        return 1;
      }
      PrintRun(label, figures);
      WarnFewSwitches(flags, label, figures);
      runs.push_back({round, r, std::move(figures)});
    }
  }

  const std::vector<RepMedians> medians = Medians(flags, runs);
  PrintTable(flags, medians);
  const std::string load_end = LoadAverage();
  std::printf(
      "\nMedians over %llu round(s). s: the phase's wall time (keys drawn beforehand); ops/s: "
      "its Puts, Gets and scans (each one op) per second; readers: the writer's Puts per second "
      "and the %llu readers' Gets per second, both over the phase's time (the phase ends when "
      "the writes and the readers' Gets, 2 per write, are done); total s: the sum of the "
      "four medians; ÷ best fixed: total over the fastest total among the reps not named Auto; "
      "÷ skip_list: total over skip_list's (lower is faster).\n",
      static_cast<unsigned long long>(flags.rounds), static_cast<unsigned long long>(kReaders));
  PrintAuto(flags, runs);
  std::printf("load average at end: %s\n", load_end.c_str());

  if (json != nullptr) {
    const bool written = WriteJson(json, flags, runs, medians, load_start, load_end);
    if (std::fclose(json) != 0 || !written) {
      std::fprintf(stderr, "memrep_phased: --json: writing %s failed\n", flags.json.c_str());
      return 1;
    }
  }
  return 0;
}
