// The rep interface: what every memrep memtable representation offers. A rep
// is written once and reaches users through two faces, both thin layers over
// this interface:
//
//   - the standalone face (memrep::MemTable) speaks *entry views*: it adds
//     views and batches of them, and reads views back from Get and iterators.
//     A rep stores entries in whatever form suits it (a trie its shared key
//     prefixes);
//   - the RocksDB face (libmemrep_rocksdb) speaks *rows* (entry.h): RocksDB
//     writes each row into memory the rep's Allocate handed out, and reads
//     rows back by pointer for the memtable's whole life.
//
// A rep built with RepContext::rows serves the row functions; one built
// without serves the view functions. The view functions have defaults that
// go through rows (encode on Add, decode on read), so a rep that stores rows
// anyway (the sorted hash rep) implements only the row functions; a rep with
// a form of its own overrides the view functions too.
//
// The contract, for every rep (checked by tests/rep_conformance_test.cc for
// every registered rep, through both faces):
//  1. Order: internal keys ascending, i.e. user keys ascending under the
//     rep's comparator, then sequences descending; the type byte is not part
//     of the order.
//  2. Writers: Insert (Add with concurrent=false) from one thread at a time,
//     never while another insert of either kind runs; InsertConcurrently (Add
//     with concurrent=true) from any number of threads, if
//     traits().concurrent_insert. Readers (Get, iterators, statistics) run
//     concurrently with writers and take no lock that a writer holds for long.
//  3. Visibility: an entry whose insert returned is visible to every Get and to
//     every iterator positioning call (Seek*, SeekToFirst/Last) that starts
//     after it returned. In particular an existing iterator that is positioned
//     again sees the entries inserted since it was created (RocksDB's
//     Iterator::Refresh and tailing iterators rely on this). Next and Prev may
//     stay on what the iterator saw when it was last positioned, but they
//     always move in strict order, also across direction changes.
//  4. Duplicates: a (user key, sequence) that is stored again is refused
//     (false, or AlreadyExists) and stores nothing, if traits().duplicates
//     says the rep finds that one: kAll finds every duplicate; kSameThread
//     every duplicate of a row the inserting thread stored itself, in any
//     order (RocksDB makes duplicates only so: one batch, inserted by one
//     thread, at one sequence). The caller must not insert a duplicate the
//     rep does not find.
//  5. Rows are pinned: a row handed to RocksDB (by Allocate, GetRows or
//     RepIterator::row) stays at its address, unchanged, until the rep is
//     destroyed. Views from Get are valid during the callback; views from
//     RepIterator::entry until the iterator moves or is destroyed.
//  6. Freeze ends writing. REQUIRES: no insert runs concurrently with Freeze
//     or after it (the faces guarantee it). Every entry inserted before Freeze
//     stays visible; Freeze never waits for background work; a frozen rep may
//     sort or compact itself in the background, invisibly to readers.
//  7. Memory: MemoryUsage is O(1), safe from any thread, and never grows once
//     Freeze has been called (RocksDB records a memtable's size as it turns
//     immutable). NearlyFull, once true, stays true.
//  8. Errors are values: no function throws. A write that cannot get memory
//     stores nothing and says why (Status OutOfMemory, or Full when the rep's
//     own region is exhausted: switch memtables).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "memrep/comparator.h"
#include "memrep/entry.h"
#include "memrep/export.h"
#include "memrep/status.h"

namespace memrep {

class RepLineage;  // memrep/auto.h

// Where a rep takes its memory from (RocksDB's memtable arena in the RocksDB
// face, memrep's own arena in the standalone face). Memory stays valid and
// unmoved until the allocator is destroyed, after the rep.
class MEMREP_EXPORT Allocator {
 public:
  virtual ~Allocator() = default;
  // `bytes` bytes aligned for a pointer, or nullptr if memory cannot be had.
  // Safe from many threads. Never throws.
  virtual char* AllocateAligned(size_t bytes) noexcept = 0;
};

// An opaque reference to one allocated row, returned by Rep::Allocate. Its
// top bit is never set (the RocksDB face tags its own handles with it).
using KeyHandle = void*;

// What a rep can do, declared once in its registration and read by the
// faces, the conformance suite and the benchmarks (nothing recognises a rep
// by its name).
struct RepTraits {
  // How much a point read or a new iterator costs while the rep still takes
  // writes (once frozen, every rep reads at least logarithmically).
  enum class Cost : uint8_t {
    kConstant,     // a hash probe, or O(1) to create
    kLogarithmic,  // a search in a sorted structure
    kLinear,       // a scan or a sort of what is not yet sorted
  };
  // Which user-key comparators the rep serves.
  enum class Comparators : uint8_t {
    kAny,           // every UserKeyComparator
    kByteEquality,  // any order in which only byte-equal keys compare equal (hash indexes)
    kBytewise,  // BytewiseComparator() and ReverseBytewiseComparator() only (tries, radix sorts)
  };

