// TrieRep: the trie memtable representation. A Trie (trie.h) in a VmRegion
// of its own, with both faces:
//
//   RocksDB face (rows):  Allocate ─► a cell [next|row] in the trie's row
//                                     region, whose chunks are RocksDB's
//                                     arena's (so its WriteBufferManager
//                                     counts them); the handle is its Ref
//                         Insert   ─► the trie indexes the row's user key;
//                                     the slot of the key names its newest
//                                     cell, whose next links the older ones
//   standalone (views):   Add ─► a version [next|len|tag|value] and, for a
//                         new key, a leaf holding the key's unshared bytes
//
// Reads: Get and Contains descend to the key's leaf and walk its versions;
// iterators descend again for each new key (and continue from their path
// while no node has been replaced since).
//
// Freeze with convert_to_sst: kFileMmap makes the file-backed region a table
// file in place (trie_file.h: a footer and a truncate, O(1)); kDumpMem
// writes the memory region to `file` as one (O(size)). FreezeResult says how
// that went; the rep is frozen and readable either way.
//
// Thread safety: as Rep (memrep/rep.h); concurrent inserts from any number
// of threads; readers take no lock.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "memory/vm_region.h"
#include "memrep/rep.h"
#include "memrep/trie.h"
#include "trie/trie.h"

namespace memrep::trie {

class TrieRep final : public Rep {
 public:
  // REQUIRES: options.Validate().ok(). row_bytes: the address space of the
  // rows face's row region (tests set less).
  static Status Make(const TrieOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out, uint64_t row_bytes = kMaxRegionBytes);
  ~TrieRep() override;

  Status Allocate(size_t len, KeyHandle* handle, char** row) override;
  bool Insert(KeyHandle handle) override { return InsertRow(handle); }
  bool InsertConcurrently(KeyHandle handle) override { return InsertRow(handle); }
  void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const override;
  bool Contains(std::string_view internal_key) const override;
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const override;

  Status Add(const EntryView& entry, bool concurrent) override;
  // Get's walks with the keys' descents interleaved (Trie::FindLeaves).
  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override;
  // As MultiGet. REQUIRES: the rep was built with rows.
  void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                    MultiRowCallback callback) const override;
  void Get(std::string_view internal_key, void* arg, EntryCallback callback) const override;

  std::unique_ptr<RepIterator> NewIterator() const override;
  void Freeze() override;
  Status FreezeResult() const override { return freeze_result_; }
  bool frozen() const override { return trie_->frozen(); }
  // The region's used bytes, and (rows) the row region's chunk table: the
  // cells are the Allocator's, which counts them. At Freeze the figure is
  // recorded before a table's footer is added, so the usage never grows
  // after Freeze (contract 7).
  size_t MemoryUsage() const override {
    const size_t frozen = frozen_usage_.load(std::memory_order_acquire);
    return frozen != 0 ? frozen : OwnBytes();
  }
  bool NearlyFull() const override {
    return trie_->BytesUsed() >= nearly_full_ || trie_->RowsNearlyFull();
  }
  uint64_t NumEntries() const override { return trie_->NumEntries(); }
  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override;

  const Trie& trie() const { return *trie_; }

 private:
  // What Freeze makes of the trie (TrieOptions::convert_to_sst).
  struct Conversion {
    enum class Kind { kNone, kFileMmap, kDumpMem };
    Kind kind = Kind::kNone;
    std::string file;  // kDumpMem: the table file to write
    bool sync = false;
  };
  TrieRep(std::unique_ptr<memory::VmRegion> region, std::unique_ptr<Trie> trie, bool rows,
          std::string remove_on_close, Conversion conversion);
  bool InsertRow(KeyHandle handle);
  Status Convert();
  size_t OwnBytes() const { return trie_->BytesUsed() + trie_->RowTableBytes(); }
  // Trie::VisitVersionsOfMany over internal keys, in chunks:
  // on_version(i, user key of i, version) (MultiGet, MultiGetRows).
  template <class OnVersion>
  void VisitVersionsOfMany(std::span<const std::string_view> internal_keys,
                           OnVersion&& on_version) const;

  std::unique_ptr<memory::VmRegion> region_;
  std::unique_ptr<Trie> trie_;
  const bool rows_;
  const uint64_t nearly_full_;
  const std::string remove_on_close_;  // a file to remove when the rep goes
  const Conversion conversion_;
  std::atomic<size_t> frozen_usage_{0};  // MemoryUsage at Freeze; 0 before
  std::once_flag convert_once_;          // a second Freeze converts nothing
  Status freeze_result_;                 // written once, inside convert_once_
};

// The bytes a trie keeps back from rows for the nodes of inserts in flight.
uint64_t ReserveFor(uint64_t mem_cap);
// The chunk a writer thread takes at a time, for a memtable of this size.
uint64_t ChunkBytesFor(uint64_t write_buffer_size);

}  // namespace memrep::trie
