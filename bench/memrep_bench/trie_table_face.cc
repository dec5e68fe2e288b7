#include "trie_table_face.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "memrep/registry.h"
#include "workload_phases.h"

namespace memrep::bench {
namespace {

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// The rep's options with Freeze making `path` a table; InvalidArgument (the
// registry's message) if the rep takes no such options.
Status TableOptions(const RepFactory& factory, const std::string& path, std::string* out) {
  RepSpec spec;
  Status s = RepSpec::Parse(factory.memrep_options(), &spec);
  if (s.ok()) s = spec.Set("convert_to_sst", "kFileMmap");
  if (s.ok()) s = spec.Set("file", path);
  if (s.ok()) s = spec.Validate();
  if (s.ok()) *out = spec.ToString();
  return s;
}

// A table file name of its own under --table_dir.
std::string NewTablePath(const Flags& flags) {
  static std::atomic<uint64_t> next{0};
  return flags.table_dir + "/memrep_bench-" + std::to_string(getpid()) + "-" +
         std::to_string(next.fetch_add(1)) + ".trie";
}

std::string Millis(double micros) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", micros / 1000);
  return text;
}

}  // namespace

GetResult TrieTableFace::Reader::Get(uint64_t key_number) {
  keys_.Encode(key_number, key_.data());
  ValueType type = ValueType::kValue;
  if (!table_.Get(key_, kMaxSequenceNumber, &value_, &type).ok()) return GetResult();
  GetResult result = GetResultOfValue(key_number, value_, values_);
  // The data set holds values only: a deletion found is a wrong answer.
  if (type != ValueType::kValue) result.value_ok = false;
  return result;
}

std::string TrieTableSkipReason(const RepFactory& factory) {
  std::string options;
  Status s = TableOptions(factory, "/table", &options);
  if (s.ok()) return "";
  return "its options make no trie table (" + s.message() + ")";
}

Measurement RunTrieTableWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                                 const WorkloadInput& input) {
  Measurement m;
  const std::string path = NewTablePath(*input.flags);
  std::string options;
  Status s = TableOptions(factory, path, &options);
  std::unique_ptr<MemTable> memtable;
  if (s.ok()) {
    MemTableOptions table_options;
    table_options.rep = options;
    table_options.write_buffer_size = factory.write_buffer_size();
    table_options.arena_block_size = input.flags->arena_block_size;
    s = MemTable::Open(table_options, &memtable);
  }
  if (s.ok()) s = FillStandaloneDataSet(*memtable, input);
  double freeze_micros = 0;
  if (s.ok()) {
    const Clock::time_point start = Clock::now();
    s = memtable->Freeze();
    freeze_micros = MicrosSince(start);
  }
  std::unique_ptr<TrieTable> table;
  double open_micros = 0;
  if (s.ok()) {
    const Clock::time_point start = Clock::now();
    s = TrieTable::Open(path, &table);
    open_micros = MicrosSince(start);
  }
  if (s.ok()) {
    TrieTableFace face(*table);
    m = RunReadPhaseOn(workload, face, input);
    m.create_micros = open_micros;
    m.note = "freeze " + Millis(freeze_micros) + " ms, open " + Millis(open_micros) + " ms" +
             (m.note.empty() ? "" : "; " + m.note);
    const Clock::time_point destroy = Clock::now();
    table.reset();
    m.destroy_micros = MicrosSince(destroy);
  } else {
    m.ok = false;
    m.error = factory.name() + " (" + path + "): " + s.ToString();
  }
  memtable.reset();
  std::remove(path.c_str());
  m.face = BenchFace::kTrieTable;
  return m;
}

}  // namespace memrep::bench
