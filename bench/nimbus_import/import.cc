#include "import.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string_view>
#include <utility>

#include "common/program_util.h"

namespace memrep::nimbus_import {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using bench_program::Mix64;
using bench_program::Seconds;

namespace {

// Keys and values: record i of every run and rep is the same, from --seed.
// Mix64 is a bijection of 64-bit words, so the first word of each key,
// Mix64(base + 4i), differs for every i: keys never repeat.
class Records {
 public:
  explicit Records(uint64_t seed) : key_base_(Mix64(seed)), value_base_(Mix64(~seed)) {}

  void Key(uint64_t i, char* out) const {
    for (uint64_t word = 0; word < kKeySize / 8; ++word) {
      const uint64_t bits = Mix64(key_base_ + 4 * i + word);
      std::memcpy(out + 8 * word, &bits, 8);
    }
  }
  void Value(uint64_t i, char* out) const {
    const uint64_t v = Mix64(value_base_ + i);
    for (size_t at = 0; at < kValueSize; at += 8) {
      const uint64_t bits = Mix64(v + at);
      std::memcpy(out + at, &bits, std::min<size_t>(8, kValueSize - at));
    }
  }

 private:
  uint64_t key_base_;
  uint64_t value_base_;
};

// Nearest rank: the smallest sample with at least `p` of the samples at or below it.
double Percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
  return samples[std::max<size_t>(rank, 1) - 1];
}

// Counts flushes and sums their durations. Callbacks come from RocksDB's
// flush threads; the mutex guards the figures and the open flushes.
class FlushTimer final : public rdb::EventListener {
 public:
  void OnFlushBegin(rdb::DB* /*db*/, const rdb::FlushJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mutex_);
    began_[info.job_id] = Clock::now();
  }
  void OnFlushCompleted(rdb::DB* /*db*/, const rdb::FlushJobInfo& info) override {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = began_.find(info.job_id);
    if (it == began_.end()) return;
    ++count_;
    total_ += now - it->second;
    began_.erase(it);
  }
  void Read(double* count, double* seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    *count = static_cast<double>(count_);
    *seconds = Seconds(total_);
  }

 private:
  std::mutex mutex_;
  std::map<int, Clock::time_point> began_;
  uint64_t count_ = 0;
  Clock::duration total_{};
};

rdb::Options DbOptions(const Flags& flags, const Rep& rep) {
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = flags.write_buffer_size;
  options.max_write_buffer_number = 2;
  // RocksDB's vector cannot take concurrent inserts; every rep runs without
  // them so that all compare on the same write path (one writer anyway).
  options.allow_concurrent_memtable_write = false;
  options.memtable_factory = rep.factory;
  return options;  // WAL on and RocksDB's default (level) compaction
}

// Gets of `reads` keys picked among the last kRecentBatches batches' records
// [0, written). Adds the time of the Gets alone to `*read_time`. Returns false with
// `error` set when a Get fails or does not return the written value.
bool ReadRecent(rdb::DB* db, const Records& records, uint64_t written, uint64_t window,
                uint64_t reads, std::mt19937_64* picker, Clock::duration* read_time,
                Clock::duration* first_read_time, std::string* error) {
  const uint64_t first = written - std::min(written, window);
  std::uniform_int_distribution<uint64_t> pick(first, written - 1);
  std::vector<uint64_t> picks(reads);
  std::string keys(reads * kKeySize, '\0');
  for (uint64_t r = 0; r < reads; ++r) {
    picks[r] = pick(*picker);
    records.Key(picks[r], keys.data() + r * kKeySize);
  }
  const rdb::ReadOptions read_options;
  std::vector<std::string> values(reads);
  std::vector<rdb::Status> statuses(reads);
  const Clock::time_point start = Clock::now();
  for (uint64_t r = 0; r < reads; ++r) {
    statuses[r] =
        db->Get(read_options, rdb::Slice(keys.data() + r * kKeySize, kKeySize), &values[r]);
    if (r == 0) *first_read_time += Clock::now() - start;
  }
  *read_time += Clock::now() - start;

  char expected[kValueSize];
  for (uint64_t r = 0; r < reads; ++r) {
    records.Value(picks[r], expected);
    if (!statuses[r].ok() || values[r] != std::string_view(expected, kValueSize)) {
      *error = "Get of record " + std::to_string(picks[r]) + " (of " + std::to_string(written) +
               " written) " +
               (statuses[r].ok() ? "returned a different value" : statuses[r].ToString());
      return false;
    }
  }
  return true;
}