  // InsertConcurrently / Add(..., concurrent=true) from many threads at once.
  bool concurrent_insert = false;
  // Which duplicate (user key, sequence) inserts are found and refused at
  // insertion time (contract point 4).
  enum class Duplicates : uint8_t {
    kNone,        // none: the caller must not insert one
    kSameThread,  // of rows the inserting thread stored, in any order (all RocksDB makes)
    kAll,         // every one, from any thread, at any time
  };
  Duplicates duplicates = Duplicates::kNone;
  // What RocksDB's CanHandleDuplicatedKey() declares and write-prepared
  // transactions require: RocksDB's own duplicates are found.
  bool detects_duplicates() const { return duplicates != Duplicates::kNone; }
  Comparators comparators = Comparators::kAny;
  Cost point_read_while_mutable = Cost::kLogarithmic;
  Cost new_iterator_while_mutable = Cost::kConstant;
  // The rep keeps its entries in a file (and may fail with IOError).
  bool file_backed = false;
  // The largest memtable the rep can be sized for, in bytes; 0: no limit.
  uint64_t max_memtable_bytes = 0;
};

// What every rep is built with.
struct RepContext {
  Allocator* allocator = nullptr;                 // REQUIRED
  const UserKeyComparator* comparator = nullptr;  // nullptr means BytewiseComparator()
  // true: the caller writes and reads rows (the RocksDB face). false: views
  // only (the standalone face); the rep may store entries in its own form.
  bool rows = false;
  // About how many bytes of entries the memtable will hold before it is
  // switched (RocksDB's write_buffer_size); 0 if unknown. Reps size their
  // indexes from it.
  uint64_t write_buffer_size = 0;
  // The memtables made before this one for the same column family (a rep
  // that learns from them, memrep.Auto, keeps its history there); nullptr:
  // none, each memtable starts afresh. Must outlive the rep's construction.
  RepLineage* lineage = nullptr;
};

// An ordered cursor over a rep's entries (contract points 3 and 5). It must be
// destroyed before its rep, as RocksDB and memrep::MemTable do (an iterator
// holds no reference to the rep: one counted per iterator would be a cache
// line that every reading thread writes).
class MEMREP_EXPORT RepIterator {
 public:
  virtual ~RepIterator() = default;
  virtual bool Valid() const = 0;
  // The entry under the cursor. REQUIRES: Valid().
  virtual EntryView entry() const { return DecodeRow(row()); }
  // The row under the cursor, pinned for the rep's lifetime; nullptr for a
  // rep built without rows. REQUIRES: Valid().
  virtual const char* row() const = 0;
  // OK, or why the last positioning call could not be served (the cursor is
  // then not Valid()): OutOfMemory when the iterator could not sort what it
  // needed.
  virtual Status status() const { return Status::OK(); }
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // First entry >= internal_key.
  virtual void Seek(std::string_view internal_key) = 0;
  // Last entry <= internal_key.
  virtual void SeekForPrev(std::string_view internal_key) = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  virtual void Prev() = 0;
  // For integrity checks (RocksDB's paranoid_memory_checks), right after a
  // Seek or SeekForPrev: a stored row out of order with the one before it
  // (*before) near where the search landed, or nullptr. A binary search
  // over a sorted array steps past a key moved out of order unless it looks
  // at the rows around its landing place; a walk that compares every row
  // it passes (a list, a trie's descent) needs nothing more, so the default
  // finds none.
  virtual const char* DisorderNearSeek(const char** /*before*/) const { return nullptr; }
};

// Get's callbacks: return true to be handed the next entry, false to stop.
using RowCallback = bool (*)(void* arg, const char* row);
using EntryCallback = bool (*)(void* arg, const EntryView& entry);
// MultiGet's: `index` is the position of the key being answered.
using MultiEntryCallback = bool (*)(void* arg, size_t index, const EntryView& entry);
using MultiRowCallback = bool (*)(void* arg, size_t index, const char* row);

class MEMREP_EXPORT Rep {
 public:
  virtual ~Rep() = default;

  // ---- Rows (a rep built with RepContext::rows) ----

