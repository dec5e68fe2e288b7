// The operations workloads are made of, and the checks on their answers,
// written once for every rep: Put through Allocate + InsertKey[Concurrently],
// Get through RocksDB's callback protocol, seeks and scans through
// MemTableRep::Iterator. The seek and scan checks are templates over a
// cursor (faces.h), so the standalone face (memrep::MemTable) shares them.
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
  // false: the face's Get returns no sequence (memrep::MemTable::Get), and
  // the value is not the fill's version: `seq` is unknown, value_ok says
  // only that its size is right.
  bool sequence_known = true;
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

// A MemTableRep::Iterator as the cursor SeekAndCheck and ScanCursorInOrder
// walk. One per thread.
class RowCursor {
 public:
  RowCursor(ROCKSDB_NAMESPACE::MemTableRep& rep, const KeyCodec& keys)
      : rep_(rep), keys_(keys), target_(keys) {
    Renew();
  }
  // A new iterator, which sees every entry inserted so far (the old one is
  // destroyed first, as a loop that makes one per use would).
  void Renew() {
    it_.reset();
    it_.reset(rep_.GetIterator(nullptr));
  }
  void SeekToFirst() { it_->SeekToFirst(); }
  // To the newest version of the first key >= key_number.
  void Seek(uint64_t key_number) {
    target_.Set(key_number);
    it_->Seek(target_.internal_key(), target_.memtable_key());
  }
  bool Valid() const { return it_->Valid(); }
  void Next() { it_->Next(); }
  DecodedEntry entry() const { return DecodeBenchEntry(it_->key(), keys_); }

 private:
  ROCKSDB_NAMESPACE::MemTableRep& rep_;
  const KeyCodec& keys_;
  LookupTarget target_;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it_;
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
// A value of unknown sequence is right only while a writer adds versions.
inline bool GetIsRight(uint64_t key_number, const GetResult& got, const VersionRule& rule) {
  const bool present = key_number % 2 == 0 && key_number / 2 < rule.num_keys;
  return got.found == present &&
         (!present || (got.value_ok &&
                       (got.sequence_known ? rule.Accepts(key_number, got.seq) : rule.rewrites)));
}

// Checks one Get of the data set: "" if right, else what was wrong.
std::string CheckGet(uint64_t key_number, const GetResult& got, const VersionRule& rule);

std::string KeyName(uint64_t key_number);
// "key 12 seq 7", or what an entry with a foreign key is.
std::string DescribeEntry(const DecodedEntry& e);

// Seeks `cursor` to `key_number` at the newest snapshot and takes `nexts`
// steps, checking every landing: the first present key at or after the
// target, then (older versions of it, if a writer adds them, and) the next
// present keys. Returns "" if right, else what was wrong. Cursor: Seek(key
// number), Valid(), Next(), entry() (a DecodedEntry); faces.h has both.
template <class Cursor>
std::string SeekAndCheck(Cursor& cursor, uint64_t key_number, uint32_t nexts,
                         const ValuePool& values, const VersionRule& rule) {
  // Messages are built only on a failure: this runs in timed loops.
  auto what = [&] { return "Seek(" + KeyName(key_number) + ")"; };
  const uint64_t end = 2 * rule.num_keys;  // key numbers of the data set are < end
  cursor.Seek(key_number);
  const uint64_t expected = PresentAtOrAfter(key_number);
  if (expected >= end) {
    if (cursor.Valid()) {
      return what() + " found " + DescribeEntry(cursor.entry()) + " past the last key";
    }
    return "";
  }
  if (!cursor.Valid()) return what() + " found nothing; expected " + KeyName(expected);
  DecodedEntry e = cursor.entry();
  if (!e.ours || e.key_number != expected || !rule.Accepts(e.key_number, e.seq) ||
      !values.Matches(e.value, e.seq)) {
    return what() + " landed on " + DescribeEntry(e) + "; expected " + KeyName(expected);
  }
  for (uint32_t step = 1; step <= nexts; ++step) {
    const DecodedEntry prev = e;
    cursor.Next();
    if (!cursor.Valid()) {
      if (prev.key_number + 2 == end) return "";  // the last key: the end is right
      return what() + " ended after " + DescribeEntry(prev) + " at Next() " + std::to_string(step) +
             "; expected " + KeyName(prev.key_number + 2);
    }
    e = cursor.entry();
    const bool older_version =
        rule.rewrites && e.ours && e.key_number == prev.key_number && e.seq < prev.seq;
    const bool next_key = e.ours && e.key_number == prev.key_number + 2;
    if ((!older_version && !next_key) || !rule.Accepts(e.key_number, e.seq) ||
        !values.Matches(e.value, e.seq)) {
      return what() + ", Next() " + std::to_string(step) + " went from " + DescribeEntry(prev) +
             " to " + DescribeEntry(e);
    }
  }
  return "";
}

// Walks `cursor` from SeekToFirst to the end, checking the order (user key
// ascending, sequence strictly descending within a key) and calling visit()
// on each entry, which may return an error. Counts the entries. Cursor:
// SeekToFirst(), Valid(), Next(), entry().
template <class Cursor>
Status ScanCursorInOrder(Cursor& cursor, const std::function<Status(const DecodedEntry&)>& visit,
                         uint64_t* count) {
  *count = 0;
  DecodedEntry prev;
  for (cursor.SeekToFirst(); cursor.Valid(); cursor.Next()) {
    const DecodedEntry e = cursor.entry();
    if (!e.ours) return Status::InvalidArgument("scan found " + DescribeEntry(e));
    if (*count > 0 && !(e.key_number > prev.key_number ||
                        (e.key_number == prev.key_number && e.seq < prev.seq))) {
      return Status::InvalidArgument("scan out of order: " + DescribeEntry(prev) + " then " +
                                     DescribeEntry(e));
    }
    Status s = visit(e);
    if (!s.ok()) return s;
    prev = e;
    ++*count;
  }
  return Status::OK();
}

// ScanCursorInOrder on a new iterator of `rep`.
Status ScanInOrder(ROCKSDB_NAMESPACE::MemTableRep& rep, const KeyCodec& keys,
                   const std::function<Status(const DecodedEntry&)>& visit, uint64_t* count);

}  // namespace memrep::bench
