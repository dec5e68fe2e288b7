// memrep_nimbus_import: the "Nimbus scenario" inside a real RocksDB database.
//
// An Ethereum client such as Nimbus imports the chain by persisting big
// WriteBatches of random 32-byte keys (hashes) from one writer thread, and
// reads recent data while it does. This program replays that shape once per
// memtable rep and run: --records records in WriteBatches of --batch records,
// each batch one db->Write (a "persist"), and after every --read_every
// persists, --reads point Gets of keys from the last 10 batches (keys that
// were just written, so mostly still in the memtables). Every Get must find
// its key with the value written: the benchmark doubles as a check.
//
// Figures, per rep, the median over --runs runs (bench/README.md, "The Nimbus
// scenario"): import time, import + final flush time, the p50 / p99 / max
// time of one persist (how long the writer is blocked per persist, memtable
// switches and write stalls included), the number of flushes and their summed
// duration, and the rate of the recent-data reads.
//
// Exit status: 0 every check passed, 1 a check failed or RocksDB returned an
// error (the message says which), 2 bad flags or a rep that cannot be created.
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
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
#include <utility>
#include <vector>

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

constexpr size_t kKeySize = 32;          // a hash, as an Ethereum client's keys are
constexpr size_t kValueSize = 100;       // bytes of every value
constexpr uint64_t kRecentBatches = 10;  // the reads pick keys of this many last batches

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// ---------------------------------------------------------------------------
// Flags

struct Flags {
  uint64_t records = 5000000;
  uint64_t batch = 5000;
  std::vector<std::string> reps = {"skip_list", "vector", "memrep.Vector", "memrep.SortedHash"};
  std::string db = "/tmp/memrep_nimbus";
  uint64_t runs = 3;
  uint64_t read_every = 10;
  uint64_t reads = 1000;
  uint64_t write_buffer_size = 64 << 20;
  uint64_t seed = 0;
  std::string json;
};

constexpr const char* kUsage =
    "usage: memrep_nimbus_import [--name=value ...]\n"
    "  --records=N            records imported per run (5000000)\n"
    "  --batch=N              records per WriteBatch, one db->Write each (5000)\n"
    "  --reps=LIST            comma list of memtable factory strings\n"
    "                         (skip_list,vector,memrep.Vector,memrep.SortedHash)\n"
    "  --db=DIR               parent of the per-run database directories (/tmp/memrep_nimbus)\n"
    "  --runs=N               runs; each runs every rep, the order rotating (3)\n"
    "  --read_every=N         persists between two read phases (10)\n"
    "  --reads=N              Gets of recent keys per read phase; 0: none (1000)\n"
    "  --write_buffer_size=N  memtable bytes (67108864)\n"
    "  --seed=N               seed of the keys and of the reads' picks (0)\n"
    "  --json=FILE            write every run's figures and the medians\n";

