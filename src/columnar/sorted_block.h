// SortedBlock: an immutable array of entry references in internal-key order,
// with a fence (the entry's 8-byte key prefix) every kFenceStride entries.
//
//   refs:   [ r0 ][ r1 ] ... [ r15 ][ r16 ] ...   4 bytes per entry
//   fences: [ prefix(e0) ]           [ prefix(e16) ] ...   0.5 byte per entry
//
// A search binary-searches the fences (a compact array) to the window that
// can hold the target, then compares entries in that window only.
//
// Sorting a block's entries is a least-significant-digit radix sort of their
// prefixes (read from the prefix column, 8 bytes each, in one pass), skipping
// the byte positions where every prefix agrees; a big group of entries whose
// prefixes tie (keys with a long common start) is radix-sorted again on its
// next 8 bytes, and small groups are ordered by full comparison. Merging
// compares prefixes first too.
//
// Thread safety: immutable once built; shared by reference count.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/columns.h"
#include "format/coding.h"
#include "format/key_order.h"
#include "memory/page_allocator.h"

namespace memrep::columnar {

// A sort item: an entry, its prefix, and the 8 key bytes a radix pass sorts
// by (the prefix first, then later bytes for keys whose prefixes tie).
struct SortItem {
  uint64_t prefix;
  EntryRef ref;
  uint64_t sort_key = 0;
};

// A search target: an internal key split once.
struct Target {
  Target(const format::KeyOrder& order, std::string_view user, uint64_t target_tag)
      : user_key(user), tag(target_tag), prefix(order.Prefix(user)) {}
  // From an internal key (user key | tag). REQUIRES: internal_key.size() >= 8.
  static Target Of(const format::KeyOrder& order, std::string_view internal_key) {
    return Target(order, internal_key.substr(0, internal_key.size() - 8),
                  format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
  }
  std::string_view user_key;
  uint64_t tag;
  uint64_t prefix;
};

// The order of two entries: prefix, then user key, then sequence descending.
inline int CompareEntries(const BlockTable& table, const format::KeyOrder& order, EntryRef a,
                          uint64_t a_prefix, EntryRef b, uint64_t b_prefix) {
  if (a_prefix != b_prefix) return a_prefix < b_prefix ? -1 : 1;
  const Meta& ma = table.MetaOf(a);
  const Meta& mb = table.MetaOf(b);
  return order.Compare(std::string_view(ma.key, ma.key_len), ma.tag,
                       std::string_view(mb.key, mb.key_len), mb.tag);
}

inline int CompareToTarget(const BlockTable& table, const format::KeyOrder& order, EntryRef a,
                           const Target& t) {
  const uint64_t p = table.PrefixOf(a);
  if (p != t.prefix) return p < t.prefix ? -1 : 1;
  const Meta& m = table.MetaOf(a);
  return order.Compare(std::string_view(m.key, m.key_len), m.tag, t.user_key, t.tag);
}

// Sorts distinct entries' items in place (radix on the prefix, then ties).
void SortItems(const BlockTable& table, const format::KeyOrder& order,
               std::vector<SortItem>* items);

class SortedBlock {
 public:
  static constexpr size_t kFenceStride = 16;
  // An upper bound of the bytes per entry a sorted block holds.
  static constexpr size_t kMaxBytesPerEntry = sizeof(EntryRef) + 1;
  // Entries a merge handles between looks at its cancel flag.
  static constexpr size_t kCancelCheck = size_t{1} << 16;

  // From sorted items. May throw std::bad_alloc.
  explicit SortedBlock(const std::vector<SortItem>& sorted);
  ~SortedBlock() = default;
  SortedBlock(const SortedBlock&) = delete;
  SortedBlock& operator=(const SortedBlock&) = delete;

  // One block with the entries of all `parts` (which share none), merged two
  // heads at a time; nullptr if *cancel became true. May throw std::bad_alloc.
  static std::shared_ptr<const SortedBlock> Merge(const BlockTable& table,
                                                  const format::KeyOrder& order,
                                                  const SortedBlock& a, const SortedBlock& b,
                                                  const std::atomic<bool>* cancel);

  size_t size() const { return refs_.size(); }
  EntryRef ref(size_t i) const { return refs_[i]; }
  size_t bytes() const {
    return refs_.capacity() * sizeof(EntryRef) + fences_.capacity() * sizeof(uint64_t);
  }

  // First index whose entry is >= target (> with `upper`); size() if none.
  size_t Bound(const BlockTable& table, const format::KeyOrder& order, const Target& target,
               bool upper) const;

 private:
  template <typename T>
  using Array = std::vector<T, memory::PageAllocator<T>>;
  SortedBlock() = default;
  void Add(EntryRef ref, uint64_t prefix) {
    if (refs_.size() % kFenceStride == 0) fences_.push_back(prefix);
    refs_.push_back(ref);
  }

  Array<EntryRef> refs_;
  Array<uint64_t> fences_;  // fences_[j] = prefix of entry j * kFenceStride
};

}  // namespace memrep::columnar
