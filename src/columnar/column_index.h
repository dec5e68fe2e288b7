// ColumnIndex: the columnar rep's point index, a concurrent open-addressing
// table from user key to the key's newest version, with fingerprints.
//
//   bucket (64 bytes) = [ slot ][ slot ] ... 7 slots ... [ overflow bucket* ]
//   slot   (8 bytes)  = fingerprint (high 32 bits of the hash) | EntryRef (low 32)
//   versions: slot -> newest -> older -> ... (Meta::older, sequence descending)
//
// A probe reads one bucket (one cache line) and compares keys only where a
// fingerprint matches, so a miss, or a hit on another key of the bucket,
// touches nothing else. A bucket that fills links an overflow bucket from
// the Allocator; the bucket count is sized from the write buffer so that
// overflow is rare.
//
// Thread safety: Insert from many threads at once; Find runs concurrently
// with them and takes no lock.
// Invariants:
//  1. A slot is written once, by the CAS that claims it from 0, and after
//     that only moves its ref to a newer version of the same key (same
//     fingerprint). Slots of a bucket are claimed in order: a slot is only
//     tried once every slot before it was seen claimed; so an empty slot
//     ends the search (for what was published before the search began).
//  2. Version chains are strictly descending by sequence; an entry is linked
//     only between a newer predecessor and an older successor that the CAS
//     confirms, and entries are never unlinked (as in the sorted hash index).
//  3. An entry's columns are complete before the release CAS that links it
//     (slot or `older`); readers follow links with acquire loads.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "columnar/columns.h"
#include "format/key_order.h"
#include "memrep/rep.h"
#include "memrep/status.h"
#include "util/assert.h"

namespace memrep::columnar {

class ColumnIndex {
 public:
  static constexpr int kSlots = 7;
  struct alignas(64) Bucket {
    std::atomic<uint64_t> slots[kSlots];
    std::atomic<Bucket*> overflow;
  };
  static_assert(sizeof(Bucket) == 64, "a bucket is one cache line");

  // REQUIRES: bucket_count is a power of two; Init() before any other call.
  ColumnIndex(uint64_t bucket_count, const BlockTable* table, Allocator* allocator)
      : mask_(bucket_count - 1), table_(*table), allocator_(allocator) {
    MEMREP_ASSERT(bucket_count > 0 && (bucket_count & (bucket_count - 1)) == 0);
  }
  ~ColumnIndex() {
    if (buckets_ != nullptr) ::munmap(buckets_, bytes());
  }
  ColumnIndex(const ColumnIndex&) = delete;
  ColumnIndex& operator=(const ColumnIndex&) = delete;

  Status Init() {
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      return Status::OutOfMemory("could not map the columnar index's " + std::to_string(bytes()) +
                                 " bytes of buckets; use a smaller bucket_count");
    }
    buckets_ = static_cast<Bucket*>(p);  // zero pages: every slot empty
    // Probes land anywhere in the array: huge pages spare most of their TLB
    // misses. Advice only; a kernel without transparent huge pages ignores it.
    if (bytes() >= (size_t{2} << 20)) ::madvise(p, bytes(), MADV_HUGEPAGE);
    return Status::OK();
  }