// Fills `flags` from argv. On a bad flag, returns false with `error` set.
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
    uint64_t* count = name == "records"             ? &flags->records
                      : name == "batch"             ? &flags->batch
                      : name == "runs"              ? &flags->runs
                      : name == "read_every"        ? &flags->read_every
                      : name == "reads"             ? &flags->reads
                      : name == "write_buffer_size" ? &flags->write_buffer_size
                      : name == "seed"              ? &flags->seed
                                                    : nullptr;
    if (count != nullptr) {
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
  if (flags->records == 0 || flags->batch == 0 || flags->runs == 0 || flags->read_every == 0) {
    *error = "--records, --batch, --runs and --read_every must be at least 1";
    return false;
  }
  if (flags->reps.empty() || flags->db.empty()) {
    *error = "--reps and --db must not be empty";
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Keys and values: record i of every run and rep is the same, from --seed.

// SplitMix64's finalizer: a bijection of 64-bit words, so the first word of
// each key, Mix64(base + 4i), differs for every i: keys never repeat.
uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

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

// ---------------------------------------------------------------------------
// Figures

// One run of one rep. Times in seconds unless named otherwise.
struct Figures {
  // The writer's loop: building the batches and every persist, without the
  // read phases (which are timed on their own).
  double import_s = 0;
  // import_s plus the final db->Flush(wait=true) that empties the memtables.
  double import_flush_s = 0;
  // One persist (db->Write of one batch): the time the writer is blocked,
  // memtable switches and write stalls included. Nearest-rank percentiles.
  double persist_p50_ms = 0;
  double persist_p99_ms = 0;
  double persist_max_ms = 0;
  // Flushes completed (each one is a memtable switched and written out, the
  // final flush included) and the sum of their durations, from OnFlushBegin
  // to OnFlushCompleted, on RocksDB's flush thread.
  double flushes = 0;
  double flush_s = 0;
  // Time RocksDB held writes back (its STALL_MICROS ticker: too many
  // immutable memtables waiting for their flush, or L0 files): the part of
  // the persists' time that a faster flush, not a faster memtable, removes.
  double stall_s = 0;
  // Gets of recent keys per second of the read phases' Gets; NaN without reads.
  double recent_reads_per_s = NAN;
  // The mean time of the first Get of a read phase: it pays for sorting what
  // the memtable had not sorted yet (a skip list sorts on insert instead).
  double first_read_ms = NAN;
};

struct Column {
  const char* json_name;
  const char* heading;
  double Figures::*member;
  int decimals;
};
constexpr Column kColumns[] = {
    {"import_s", "import s", &Figures::import_s, 2},
    {"import_flush_s", "import+flush s", &Figures::import_flush_s, 2},
    {"persist_p50_ms", "persist p50 ms", &Figures::persist_p50_ms, 2},
    {"persist_p99_ms", "p99 ms", &Figures::persist_p99_ms, 2},
    {"persist_max_ms", "max ms", &Figures::persist_max_ms, 2},
    {"flushes", "flushes", &Figures::flushes, 0},
    {"flush_s", "flush s (sum)", &Figures::flush_s, 2},
    {"stall_s", "stall s", &Figures::stall_s, 2},
    {"recent_reads_per_s", "recent reads/s", &Figures::recent_reads_per_s, 0},
    {"first_read_ms", "first read ms", &Figures::first_read_ms, 3},
};

std::string Format(double value, int decimals, const char* nan_text) {
  if (std::isnan(value)) return nan_text;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

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

// ---------------------------------------------------------------------------
// One run

struct Rep {
  std::string spec;  // the factory string, as given
  std::shared_ptr<rdb::MemTableRepFactory> factory;
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

// ---------------------------------------------------------------------------
// Output

std::string JsonFigures(const Figures& figures) {
  std::string out;
  for (const Column& column : kColumns) {
    if (!out.empty()) out += ", ";
    out +=
        std::string("\"") + column.json_name + "\": " + Format(figures.*column.member, 6, "null");
  }
  return out;
}

struct RunRecord {
  uint64_t run;
  size_t rep;
  Figures figures;
};

void PrintTable(const std::vector<Rep>& reps, const std::vector<Figures>& medians) {
  std::printf("\n| rep |");
  for (const Column& column : kColumns) std::printf(" %s |", column.heading);
  std::printf("\n|---|");
  for (size_t c = 0; c < std::size(kColumns); ++c) std::printf("---:|");
  std::printf("\n");
  for (size_t r = 0; r < reps.size(); ++r) {
    std::printf("| %s |", reps[r].spec.c_str());
    for (const Column& column : kColumns) {
      std::printf(" %s |", Format(medians[r].*column.member, column.decimals, "-").c_str());
    }
    std::printf("\n");
  }
}

// The numeric parameters, in the order they are printed and written.
std::vector<std::pair<const char*, uint64_t>> Parameters(const Flags& flags) {
  return {{"records", flags.records},
          {"batch", flags.batch},
          {"key_size", kKeySize},
          {"value_size", kValueSize},
          {"write_buffer_size", flags.write_buffer_size},
          {"max_write_buffer_number", 2},
          {"read_every", flags.read_every},
          {"reads", flags.reads},
          {"recent_batches", kRecentBatches},
          {"runs", flags.runs},
          {"seed", flags.seed}};
}

bool WriteJson(std::FILE* out, const Flags& flags, const std::vector<Rep>& reps,
               const std::vector<RunRecord>& runs, const std::vector<Figures>& medians,
               const std::string& load_start, const std::string& load_end) {
  std::string json = "{\"params\": {";
  for (const auto& [name, value] : Parameters(flags)) {
    if (json.back() != '{') json += ", ";
    json += JsonString(name) + ": " + std::to_string(value);
  }
  json += "},\n \"loadavg_start\": " + JsonString(load_start) +
          ", \"loadavg_end\": " + JsonString(load_end) + ",\n \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    json += std::string(i == 0 ? "" : ",") + "\n  {\"run\": " + std::to_string(runs[i].run) +
            ", \"rep\": " + JsonString(reps[runs[i].rep].spec) + ", " +
            JsonFigures(runs[i].figures) + "}";
  }
  json += "],\n \"medians\": [";
  for (size_t r = 0; r < reps.size(); ++r) {
    json += std::string(r == 0 ? "" : ",") + "\n  {\"rep\": " + JsonString(reps[r].spec) + ", " +
            JsonFigures(medians[r]) + "}";
  }
  json += "]}\n";
  return std::fputs(json.c_str(), out) >= 0 && std::fflush(out) == 0;
}

// Creates every rep's factory. On failure, returns false with `error` set.
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

// Each figure's median over the runs of each rep.
std::vector<Figures> Medians(size_t rep_count, const std::vector<RunRecord>& runs) {
  std::vector<Figures> medians(rep_count);
  for (size_t r = 0; r < rep_count; ++r) {
    for (const Column& column : kColumns) {
      std::vector<double> values;
      for (const RunRecord& record : runs) {
        if (record.rep == r) values.push_back(record.figures.*column.member);
      }
      medians[r].*column.member = Median(values);
    }
  }
  return medians;
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
    std::fprintf(stderr, "memrep_nimbus_import: %s\n(--help lists the flags)\n", error.c_str());
    return 2;
  }
  // Every rep is created, and the JSON file opened, before anything runs:
  // a bad name costs no time.
  std::vector<Rep> reps;
  if (!CreateReps(flags, &reps, &error)) {
    std::fprintf(stderr, "memrep_nimbus_import: %s\n", error.c_str());
    return 2;
  }
  std::FILE* json = nullptr;
  if (!flags.json.empty() && (json = std::fopen(flags.json.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "memrep_nimbus_import: --json: cannot write %s: %s\n", flags.json.c_str(),
                 std::strerror(errno));
    return 2;
  }

  const std::string load_start = LoadAverage();
  std::printf("memrep_nimbus_import:");
  for (const auto& [name, value] : Parameters(flags)) {
    std::printf(" %s=%s", name, std::to_string(value).c_str());
  }
  std::printf(
      " db=%s\n  one writer; WAL on (sync off); allow_concurrent_memtable_write=false; "
      "RocksDB's default compaction\n",
      flags.db.c_str());
  for (const Rep& rep : reps) {
    std::printf("rep %-20s factory %s\n", rep.spec.c_str(), rep.factory->Name());
  }
  std::printf("load average at start: %s\n", load_start.c_str());
  std::fflush(stdout);

  // Reps alternate within each run; the first rep rotates from run to run.
  std::vector<RunRecord> runs;
  for (uint64_t run = 1; run <= flags.runs; ++run) {
    for (size_t k = 0; k < reps.size(); ++k) {
      const size_t r = (run - 1 + k) % reps.size();
      const std::string label = "run " + std::to_string(run) + " " + reps[r].spec;
      Figures figures;
      if (!RunInFreshDir(flags, reps[r], &figures, &error)) {
        std::fprintf(stderr, "memrep_nimbus_import: %s: %s\n", label.c_str(), error.c_str());
        if (json != nullptr) std::fclose(json);
        return 1;
      }
      std::printf(
          "%-26s import %.2f s, +flush %.2f s, persist p50 %.2f p99 %.2f max %.2f ms, "
          "%.0f flushes (%.2f s), recent reads/s %s, all found\n",
          label.c_str(), figures.import_s, figures.import_flush_s, figures.persist_p50_ms,
          figures.persist_p99_ms, figures.persist_max_ms, figures.flushes, figures.flush_s,
          Format(figures.recent_reads_per_s, 0, "-").c_str());
      std::fflush(stdout);
      runs.push_back({run, r, figures});
    }
  }
  std::error_code ec;
  fs::remove(flags.db, ec);  // only when empty: --db may hold other things

  const std::vector<Figures> medians = Medians(reps.size(), runs);
  PrintTable(reps, medians);
  const std::string load_end = LoadAverage();
  std::printf(
      "\nMedians over %s run(s). import s: the writer's loop (batches built and persisted), "
      "read phases excluded; import+flush s: with the final Flush(wait=true); persist: one "
      "db->Write of a batch, as the writer sees it (memtable switches and stalls included); "
      "flushes: completed, the final one included; flush s: their summed duration; recent "
      "reads/s: Gets of keys from the last %s batches.\nload average at end: %s\n",
      std::to_string(flags.runs).c_str(), std::to_string(kRecentBatches).c_str(), load_end.c_str());

  if (json != nullptr) {
    const bool written = WriteJson(json, flags, reps, runs, medians, load_start, load_end);
    if (std::fclose(json) != 0 || !written) {
      std::fprintf(stderr, "memrep_nimbus_import: --json: writing %s failed\n", flags.json.c_str());
      return 1;
    }
  }
  return 0;
}
