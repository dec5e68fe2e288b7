// SortedHashRep: the sorted hash memtable representation.
//
//            insert ──► HashIndex  (lock-free chains, full user key) ◄── Get, Contains
//               │
//               └────► WriteList  (16 lock-free stacks, by writer thread)
//                          │ cut: the entries after RunSet::covered
//                          ▼
//   background worker ─► RunSet { SortedRun... } ─► iterators (+ a private sorted tail)
//                          ▲ merge: the two smallest similar runs
//
// Thread safety: as Rep (memrep/rep.h). Writers touch only their bucket chain
// and their write-list shard: no lock, and no cache line all writers share.
// Readers take no lock for Get; an iterator takes RunSetHolder's mutex twice
// at most, to snapshot the runs and to publish a tail it sorted.
// Background work runs on the process-wide BackgroundWorker:
//  - a cut is requested each time a writer thread adds `background_cut`
//    entries, and periodically while unsorted entries or several runs remain;
//  - when no entry arrived since the previous task, or after Freeze, it sorts
//    everything into one run, so a frozen or idle rep is read as one array;
//  - Freeze only flags and requests: it never waits for a sort;
//  - the destructor waits for a task of this rep that is running (one cut or
//    merge), and tasks queued for it afterwards do nothing.
#pragma once

#include <memory>

#include "memrep/sorted_hash.h"
#include "sorted_hash/hash_index.h"

namespace memrep::sorted_hash {

class Core;

class SortedHashRep final : public Rep {
 public:
  SortedHashRep(const SortedHashOptions& options, const RepContext& context);
  ~SortedHashRep() override;

  KeyHandle Allocate(size_t len, char** entry) override;
  bool Insert(KeyHandle handle) override;
  bool InsertConcurrently(KeyHandle handle) override { return Insert(handle); }
  void Get(std::string_view internal_key, void* arg,
           bool (*callback)(void* arg, const char* entry)) const override;
  bool Contains(std::string_view internal_key) const override;
  std::unique_ptr<RepIterator> NewIterator() const override;
  void Freeze() override;
  bool frozen() const override;
  size_t MemoryUsage() const override;
  uint64_t NumEntries() const override;
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override;
  void RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override;

  // For tests and benchmarks: the number of sorted runs now, and the bytes
  // they hold (MemoryUsage charges an upper bound of these in advance).
  size_t NumRuns() const;
  size_t RunBytes() const;
  // The bytes of node chunks taken from the Allocator so far.
  size_t NodeBytes() const;

 private:
  const std::shared_ptr<Core> core_;  // shared with background tasks
  HashIndex index_;
};

}  // namespace memrep::sorted_hash