  size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }
  // Overflow buckets taken from the Allocator (it counts their bytes).
  uint64_t overflow_buckets() const { return overflow_.load(std::memory_order_relaxed); }

  // kLinked: the key's first version; kLinkedVersion: a newer one (the key
  // had versions, whose key was compared).
  enum class Result { kLinked, kLinkedVersion, kDuplicate, kNoMemory };

  // Links entry `ref` (complete but for `older`, which this sets) under
  // its user key. kDuplicate: the key already has a version with this
  // sequence, and nothing was linked. kNoMemory: an overflow bucket was needed
  // and none could be had; nothing was linked.
  Result Insert(const format::KeyOrder& order, EntryRef ref, uint64_t hash) {
    Meta& meta = MutableMeta(ref);
    const std::string_view key(meta.key, meta.key_len);
    const uint64_t fp = Fingerprint(hash);
    Bucket* bucket = &buckets_[hash & mask_];
    for (;;) {
      for (std::atomic<uint64_t>& slot : bucket->slots) {
        // acquire: pairs with the release CAS that claimed or moved the slot.
        uint64_t v = slot.load(std::memory_order_acquire);
        if (v == 0) {
          meta.older.store(0, std::memory_order_relaxed);
          // release: publishes the entry (invariant 3).
          if (slot.compare_exchange_strong(v, fp | ref, std::memory_order_release,
                                           std::memory_order_acquire)) {
            return Result::kLinked;
          }
          // Claimed meanwhile (invariant 1): v is the claimer's; look at it.
        }
        if ((v & kFingerprintMask) == fp && SameKey(order, v, key)) {
          return LinkVersion(slot, v, ref, meta) ? Result::kLinkedVersion : Result::kDuplicate;
        }
      }
      Bucket* next = bucket->overflow.load(std::memory_order_acquire);
      if (next == nullptr) {
        next = NewOverflow();
        if (next == nullptr) return Result::kNoMemory;
        Bucket* expected = nullptr;
        // release: publishes the (zeroed) bucket. A loser's bucket stays
        // unused in the Allocator (rare: two writers filling one bucket).
        if (!bucket->overflow.compare_exchange_strong(expected, next, std::memory_order_acq_rel,
                                                      std::memory_order_acquire)) {
          next = expected;
        }
      }
      bucket = next;
    }
  }

  // The newest version of `user_key` (whose hash is `hash`), or 0.
  EntryRef Find(const format::KeyOrder& order, std::string_view user_key, uint64_t hash) const {
    const uint64_t fp = Fingerprint(hash);
    for (const Bucket* bucket = &buckets_[hash & mask_]; bucket != nullptr;
         bucket = bucket->overflow.load(std::memory_order_acquire)) {
      for (const std::atomic<uint64_t>& slot : bucket->slots) {
        const uint64_t v = slot.load(std::memory_order_acquire);  // invariant 3
        if (v == 0) return 0;                                     // invariant 1
        if ((v & kFingerprintMask) == fp && SameKey(order, v, user_key)) {
          return static_cast<EntryRef>(v);
        }
      }
    }
    return 0;
  }

  // The next older version after `ref`, or 0.
  EntryRef Older(EntryRef ref) const {
    return table_.MetaOf(ref).older.load(std::memory_order_acquire);  // invariant 3
  }

  // Loads the bucket a hash lands in: for reading (Find), or to write (Insert).
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&buckets_[hash & mask_]); }
  void PrefetchForInsert(uint64_t hash) const { __builtin_prefetch(&buckets_[hash & mask_], 1); }
  // For an insert to come whose bucket is loaded by now: loads the metadata
  // (stage 1) or the key bytes (stage 2, once the metadata is loaded) of the
  // version a fingerprint in its first bucket matches, which the insert
  // compares its key with when the key has versions already.
  void PrefetchVersion(uint64_t hash, int stage) const {
    const uint64_t fp = Fingerprint(hash);
    for (const std::atomic<uint64_t>& slot : buckets_[hash & mask_].slots) {
      const uint64_t v = slot.load(std::memory_order_acquire);  // invariant 3
      if (v == 0) return;
      if ((v & kFingerprintMask) != fp) continue;
      const Meta& m = table_.MetaOf(static_cast<EntryRef>(v));
      __builtin_prefetch(stage == 1 ? static_cast<const void*>(&m) : m.key);
      return;
    }
  }

 private:
  static constexpr uint64_t kFingerprintMask = ~uint64_t{0} << 32;
  static uint64_t Fingerprint(uint64_t hash) { return hash & kFingerprintMask; }

  Meta& MutableMeta(EntryRef ref) { return table_.BlockOf(ref)->meta[table_.IndexOf(ref)]; }
  bool SameKey(const format::KeyOrder& order, uint64_t slot_value, std::string_view key) const {
    const Meta& m = table_.MetaOf(static_cast<EntryRef>(slot_value));
    return order.CompareUserKeys(std::string_view(m.key, m.key_len), key) == 0;
  }

  // Links `ref` into the version chain whose head the slot holds (`v`).
  bool LinkVersion(std::atomic<uint64_t>& slot, uint64_t v, EntryRef ref, Meta& meta) {
    const uint64_t seq = TagSequence(meta.tag);
    for (;;) {  // from the head
      EntryRef next = static_cast<EntryRef>(v);
      Meta* prev = nullptr;
      for (;;) {
        while (next != 0) {
          const Meta& n = table_.MetaOf(next);
          const uint64_t next_seq = TagSequence(n.tag);
          if (next_seq == seq) return false;
          if (next_seq < seq) break;
          prev = const_cast<Meta*>(&n);
          next = n.older.load(std::memory_order_acquire);
        }
        // relaxed: the entry is not yet visible; the CAS below releases it.
        meta.older.store(next, std::memory_order_relaxed);
        if (prev == nullptr) {
          uint64_t expected = (v & kFingerprintMask) | next;
          // release: publishes the entry (invariant 3). On failure a newer
          // version became the head: start again from it.
          if (slot.compare_exchange_strong(expected, (v & kFingerprintMask) | ref,
                                           std::memory_order_release, std::memory_order_acquire)) {
            return true;
          }
          v = expected;
          break;
        }
        if (prev->older.compare_exchange_strong(next, ref, std::memory_order_release,
                                                std::memory_order_acquire)) {
          return true;
        }
        // A version was linked after prev (invariant 2): rescan from prev.
      }
    }
  }

  Bucket* NewOverflow() {
    char* memory = allocator_->AllocateAligned(sizeof(Bucket) + 64);
    if (memory == nullptr) return nullptr;
    // AllocateAligned aligns for a pointer: align to the cache line here.
    auto* aligned =
        reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(memory) + 63) & ~uintptr_t{63});
    std::memset(aligned, 0, sizeof(Bucket));
    overflow_.fetch_add(1, std::memory_order_relaxed);
    return new (aligned) Bucket();
  }

  const uint64_t mask_;
  const BlockTable& table_;
  Allocator* const allocator_;
  Bucket* buckets_ = nullptr;
  std::atomic<uint64_t> overflow_{0};
};

}  // namespace memrep::columnar
