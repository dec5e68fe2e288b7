#include "workload_ops.h"

#include <cstring>

namespace memrep::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

struct GetState {
  std::string_view user_key;
  const ValuePool* values;
  GetResult* result;
};

// RocksDB's Get protocol: called on the first entry at or after the lookup
// key; stop (return false) whether or not it is the key, as RocksDB's
// SaveValue does for a Put.
bool SaveFirst(void* arg, const char* entry) {
  auto* state = static_cast<GetState*>(arg);
  const EntryView view = DecodeRow(entry);
  if (view.user_key == state->user_key) {
    state->result->found = true;
    state->result->seq = view.sequence();
    state->result->value_ok = state->values->Matches(view.value, view.sequence());
  }
  return false;
}

std::string Describe(const DecodedEntry& e) {
  if (!e.ours) return "an entry with a foreign user key";
  return KeyName(e.key_number) + " seq " + std::to_string(e.seq);
}

}  // namespace

std::string KeyName(uint64_t key_number) { return "key " + std::to_string(key_number); }

GetResult PointReader::Get(uint64_t key_number) {
  target_.Set(key_number);
  GetResult result;
  GetState state{target_.user_key(), &values_, &result};
  rep_.Get(target_.lookup_key(), &state, &SaveFirst);
  return result;
}

std::string CheckGet(uint64_t key_number, const GetResult& got, const VersionRule& rule) {
  const bool present = key_number % 2 == 0 && key_number / 2 < rule.num_keys;
  if (got.found != present) {
    return "Get(" + KeyName(key_number) + ") " + (got.found ? "found" : "did not find") +
           " it, but the key is " + (present ? "present" : "absent");
  }
  if (!present) return "";
  if (!rule.Accepts(key_number, got.seq)) {
    return "Get(" + KeyName(key_number) + ") found seq " + std::to_string(got.seq) +
           ", not a version that was written";
  }
  if (!got.value_ok) return "Get(" + KeyName(key_number) + ") returned a wrong value";
  return "";
}

std::string SeekAndCheck(rdb::MemTableRep::Iterator& it, LookupTarget& target, uint64_t key_number,
                         uint32_t nexts, const KeyCodec& keys, const ValuePool& values,
                         const VersionRule& rule) {
  // Messages are built only on a failure: this runs in timed loops.
  auto what = [&] { return "Seek(" + KeyName(key_number) + ")"; };
  const uint64_t end = 2 * rule.num_keys;  // key numbers of the data set are < end
  target.Set(key_number);
  it.Seek(target.internal_key(), target.memtable_key());
  const uint64_t expected = PresentAtOrAfter(key_number);
  if (expected >= end) {
    if (it.Valid()) {
      return what() + " found " + Describe(DecodeBenchEntry(it.key(), keys)) + " past the last key";
    }
    return "";
  }
  if (!it.Valid()) return what() + " found nothing; expected " + KeyName(expected);
  DecodedEntry e = DecodeBenchEntry(it.key(), keys);
  if (!e.ours || e.key_number != expected || !rule.Accepts(e.key_number, e.seq) ||
      !values.Matches(e.value, e.seq)) {
    return what() + " landed on " + Describe(e) + "; expected " + KeyName(expected);
  }
  for (uint32_t step = 1; step <= nexts; ++step) {
    const DecodedEntry prev = e;
    it.Next();
    if (!it.Valid()) {
      if (prev.key_number + 2 == end) return "";  // the last key: the end is right
      return what() + " ended after " + Describe(prev) + " at Next() " + std::to_string(step) +
             "; expected " + KeyName(prev.key_number + 2);
    }
    e = DecodeBenchEntry(it.key(), keys);
    const bool older_version =
        rule.rewrites && e.ours && e.key_number == prev.key_number && e.seq < prev.seq;
    const bool next_key = e.ours && e.key_number == prev.key_number + 2;
    if ((!older_version && !next_key) || !rule.Accepts(e.key_number, e.seq) ||
        !values.Matches(e.value, e.seq)) {
      return what() + ", Next() " + std::to_string(step) + " went from " + Describe(prev) + " to " +
             Describe(e);
    }
  }
  return "";
}

Status ScanInOrder(rdb::MemTableRep& rep, const KeyCodec& keys,
                   const std::function<Status(const DecodedEntry&)>& visit, uint64_t* count) {
  *count = 0;
  std::unique_ptr<rdb::MemTableRep::Iterator> it(rep.GetIterator(nullptr));
  DecodedEntry prev;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const DecodedEntry e = DecodeBenchEntry(it->key(), keys);
    if (!e.ours) return Status::InvalidArgument("scan found " + Describe(e));
    if (*count > 0 && !(e.key_number > prev.key_number ||
                        (e.key_number == prev.key_number && e.seq < prev.seq))) {
      return Status::InvalidArgument("scan out of order: " + Describe(prev) + " then " +
                                     Describe(e));
    }
    Status s = visit(e);
    if (!s.ok()) return s;
    prev = e;
    ++*count;
  }
  return Status::OK();
}

}  // namespace memrep::bench
