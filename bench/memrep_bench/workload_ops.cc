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

}  // namespace

std::string KeyName(uint64_t key_number) { return "key " + std::to_string(key_number); }

std::string DescribeEntry(const DecodedEntry& e) {
  if (!e.ours) return "an entry with a foreign user key";
  return KeyName(e.key_number) + " seq " + std::to_string(e.seq);
}

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
  if (!got.sequence_known) {
    if (!got.value_ok) return "Get(" + KeyName(key_number) + ") returned a value of a wrong size";
    if (rule.rewrites) return "";
    return "Get(" + KeyName(key_number) +
           ") returned a value other than the one written with seq " +
           std::to_string(key_number / 2 + 1);
  }
  if (!rule.Accepts(key_number, got.seq)) {
    return "Get(" + KeyName(key_number) + ") found seq " + std::to_string(got.seq) +
           ", not a version that was written";
  }
  if (!got.value_ok) return "Get(" + KeyName(key_number) + ") returned a wrong value";
  return "";
}

Status ScanInOrder(rdb::MemTableRep& rep, const KeyCodec& keys,
                   const std::function<Status(const DecodedEntry&)>& visit, uint64_t* count) {
  RowCursor cursor(rep, keys);
  return ScanCursorInOrder(cursor, visit, count);
}

}  // namespace memrep::bench
