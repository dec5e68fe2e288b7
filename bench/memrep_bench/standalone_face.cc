#include "standalone_face.h"

#include <chrono>

#include "workload_phases.h"

namespace memrep::bench {
namespace {

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

bool TableFace::Writer::PutBatch(std::span<const uint32_t> key_indexes) {
  const size_t key_size = keys_.key_size();
  batch_keys_.resize(key_indexes.size() * key_size);
  batch_.clear();
  char* key = batch_keys_.data();
  for (const uint32_t j : key_indexes) {
    const SequenceNumber seq = j + uint64_t{1};
    keys_.Encode(2 * uint64_t{j}, key);
    batch_.push_back(EntryView::Of(std::string_view(key, key_size), seq, ValueType::kValue,
                                   values_.ValueFor(seq)));
    key += key_size;
  }
  last_ = table_.Write(batch_);
  return last_.ok();
}

GetResult GetResultOfValue(uint64_t key_number, const std::string& value, const ValuePool& values) {
  GetResult result;
  result.found = true;
  const SequenceNumber fill_seq = key_number / 2 + 1;
  if (values.Matches(value, fill_seq)) {
    result.seq = fill_seq;
    result.value_ok = true;
  } else {
    result.sequence_known = false;
    result.value_ok = value.size() == values.item_size();
  }
  return result;
}

GetResult TableFace::Reader::Get(uint64_t key_number) {
  keys_.Encode(key_number, key_.data());
  // NotFound is a miss; any other error is one too, and the check says the
  // key was not found.
  if (!table_.Get(key_, kMaxSequenceNumber, &value_).ok()) return GetResult();
  return GetResultOfValue(key_number, value_, values_);
}

void TableFace::Reader::GetBatch(std::span<const uint32_t> key_numbers, GetResult* out) {
  const size_t key_size = keys_.key_size();
  batch_keys_.resize(key_numbers.size() * key_size);
  batch_views_.resize(key_numbers.size());
  for (size_t i = 0; i < key_numbers.size(); ++i) {
    char* key = batch_keys_.data() + i * key_size;
    keys_.Encode(key_numbers[i], key);
    batch_views_[i] = std::string_view(key, key_size);
  }
  Status s = table_.MultiGet(batch_views_, kMaxSequenceNumber, &batch_values_, &batch_statuses_);
  for (size_t i = 0; i < key_numbers.size(); ++i) {
    // A failed call or key is a miss, and the check says the key was not found.
    out[i] = s.ok() && batch_statuses_[i].ok()
                 ? GetResultOfValue(key_numbers[i], batch_values_[i], values_)
                 : GetResult();
  }
}

Status OpenStandaloneTable(const RepFactory& factory, const Flags& flags,
                           std::unique_ptr<MemTable>* out) {
  if (!factory.memrep() && !factory.standalone_peer()) {
    return Status::InvalidArgument(
        factory.name() +
        " is RocksDB's rep: the standalone face runs memrep's reps and the standalone peers");
  }
  MemTableOptions options;
  options.rep = factory.memrep_options();
  options.write_buffer_size = factory.write_buffer_size();
  options.arena_block_size = flags.arena_block_size;
  Status s = MemTable::Open(options, out);
  if (!s.ok()) {
    return Status::InvalidArgument(factory.name() + ": MemTable::Open(rep=" + options.rep +
                                   "): " + s.ToString());
  }
  return Status::OK();
}

Status FillStandaloneDataSet(MemTable& table, const WorkloadInput& input) {
  TableFace face(table);
  return FillDataSetOn(face, input);
}

Measurement RunStandalonePhase(const WorkloadInfo& workload, MemTable& table,
                               const WorkloadInput& input) {
  TableFace face(table);
  Measurement m = RunPhaseOn(workload, face, input);
  m.face = BenchFace::kStandalone;
  return m;
}

Measurement RunStandaloneWorkload(const WorkloadInfo& workload, const RepFactory& factory,
                                  const WorkloadInput& input) {
  Measurement m;
  std::unique_ptr<MemTable> table;
  const Clock::time_point start = Clock::now();
  Status s = OpenStandaloneTable(factory, *input.flags, &table);
  const double create_micros = MicrosSince(start);
  if (!s.ok()) {
    m.ok = false;
    m.error = s.message();
    return m;
  }
  if (workload.kind != WorkloadKind::kWrite) {
    s = FillStandaloneDataSet(*table, input);
    if (!s.ok()) {
      m.ok = false;
      m.error = "the untimed fill before " + workload.name + " failed: " + s.message();
      return m;
    }
    if (workload.kind == WorkloadKind::kRead && input.flags->freeze_before_reads) {
      TableFace face(*table);
      face.Freeze();
    }
  }
  m = RunStandalonePhase(workload, *table, input);
  m.create_micros = create_micros;
  const Clock::time_point destroy = Clock::now();
  table.reset();
  m.destroy_micros = MicrosSince(destroy);
  return m;
}

}  // namespace memrep::bench
