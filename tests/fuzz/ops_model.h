// What ops_fuzz compares a memtable with: every record it should hold, in the
// order a rep must keep (user key ascending under the table's comparator,
// then sequence descending), with what the standalone face's reads should
// answer. Written independently of memrep: std::string's order is the
// bytewise order, reversed for the reverse comparators.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

#include "memrep/entry.h"

namespace memrep::fuzz {

struct ModelKey {
  std::string user_key;
  SequenceNumber seq = 0;
};

struct ModelOrder {
  bool reverse = false;
  bool operator()(const ModelKey& a, const ModelKey& b) const {
    const int c = a.user_key.compare(b.user_key);  // unsigned bytes, as memcmp
    if (c != 0) return reverse ? c > 0 : c < 0;
    return a.seq > b.seq;
  }
};

struct ModelRecord {
  uint8_t type = 0;
  std::string value;
};

class Model {
 public:
  using Map = std::map<ModelKey, ModelRecord, ModelOrder>;

  explicit Model(bool reverse) : records_(ModelOrder{reverse}) {}

  const Map& records() const { return records_; }
  bool Contains(std::string_view key, SequenceNumber seq) const {
    return records_.count(ModelKey{std::string(key), seq}) != 0;
  }
  void Add(std::string_view key, SequenceNumber seq, uint8_t type, std::string_view value) {
    records_[ModelKey{std::string(key), seq}] = ModelRecord{type, std::string(value)};
  }

  // MemTableIterator::Seek(key, snapshot): the first record of `key` with a
  // sequence <= snapshot, or of a later key.
  Map::const_iterator Seek(std::string_view key, SequenceNumber snapshot) const {
    return records_.lower_bound(ModelKey{std::string(key), snapshot});
  }
  // MemTableIterator::SeekForPrev(key, seq): the last record <= (key, seq),
  // i.e. of `key` with a sequence >= seq, or of an earlier key; end() if none.
  Map::const_iterator SeekForPrev(std::string_view key, SequenceNumber seq) const {
    auto it = records_.upper_bound(ModelKey{std::string(key), seq});
    return it == records_.begin() ? records_.end() : std::prev(it);
  }
  // The record MemTable::Get(key, snapshot) decides by, or nullptr if none.
  const ModelRecord* Visible(std::string_view key, SequenceNumber snapshot) const {
    auto it = Seek(key, snapshot);
    return it != records_.end() && it->first.user_key == key ? &it->second : nullptr;
  }
  // A sequence `key` has a record at (the pick-th, wrapping), if any.
  bool SequenceOf(std::string_view key, unsigned pick, SequenceNumber* seq) const {
    auto first = Seek(key, kMaxSequenceNumber);
    size_t n = 0;
    for (auto it = first; it != records_.end() && it->first.user_key == key; ++it) ++n;
    if (n == 0) return false;
    std::advance(first, pick % n);
    *seq = first->first.seq;
    return true;
  }

 private:
  Map records_;
};

}  // namespace memrep::fuzz
