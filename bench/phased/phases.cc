#include "phases.h"

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "common/program_util.h"
#include "keys.h"

namespace memrep::phased {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using bench_program::Mix64;
using bench_program::Seconds;

namespace {

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

// The reader phases' shared state: the writer publishes how many keys it
// has written, the readers how many reads they have done (so that the writer
// keeps pace with them); the first failure stops every thread.
struct Shared {
  std::atomic<uint64_t> written{0};
  std::atomic<uint64_t> reads{0};
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

// How far the writer and the readers may run ahead of each other: the
// writer writes key i once the readers have done i x kReadsPerWrite reads,
// less this many, and a reader reads while the reads are at most this many
// past written x kReadsPerWrite. Neither can wait on the other at once.
constexpr uint64_t kPaceSlack = 1000;

// What one reader did.
struct ReaderCounts {
  uint64_t gets = 0;
  uint64_t scans = 0;
};

// Does `quota` reads, then stops (or at the first failure): Gets of recent
// keys, or with `scans` every other read a scan from a random key.
void Reader(Run& run, const Keys& keys, uint64_t id, uint64_t quota, bool scans, Shared* shared,
            ReaderCounts* counts) {
  std::mt19937_64 picker(Mix64(run.flags.seed + 16 + id));
  std::string found, error;
  std::string target(run.flags.key_size, '\0');
  while (!shared->go.load(std::memory_order_acquire)) std::this_thread::yield();
  uint64_t done = 0;
  while (done < quota && !shared->stop.load(std::memory_order_relaxed)) {
    const uint64_t written = shared->written.load(std::memory_order_acquire);
    // The readers keep pace with the writer too (kPaceSlack reads ahead at
    // most): else fast readers finish first and the phase ends write-only.
    if (written == 0 ||
        shared->reads.load(std::memory_order_relaxed) > written * kReadsPerWrite + kPaceSlack) {
      std::this_thread::yield();
      continue;
    }
    const bool scan = scans && done % 2 == 1;
    if (scan) RandomBytes(&picker, target.data(), target.size());
    if (scan ? !CheckedScan(run, target, &error)
             : !CheckedGet(run, keys[PickRecent(&picker, written)], &found, &error)) {
      shared->Fail("reader " + std::to_string(id) + ": " + error);
      break;
    }
    ++(scan ? counts->scans : counts->gets);
    ++done;
    // relaxed: a count the writer and the readers pace themselves by, ordering
    // nothing.
    shared->reads.fetch_add(1, std::memory_order_relaxed);
  }
}

// One writer of the phase's keys beside kReaders reader threads, kReadsPerWrite
// reads per write in all: Gets (the readers phase) or Gets and scans (serve).
// The writer and the readers keep pace with each other (kPaceSlack), so
// that every memtable serves reads beside its writes: neither the writer
// running ahead and the readers reading after it is done, nor the readers
// done first and the writer writing the phase's last memtables alone.
bool Readers(Run& run, const Keys& keys, uint64_t entries, bool scans, PhaseFigures* figures,
             std::string* error) {
  Shared shared;
  std::vector<ReaderCounts> counts(kReaders);
  std::vector<std::thread> readers;
  const uint64_t quota = entries * kReadsPerWrite / kReaders;  // each reader's
  for (uint64_t id = 0; id < kReaders; ++id) {
    readers.emplace_back(Reader, std::ref(run), std::cref(keys), id, quota, scans, &shared,
                         &counts[id]);
  }
  std::string value = run.values.Buffer();
  const Clock::time_point start = Clock::now();
  shared.go.store(true, std::memory_order_release);
  uint64_t alone = 0;  // keys written once the readers had done every read
  for (uint64_t i = 0; i < entries && !shared.stop.load(std::memory_order_relaxed); ++i) {
    while (i * kReadsPerWrite > shared.reads.load(std::memory_order_relaxed) + kPaceSlack &&
           !shared.stop.load(std::memory_order_relaxed)) {
      std::this_thread::yield();
    }
    run.values.Set(keys[i], &value);
    rdb::Status s = run.db->Put(run.write_options, keys[i], value);
    if (!s.ok()) {
      shared.Fail(KeyError("Put", keys[i], s.ToString()));
      break;
    }
    shared.written.store(i + 1, std::memory_order_release);
    if (shared.reads.load(std::memory_order_relaxed) == kReaders * quota) ++alone;
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
  // The pacing's promise, checked: once the readers are done, the reads are
  // at most kPaceSlack (and a step each reader took at once) past twice the
  // keys written, so the writer has at most about kPaceSlack / kReadsPerWrite
  // keys left to write alone.
  constexpr uint64_t kMostAlone = kPaceSlack / kReadsPerWrite + 2 * kReaders;
  if (alone > kMostAlone) {
    *error = "the writer wrote " + std::to_string(alone) + " of the phase's " +
             std::to_string(entries) + " keys after every reader was done (at most " +
             std::to_string(kMostAlone) + "): the readers did not keep pace with it";
    return false;
  }
  figures->ops = entries;
  for (const ReaderCounts& c : counts) {
    figures->reader_gets += c.gets;
    figures->reader_scans += c.scans;
  }
  return true;
}

// Runs phase `phase` on `entries` fresh keys from `rng`, timed, and fills
// its figures.
bool RunPhase(Run& run, Phase phase, std::mt19937_64* rng, uint64_t entries, PhaseFigures* figures,
              std::string* error) {
  const Keys keys(rng, entries, run.flags.key_size);
  const uint64_t sealed_before = run.counter.sealed();
  bool ok = true;
  if (HasReaders(phase)) {
    ok = Readers(run, keys, entries, /*scans=*/phase == kServe, figures, error);
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

// The scenario's phases against one database in `dir`. On failure, `error` says
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
  figures->phases.assign(flags.phases.size(), PhaseFigures{});
  for (size_t p = 0; p < flags.phases.size(); ++p) {
    if (!RunPhase(run, flags.phases[p], &rng, entries, &figures->phases[p], error)) {
      *error = std::string(kPhaseNames[flags.phases[p]]) + ": " + *error;
      return false;
    }
  }
  figures->choices = tracker.choices();
  return !Failed(db->Close(), ("closing " + dir).c_str(), error);
}

}  // namespace

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

ParentDir::~ParentDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove(path_, ec);
}

bool ParentDir::Create(const std::string& db_flag, std::string* error) {
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

}  // namespace memrep::phased
