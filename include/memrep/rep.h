// The rep interface: what every memrep memtable representation offers, the
// same for all of them. The standalone MemTable and the RocksDB plugin are both
// thin layers over it.
//
// Thread safety: Allocate and InsertConcurrently may be called from many
// threads at once; Insert only from one writer at a time. Get, Contains,
// NewIterator and the statistics may run concurrently with any of them.
// Freeze ends writing: REQUIRES no Allocate or Insert* after it starts.
// Entries are never moved or freed before the rep is destroyed, so the
// pointers handed out by Get and iterators stay valid for the rep's lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "memrep/comparator.h"
#include "memrep/entry.h"

namespace memrep {

// Where a rep takes the memory of its entries from. The memory must stay valid
// and unmoved until the rep is destroyed.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns `bytes` bytes aligned for a pointer. Safe from many threads.
  virtual char* AllocateAligned(size_t bytes) = 0;
};

// An opaque reference to one allocated entry, returned by Rep::Allocate.
using KeyHandle = void*;

// What every rep is built with.
struct RepContext {
  Allocator* allocator = nullptr;                        // REQUIRED
  const UserKeyComparator* comparator = nullptr;         // nullptr means BytewiseComparator()
};

// An ordered cursor over a rep's entries. It sees every entry whose insert
// returned before the iterator was created; entries inserted later may or may
// not appear. Key pointers stay valid after the cursor moves.
class RepIterator {
 public:
  virtual ~RepIterator() = default;
  virtual bool Valid() const = 0;
  // The entry under the cursor (see entry.h). REQUIRES: Valid().
  virtual const char* entry() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // First entry >= internal_key (user key ascending, sequence descending).
  virtual void Seek(std::string_view internal_key) = 0;
  // Last entry <= internal_key.
  virtual void SeekForPrev(std::string_view internal_key) = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  virtual void Prev() = 0;
};

class Rep {
 public:
  virtual ~Rep() = default;

  // Room for an entry of `len` bytes at *entry; the rep may place a header of
  // its own in front of it in the same allocation. Pass the handle to Insert*.
  virtual KeyHandle Allocate(size_t len, char** entry) = 0;

  // Adds the entry written at the handle's buffer. Returns false, and stores
  // nothing, if an entry with the same user key and sequence is present.
  // Insert: one writer at a time. InsertConcurrently: any number of writers.
  virtual bool Insert(KeyHandle handle) = 0;
  virtual bool InsertConcurrently(KeyHandle handle) = 0;

  // Calls callback(arg, entry) on the entries at and after `internal_key`, in
  // order, until it returns false or the entries end. The entries after the
  // first one with a different user key may be skipped.
  virtual void Get(std::string_view internal_key, void* arg,
                   bool (*callback)(void* arg, const char* entry)) const = 0;

  // Whether an entry with this internal key's user key and sequence is stored.
  virtual bool Contains(std::string_view internal_key) const = 0;

  virtual std::unique_ptr<RepIterator> NewIterator() const = 0;

  // Read-only from now on: a rep may sort or compact in the background.
  // Never waits for background work.
  virtual void Freeze() = 0;
  virtual bool frozen() const = 0;

  // Bytes this rep holds beyond what it took from its Allocator. O(1).
  virtual size_t MemoryUsage() const = 0;
  // Entries stored. O(1).
  virtual uint64_t NumEntries() const = 0;
  // An estimate of the entries in [start, end) (internal keys).
  virtual uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const = 0;
  // Up to `target` distinct entries chosen at random, appended to *out.
  virtual void RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const = 0;
};

}  // namespace memrep