  // Room for a row of `len` bytes at *row; the rep may keep a header of its
  // own in front of it. The caller writes the row, then passes the handle to
  // Insert or InsertConcurrently. OutOfMemory or Full: nothing was allocated.
  virtual Status Allocate(size_t len, KeyHandle* handle, char** row) = 0;
  // Adds the row written at the handle's buffer. false: a duplicate
  // (contract point 4), and nothing was stored.
  virtual bool Insert(KeyHandle handle) = 0;
  virtual bool InsertConcurrently(KeyHandle handle) = 0;
  // Calls callback(arg, row) on the rows at and after `internal_key`, in
  // order, until it returns false or the rows end. Every row of its user key
  // at or after it comes first; of the rows of other user keys after them,
  // any may be left out (a rep may skip the parts of its index that cannot
  // hold the user key), so a caller stops at the first row of another user key.
  virtual void GetRows(std::string_view internal_key, void* arg, RowCallback callback) const = 0;
  // GetRows for many keys in one call (RocksDB's MemTableRep::MultiGet): for
  // each i, callback(arg, i, row) on the rows GetRows hands on for
  // internal_keys[i], until it returns false for that key. Keys are answered
  // one after another in index order, as MultiGet answers them. The default
  // calls GetRows for each key.
  virtual void MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                            MultiRowCallback callback) const;
  // For integrity checks (RocksDB's per-key checksums on seek): calls
  // callback(arg, row) on the stored rows of other user keys that a GetRows
  // of `internal_key` compares with the key before it finds it (or finds it
  // absent), until callback returns false. A rep whose lookup is a hash
  // probe hands on the rows of its bucket that the probe rejects: a row
  // whose key bytes changed in place is among them, where GetRows would
  // skip it. A search lands on the row it compares and hands it on, so the
  // default visits none.
  virtual void ProbedRows(std::string_view /*internal_key*/, void* /*arg*/,
                          RowCallback /*callback*/) const {}
  // Whether a row with this internal key's user key and sequence is stored.
  virtual bool Contains(std::string_view internal_key) const = 0;
  // Up to `target` distinct rows chosen at random, appended to *out.
  virtual Status RandomSample(size_t target, uint64_t seed,
                              std::vector<const char*>* out) const = 0;

  // ---- Views (a rep built without rows) ----

  // Adds one entry. AlreadyExists (a duplicate, contract point 4),
  // OutOfMemory or Full: nothing was stored.
  virtual Status Add(const EntryView& entry, bool concurrent);
  // Adds the entries in order. An entry refused stops the batch: the ones
  // before it stay, and the status names its index.
  virtual Status AddBatch(std::span<const EntryView> entries, bool concurrent);
  // As GetRows, with views.
  virtual void Get(std::string_view internal_key, void* arg, EntryCallback callback) const;
  // Get for many keys in one call: for each i, callback(arg, i, entry) on the
  // entries at and after internal_keys[i], as Get calls it, until it returns
  // false for that key. Keys are answered one after another in index order
  // (a rep may start loading later keys' memory while it answers one). The
  // default calls Get for each key.
  virtual void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                        MultiEntryCallback callback) const;

  // ---- Both ----

  virtual std::unique_ptr<RepIterator> NewIterator() const = 0;
  // Contract point 6.
  virtual void Freeze() = 0;
  // OK, or why the conversion a rep was asked to make at Freeze failed (a
  // table file it could not write: IOError, Full, ...). The rep is frozen
  // and readable either way. Reps that convert nothing keep the default.
  // REQUIRES: Freeze has returned.
  virtual Status FreezeResult() const { return Status::OK(); }
  virtual bool frozen() const = 0;
  // Bytes this rep holds beyond what it took from its Allocator. O(1).
  virtual size_t MemoryUsage() const = 0;
  // True once the rep wants its memtable switched before its own limits
  // (a region's address space, a file's size) are reached; writes still land
  // until then. O(1). RocksDB learns it through ApproximateMemoryUsage.
  virtual bool NearlyFull() const { return false; }
  // Entries stored. O(1).
  virtual uint64_t NumEntries() const = 0;
  // CPU time the rep's background work (sorting, merging on the background
  // pool) has spent so far, in nanoseconds; 0 for a rep that does none.
  // O(1), any thread. memrep.Auto reads it when a memtable is destroyed to
  // learn each rep's background cost per write.
  virtual uint64_t BackgroundCpuNanos() const { return 0; }
  // An estimate of the entries in [start, end) (internal keys).
  virtual uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const = 0;
};

}  // namespace memrep