// Imports --records records into a fresh database of `rep` under `dir`.
// Returns false with `error` set on a RocksDB error or a failed read check.
bool RunImport(const Flags& flags, const Rep& rep, const std::string& dir, Figures* figures,
               std::string* error) {
  rdb::Options options = DbOptions(flags, rep);
  options.statistics = rdb::CreateDBStatistics();
  auto flush_timer = std::make_shared<FlushTimer>();
  options.listeners.push_back(flush_timer);
  rdb::DB* raw = nullptr;
  rdb::Status s = rdb::DB::Open(options, dir, &raw);
  if (!s.ok()) {
    *error = "opening " + dir + ": " + s.ToString();
    return false;
  }
  std::unique_ptr<rdb::DB> db(raw);

  const Records records(flags.seed);
  std::mt19937_64 picker(flags.seed);
  const rdb::WriteOptions write_options;  // WAL on, sync off
  std::vector<double> persist_ms;
  persist_ms.reserve(flags.records / flags.batch + 1);
  Clock::duration read_time{};        // the Gets alone: the read rate
  Clock::duration first_read_time{};  // the first Get of each read phase
  uint64_t phases = 0;
  Clock::duration read_phase_time{};  // the read phases whole: left out of import_s
  uint64_t reads_done = 0;
  char key[kKeySize], value[kValueSize];

  const Clock::time_point import_start = Clock::now();
  for (uint64_t written = 0; written < flags.records && s.ok();) {
    const uint64_t end = std::min(flags.records, written + flags.batch);
    rdb::WriteBatch batch;
    for (uint64_t i = written; i < end && s.ok(); ++i) {
      records.Key(i, key);
      records.Value(i, value);
      s = batch.Put(rdb::Slice(key, kKeySize), rdb::Slice(value, kValueSize));
    }
    if (!s.ok()) break;
    const Clock::time_point persist_start = Clock::now();
    s = db->Write(write_options, &batch);
    persist_ms.push_back(Seconds(Clock::now() - persist_start) * 1e3);
    written = end;
    if (s.ok() && flags.reads > 0 && persist_ms.size() % flags.read_every == 0) {
      const Clock::time_point phase_start = Clock::now();
      if (!ReadRecent(db.get(), records, written, kRecentBatches * flags.batch, flags.reads,
                      &picker, &read_time, &first_read_time, error)) {
        return false;
      }
      read_phase_time += Clock::now() - phase_start;
      reads_done += flags.reads;
      ++phases;
    }
  }
  const Clock::time_point import_end = Clock::now();
  if (s.ok()) {
    rdb::FlushOptions flush_options;
    flush_options.wait = true;
    s = db->Flush(flush_options);
  }
  const Clock::time_point flush_end = Clock::now();
  if (!s.ok()) {
    *error = "import: " + s.ToString();
    return false;
  }
  // OnFlushCompleted of the final flush may come just after Flush returns:
  // closing the database waits for the flush threads.
  s = db->Close();
  db.reset();
  if (!s.ok()) {
    *error = "closing " + dir + ": " + s.ToString();
    return false;
  }

  figures->stall_s =
      static_cast<double>(options.statistics->getTickerCount(rdb::STALL_MICROS)) / 1e6;
  figures->import_s = Seconds(import_end - import_start - read_phase_time);
  figures->import_flush_s = figures->import_s + Seconds(flush_end - import_end);
  figures->persist_p50_ms = Percentile(persist_ms, 0.50);
  figures->persist_p99_ms = Percentile(persist_ms, 0.99);
  figures->persist_max_ms = *std::max_element(persist_ms.begin(), persist_ms.end());
  flush_timer->Read(&figures->flushes, &figures->flush_s);
  if (reads_done > 0) {
    figures->recent_reads_per_s = static_cast<double>(reads_done) / Seconds(read_time);
    figures->first_read_ms = Seconds(first_read_time) * 1e3 / static_cast<double>(phases);
  }
  return true;
}

}  // namespace

bool CreateReps(const Flags& flags, std::vector<Rep>* reps, std::string* error) {
  rdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  for (const std::string& spec : flags.reps) {
    Rep rep{spec, nullptr};
    rdb::Status s = rdb::MemTableRepFactory::CreateFromString(config, spec, &rep.factory);
    if (!s.ok() || rep.factory == nullptr) {
      *error = "--reps: cannot create memtable factory '" + spec +
               "': " + (s.ok() ? "no factory returned" : s.ToString()) +
               "\n  (RocksDB's names: skip_list, vector, ...; memrep's: memrep.Vector, "
               "memrep.SortedHash, or an options string such as 'id=memrep.SortedHash; "
               "max_runs=8')";
      return false;
    }
    reps->push_back(std::move(rep));
  }
  return true;
}

// A fresh directory under --db for one run, removed (DestroyDB, then the
// directory) when the run is over.
bool RunInFreshDir(const Flags& flags, const Rep& rep, Figures* figures, std::string* error) {
  std::error_code ec;
  fs::create_directories(flags.db, ec);
  std::string dir = (fs::path(flags.db) / "run-XXXXXX").string();
  if (ec || mkdtemp(dir.data()) == nullptr) {
    *error = "cannot create a directory under --db=" + flags.db +
             (ec ? ": " + ec.message() : ": " + std::string(std::strerror(errno)));
    return false;
  }
  const bool ok = RunImport(flags, rep, dir, figures, error);
  const rdb::Status destroyed = rdb::DestroyDB(dir, DbOptions(flags, rep));
  fs::remove_all(dir, ec);
  if (ok && (!destroyed.ok() || ec)) {
    *error = "removing " + dir + ": " + (ec ? ec.message() : destroyed.ToString());
    return false;
  }
  return ok;
}

}  // namespace memrep::nimbus_import
