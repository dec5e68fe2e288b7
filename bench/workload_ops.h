// The operations workloads are made of, and the checks on their answers,
// written once for every rep: Put through Allocate + InsertKey[Concurrently],
// Get through RocksDB's callback protocol, seeks and scans through
// MemTableRep::Iterator.
#pragma once

#include <rocksdb/memtablerep.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "entry_codec.h"
#include "memrep/status.h"

namespace memrep::bench {

// Writes entries into one rep. One per thread.
class Inserter {
 public:
  Inserter(ROCKSDB_NAMESPACE::MemTableRep& rep, const KeyCodec& keys, const ValuePool& values,
           bool concurrent)
      : rep_(rep), writer_(keys, values), concurrent_(concurrent) {}

  // false if the rep refused the entry as a duplicate.
  bool Put(uint64_t key_number, SequenceNumber seq) {
    char* buf = nullptr;
    ROCKSDB_NAMESPACE::KeyHandle handle = rep_.Allocate(writer_.entry_size(), &buf);
    writer_.Write(buf, key_number, seq);
    return concurrent_ ? rep_.InsertKeyConcurrently(handle) : rep_.InsertKey(handle);
  }

 private:
  ROCKSDB_NAMESPACE::MemTableRep& rep_;
  EntryWriter writer_;
  const bool concurrent_;
};

// What a Get found for a key.
struct GetResult {
  bool found = false;
  SequenceNumber seq = 0;
  bool value_ok = false;  // the value written with `seq`
};

// Point reads at the newest snapshot. One per thread.
class PointReader {
 public:
  PointReader(ROCKSDB_NAMESPACE::MemTableRep& rep, const KeyCodec& keys, const ValuePool& values)
      : rep_(rep), values_(values), target_(keys) {}

  GetResult Get(uint64_t key_number);

 private:
  ROCKSDB_NAMESPACE::MemTableRep& rep_;
  const ValuePool& values_;
  LookupTarget target_;
};

// The first key number >= `key_number` that the data set holds (an even one).
inline uint64_t PresentAtOrAfter(uint64_t key_number) { return (key_number + 1) & ~uint64_t{1}; }

// The sequences a present key's newest version may have: its fill's
// (index + 1), or, while a writer adds versions, one of the writer's
// (num_keys + 1 .. 2 * num_keys).
struct VersionRule {
  uint64_t num_keys = 0;
  bool rewrites = false;  // a writer is adding versions
  bool Accepts(uint64_t key_number, SequenceNumber seq) const {
    const SequenceNumber fill_seq = key_number / 2 + 1;
    return seq == fill_seq || (rewrites && seq > num_keys && seq <= 2 * num_keys);
  }
};

// Whether a Get of the data set answered right (the fast test of CheckGet).
inline bool GetIsRight(uint64_t key_number, const GetResult& got, const VersionRule& rule) {
  const bool present = key_number % 2 == 0 && key_number / 2 < rule.num_keys;
  return got.found == present && (!present || (rule.Accepts(key_number, got.seq) && got.value_ok));
}

// Checks one Get of the data set: "" if right, else what was wrong.
std::string CheckGet(uint64_t key_number, const GetResult& got, const VersionRule& rule);

// Seeks `it` to `key_number` at the newest snapshot and takes `nexts` steps,
// checking every landing: the first present key at or after the target, then
// (older versions of it, if a writer adds them, and) the next present keys.
// Returns "" if right, else what was wrong.
std::string SeekAndCheck(ROCKSDB_NAMESPACE::MemTableRep::Iterator& it, LookupTarget& target,
                         uint64_t key_number, uint32_t nexts, const KeyCodec& keys,
                         const ValuePool& values, const VersionRule& rule);

// Walks a new iterator from SeekToFirst to the end, checking the order
// (user key ascending, sequence strictly descending within a key) and calling
// visit() on each entry, which may return an error. Counts the entries.
Status ScanInOrder(ROCKSDB_NAMESPACE::MemTableRep& rep, const KeyCodec& keys,
                   const std::function<Status(const DecodedEntry&)>& visit, uint64_t* count);

std::string KeyName(uint64_t key_number);

}  // namespace memrep::bench
