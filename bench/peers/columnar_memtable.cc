// columnar_memtable: the seed project conanhujinming/columnar_memtable (MIT),
// a write-optimised, sharded, columnar memtable of one version per key
// (ColumnarMemTable in its header columnar_memtable.h), as a memrep::Rep of
// the view functions, so that memrep_bench runs it through memrep::MemTable
// (--face=standalone) beside memrep's reps. It is a *standalone peer*
// (peers/peers.h): registered in memrep's registry as peer.ColumnarMemtable
// (alias columnar_memtable) only in memrep_bench, which links this file
// (columnar_memtable.cmake; never memrep's library nor memrep_bench_lib). It
// has no RocksDB face: check_rows_face refuses it, the row functions refuse or
// find nothing, and memrep_bench's rep level and trie tables skip it.
//
// Two parts, compiled apart (columnar_memtable.cmake):
//   - the seed part (columnar_memtable_seed.cc), which includes the seed's
//     header and wraps it in SeedTable and SeedScan
//     (columnar_memtable_seed.h). It is compiled as the seed compiles itself:
//     -std=c++17, -O3 -DNDEBUG, -march=native
//     (MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS), -w; its header includes its
//     own copy of xxhash.h (XXH_INLINE_ALL);
//   - this file, the adapter: memrep's C++20 code under memrep's warnings,
//     which sees the seed only through SeedTable and SeedScan.
//
// What the adapter does:
//   - each entry is the seed's key = the user key, value = fixed64 tag
//     (sequence << 8 | type, little-endian) then the value. Every type
//     (value, deletion, merge) is written with the seed's Put, so Get and
//     iterators give back the sequence and type the caller wrote; the seed's
//     own Delete (a tombstone without a tag) is not used. The tag costs 8
//     bytes per entry and one copy of the value into a thread-local buffer
//     per write;
//   - Add: the seed's Put; AddBatch: one PutBatch of the whole batch. Both
//     are thread-safe in the seed, so concurrent_insert is declared;
//   - Get: the seed's Get of the user key; the stored entry is handed to the
//     callback if its sequence is at or below the lookup's, else nothing (the
//     key's one version is newer than the snapshot). The next key is never
//     handed on (memrep::MemTable needs the key's own entry only).
//     MultiGet: one seed MultiGet, then the callbacks in index order;
//   - iterators: SeekToFirst and Next stream the seed's own ordered scan,
//     NewCompactingIterator(), which seals every non-empty active block,
//     waits for the background sort, and merges every sorted block, newest
//     version of a key winning. Seek, SeekForPrev, SeekToLast and Prev need
//     what the seed has not: the iterator copies the scan's (key, value)
//     views into a vector once and searches it, and copies again only when
//     a write has landed since (a count of writes, so a positioning call
//     sees every write that returned before it, contract point 3). The views
//     point into the seed's sorted blocks, which live as long as the table:
//     the adapter builds the seed without compaction (its default), which is
//     what would free them;
//   - seed options (defaults = the seed's): 16 shards, 768 KiB active blocks
//     (ColumnarMemTable::Create's defaults), one batch worker (PutBatch and
//     MultiGet run in the caller's thread), the background thread on, no
//     compaction; the sorter is StdSorter, as the seed's README and its own
//     benchmark use (Create's default, ParallelRadixSorter, starts up to
//     hardware_concurrency threads of its own per sort): option sorter=radix
//     takes that one.
//
// Limits (what the seed is, and what the adapter does not hide):
//   - one version per user key: a write replaces the key's record whatever
//     its sequence (the last write wins, even one with an older sequence).
//     Reads at an older snapshot do not see the replaced version. So
//     memrep_bench skips overwrite and the mixed workloads for it
//     (StandalonePeer::single_version), whose checks count every version;
//   - duplicates are not found (kNone): the same (key, sequence) again
//     replaces the record;
//   - concurrent writes of one key: the active block's index keeps whichever
//     lands last, but its sort orders a block's records by writer thread, so
//     after a seal the other one may win;
//   - bytewise order only (the seed compares std::string_view); a comparator
//     other than BytewiseComparator() is refused when the rep is built;
//   - the seed's arena takes records of at most 32 KiB (key + 8 + value):
//     bigger ones are refused (InvalidArgument); the seed's 256-thread limit
//     of writers at once is its own;
//   - MemoryUsage is the seed's ApproximateMemoryUsage(): a walk over its
//     shards and blocks (not O(1)), and it changes after Freeze when a
//     later iterator makes the seed seal and sort its active blocks; the
//     iterators' copies are theirs, not counted;
//   - NumEntries counts the entries written (overwrites too, which the seed
//     keeps in its blocks), ApproximateNumEntries scans the table;
//   - Freeze only marks the rep frozen (memrep::MemTable refuses later
//     writes); the seed has no read-only mode.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <span>
#include <stdexcept>
#include <string>

#include "columnar_memtable_seed.h"
#include "memrep/comparator.h"
#include "memrep/rep.h"
#include "peers/peers.h"
#include "registry/registry.h"
#include "rep/batch_status.h"

#ifndef MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT
#define MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT "unknown"
#endif

namespace memrep::bench::columnar_peer {
namespace {

constexpr const char* kName = "peer.ColumnarMemtable";
constexpr const char* kNoRows =
    "peer.ColumnarMemtable (columnar_memtable) has no RocksDB face: it keeps entries in the "
    "seed's own columns, not in rows; run it through memrep::MemTable (memrep_bench "
    "--face=standalone)";

// The seed's DataChunk::kBufferCapacity: key and value of one record.
constexpr size_t kMaxRecordBytes = 32 * 1024;
constexpr size_t kTagBytes = 8;

struct ColumnarMemtableOptions {
  uint64_t active_block_bytes = 16 * 1024 * 48;  // ColumnarMemTable::Create's default
  uint64_t shards = 16;                          // Create's default
  std::string sorter = "std";
};

void EncodeTag(char* dst, uint64_t tag) {
  for (size_t i = 0; i < kTagBytes; ++i) dst[i] = static_cast<char>(tag >> (8 * i));
}

uint64_t DecodeTag(const char* src) {
  uint64_t tag = 0;
  for (size_t i = 0; i < kTagBytes; ++i) {
    tag |= uint64_t{static_cast<unsigned char>(src[i])} << (8 * i);
  }
  return tag;
}

// A stored value back as an entry (the seed's value is tag | value).
EntryView StoredEntry(std::string_view key, std::string_view stored) {
  if (stored.size() < kTagBytes) return EntryView{key, 0, {}};  // never written so
  return EntryView{key, DecodeTag(stored.data()), stored.substr(kTagBytes)};
}

// An internal key's user key and sequence; false if it is too short to be one.
bool SplitInternalKey(std::string_view internal_key, std::string_view* user_key,
                      SequenceNumber* seq) {
  if (internal_key.size() < kTagBytes) return false;
  *user_key = internal_key.substr(0, internal_key.size() - kTagBytes);
  *seq = TagSequence(DecodeTag(internal_key.data() + user_key->size()));
  return true;
}

// Internal-key order of an entry against (user key, sequence): user keys
// bytewise, then sequences descending.
int CompareEntry(std::string_view key, SequenceNumber seq, std::string_view target_key,
                 SequenceNumber target_seq) {
  const int c = key.compare(target_key);
  if (c != 0) return c;
  return seq > target_seq ? -1 : seq < target_seq ? 1 : 0;
}

// Entries written, in cache-line stripes so that concurrent writers do not
// share one counter. The sum only grows: it is also the rep's generation,
// which tells an iterator whether a write landed since its copy.
class WriteCount {
 public:
  void Add(uint64_t n) {
    // release: a reader that sees the count sees the write it counts.
    stripes_[Slot()].n.fetch_add(n, std::memory_order_release);
  }
  uint64_t Sum() const {
    uint64_t sum = 0;
    for (const Stripe& s : stripes_) sum += s.n.load(std::memory_order_acquire);
    return sum;
  }

 private:
  static constexpr size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<uint64_t> n{0};
  };
  static size_t Slot() {
    static std::atomic<size_t> next{0};
    thread_local const size_t slot = next.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return slot;
  }
  std::array<Stripe, kStripes> stripes_;
};

class ColumnarMemtableRep;

class ColumnarMemtableIterator final : public RepIterator {
 public:
  explicit ColumnarMemtableIterator(const ColumnarMemtableRep* rep) : rep_(rep) {}

  bool Valid() const override {
    switch (mode_) {
      case Mode::kScan:
        return scan_->Valid();
      case Mode::kCopy:
        return pos_ >= 0 && pos_ < static_cast<ptrdiff_t>(copy_.size());
      case Mode::kNone:
        break;
    }
    return false;
  }
  EntryView entry() const override {
    if (mode_ == Mode::kScan) return StoredEntry(scan_->key(), scan_->value());
    const Item& item = copy_[static_cast<size_t>(pos_)];
    return StoredEntry(item.key, item.stored);
  }
  const char* row() const override { return nullptr; }
  Status status() const override { return status_; }

  void SeekToFirst() override;
  void SeekToLast() override {
    if (!Copy()) return;
    pos_ = static_cast<ptrdiff_t>(copy_.size()) - 1;
  }
  void Seek(std::string_view internal_key) override {
    std::string_view key;
    SequenceNumber seq = 0;
    if (!SplitInternalKey(internal_key, &key, &seq)) {
      key = internal_key;
      seq = kMaxSequenceNumber;
    }
    if (!Copy()) return;
    pos_ = LowerBound(key, seq);
  }
  void SeekForPrev(std::string_view internal_key) override {
    std::string_view key;
    SequenceNumber seq = 0;
    if (!SplitInternalKey(internal_key, &key, &seq)) {
      key = internal_key;
      seq = 0;
    }
    if (!Copy()) return;
    // The last entry <= target: before the first one > target.
    const auto it = std::partition_point(copy_.begin(), copy_.end(), [&](const Item& item) {
      return CompareEntry(item.key, TagSequence(DecodeTag(item.stored.data())), key, seq) <= 0;
    });
    pos_ = (it - copy_.begin()) - 1;
  }
  void Next() override {
    if (mode_ == Mode::kScan) {
      scan_->Next();
    } else {
      ++pos_;
    }
  }
  void Prev() override {
    if (mode_ == Mode::kScan) {
      // The scan goes forward only: find the current entry in a copy, step back.
      const EntryView e = entry();
      const std::string key(e.user_key);
      const SequenceNumber seq = e.sequence();
      if (!Copy()) return;
      pos_ = LowerBound(key, seq) - 1;
    } else {
      --pos_;
    }
  }

 private:
  enum class Mode { kNone, kScan, kCopy };
  struct Item {
    std::string_view key;
    std::string_view stored;  // tag | value
  };

  // Makes the copy current (a new one if a write landed since the last);
  // false, with status() saying why, if it could not.
  bool Copy();
  // The first position whose entry is >= (key, seq).
  ptrdiff_t LowerBound(std::string_view key, SequenceNumber seq) const {
    const auto it = std::partition_point(copy_.begin(), copy_.end(), [&](const Item& item) {
      return CompareEntry(item.key, TagSequence(DecodeTag(item.stored.data())), key, seq) < 0;
    });
    return it - copy_.begin();
  }
  void Fail(const Status& s) {
    mode_ = Mode::kNone;
    scan_.reset();
    copy_.clear();
    has_copy_ = false;
    status_ = s;
  }

  const ColumnarMemtableRep* const rep_;
  Mode mode_ = Mode::kNone;
  std::unique_ptr<SeedScan> scan_;
  std::vector<Item> copy_;
  bool has_copy_ = false;
  uint64_t copy_generation_ = 0;  // the write count before the copy's scan
  ptrdiff_t pos_ = -1;
  Status status_;
};

class ColumnarMemtableRep final : public Rep {
 public:
  explicit ColumnarMemtableRep(std::unique_ptr<SeedTable> seed) : seed_(std::move(seed)) {}

  // ---- Rows: none (no RocksDB face) ----
  Status Allocate(size_t, KeyHandle*, char**) override { return Status::NotSupported(kNoRows); }
  bool Insert(KeyHandle) override { return false; }
  bool InsertConcurrently(KeyHandle) override { return false; }
  void GetRows(std::string_view, void*, RowCallback) const override {}
  bool Contains(std::string_view) const override { return false; }
  Status RandomSample(size_t, uint64_t, std::vector<const char*>*) const override {
    return Status::NotSupported(kNoRows);
  }

  // ---- Views ----
  Status Add(const EntryView& entry, bool /*concurrent*/) override {
    Status s = CheckSize(entry);
    if (!s.ok()) return s;
    s = Guard([&] {
      thread_local std::string stored;
      stored.resize(kTagBytes + entry.value.size());
      EncodeTag(stored.data(), entry.tag);
      if (!entry.value.empty()) {
        std::memcpy(stored.data() + kTagBytes, entry.value.data(), entry.value.size());
      }
      seed_->Put(entry.user_key, stored);
    });
    if (s.ok()) written_.Add(1);
    return s;
  }

  Status AddBatch(std::span<const EntryView> entries, bool /*concurrent*/) override {
    // Records the seed would refuse stop the batch before them.
    size_t count = 0, bytes = 0;
    Status refused;
    for (; count < entries.size(); ++count) {
      refused = CheckSize(entries[count]);
      if (!refused.ok()) break;
      bytes += kTagBytes + entries[count].value.size();
    }
    Status s = Guard([&] {
      thread_local std::string stored;
      thread_local std::vector<std::pair<std::string_view, std::string_view>> batch;
      stored.resize(bytes);
      batch.clear();
      batch.reserve(count);
      char* at = stored.data();
      for (size_t i = 0; i < count; ++i) {
        const EntryView& e = entries[i];
        EncodeTag(at, e.tag);
        if (!e.value.empty()) std::memcpy(at + kTagBytes, e.value.data(), e.value.size());
        batch.emplace_back(e.user_key, std::string_view(at, kTagBytes + e.value.size()));
        at += kTagBytes + e.value.size();
      }
      if (count > 0) seed_->PutBatch(batch);
    });
    if (!s.ok()) return s;  // what the seed stored of the batch is unknown
    written_.Add(count);
    return refused.ok() ? Status::OK() : rep::BatchRecordStatus(count, refused);
  }

  void Get(std::string_view internal_key, void* arg, EntryCallback callback) const override {
    std::string_view key;
    SequenceNumber seq = 0;
    if (!SplitInternalKey(internal_key, &key, &seq)) return;
    std::optional<std::string_view> stored;
    try {
      stored = seed_->Get(key);
    } catch (const std::exception&) {
      return;  // the seed's Get allocates nothing; nothing to answer then
    }
    if (!stored.has_value()) return;
    const EntryView entry = StoredEntry(key, *stored);
    if (entry.sequence() > seq) return;  // the key's one version is newer than the lookup
    callback(arg, entry);
  }

  void MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                MultiEntryCallback callback) const override {
    thread_local std::vector<std::string_view> keys;
    std::vector<std::optional<std::string_view>> found;
    std::vector<SequenceNumber> seqs;
    try {
      keys.clear();
      seqs.resize(internal_keys.size());
      for (size_t i = 0; i < internal_keys.size(); ++i) {
        std::string_view key;
        if (!SplitInternalKey(internal_keys[i], &key, &seqs[i])) seqs[i] = 0;
        keys.push_back(key);
      }
      found = seed_->MultiGet(keys);
    } catch (const std::bad_alloc&) {
      // No memory for the batch's vectors: one Get per key, which needs none.
      Rep::MultiGet(internal_keys, arg, callback);
      return;
    }
    for (size_t i = 0; i < internal_keys.size() && i < found.size(); ++i) {
      if (internal_keys[i].size() < kTagBytes || !found[i].has_value()) continue;
      const EntryView entry = StoredEntry(keys[i], *found[i]);
      if (entry.sequence() > seqs[i]) continue;
      callback(arg, i, entry);
    }
  }

  std::unique_ptr<RepIterator> NewIterator() const override {
    return std::make_unique<ColumnarMemtableIterator>(this);
  }

  void Freeze() override { frozen_.store(true, std::memory_order_release); }
  bool frozen() const override { return frozen_.load(std::memory_order_acquire); }

  size_t MemoryUsage() const override {
    try {
      return seed_->ApproximateMemoryUsage();
    } catch (const std::exception&) {
      return 0;
    }
  }

  uint64_t NumEntries() const override { return written_.Sum(); }

  uint64_t ApproximateNumEntries(std::string_view start, std::string_view end) const override {
    std::string_view start_key, end_key;
    SequenceNumber start_seq = 0, end_seq = 0;
    if (!SplitInternalKey(start, &start_key, &start_seq) ||
        !SplitInternalKey(end, &end_key, &end_seq)) {
      return 0;
    }
    uint64_t n = 0;
    try {
      for (auto scan = seed_->Scan(); scan->Valid(); scan->Next()) {
        const EntryView e = StoredEntry(scan->key(), scan->value());
        if (CompareEntry(e.user_key, e.sequence(), end_key, end_seq) >= 0) break;
        if (CompareEntry(e.user_key, e.sequence(), start_key, start_seq) >= 0) ++n;
      }
    } catch (const std::exception&) {
    }
    return n;
  }

  // For iterators.
  const SeedTable& seed() const { return *seed_; }
  uint64_t Generation() const { return written_.Sum(); }

 private:
  static Status CheckSize(const EntryView& entry) {
    const size_t bytes = entry.user_key.size() + kTagBytes + entry.value.size();
    if (bytes > kMaxRecordBytes) {
      return Status::InvalidArgument(
          "columnar_memtable stores records of at most " + std::to_string(kMaxRecordBytes) +
          " bytes (key, 8-byte tag and value: its arena chunk); this one has " +
          std::to_string(bytes));
    }
    return Status::OK();
  }

  // Runs a write of the seed; what it throws becomes a status.
  template <typename Fn>
  static Status Guard(Fn&& fn) {
    try {
      fn();
      return Status::OK();
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("columnar_memtable could not allocate");
    } catch (const std::exception& e) {
      return Status::Full(std::string("columnar_memtable refused the write: ") + e.what());
    }
  }

  const std::unique_ptr<SeedTable> seed_;
  WriteCount written_;
  std::atomic<bool> frozen_{false};
};

void ColumnarMemtableIterator::SeekToFirst() {
  try {
    scan_ = rep_->seed().Scan();
    mode_ = Mode::kScan;
    status_ = Status::OK();
  } catch (const std::bad_alloc&) {
    Fail(Status::OutOfMemory("columnar_memtable could not make its ordered scan"));
  } catch (const std::exception& e) {
    Fail(Status::Corruption(std::string("columnar_memtable's scan failed: ") + e.what()));
  }
}

bool ColumnarMemtableIterator::Copy() {
  const uint64_t generation = rep_->Generation();
  if (has_copy_ && generation == copy_generation_) {
    mode_ = Mode::kCopy;
    status_ = Status::OK();
    return true;
  }
  try {
    scan_.reset();
    copy_.clear();
    for (auto scan = rep_->seed().Scan(); scan->Valid(); scan->Next()) {
      copy_.push_back(Item{scan->key(), scan->value()});
    }
  } catch (const std::bad_alloc&) {
    Fail(Status::OutOfMemory("columnar_memtable's iterator could not copy the scan"));
    return false;
  } catch (const std::exception& e) {
    Fail(Status::Corruption(std::string("columnar_memtable's scan failed: ") + e.what()));
    return false;
  }
  has_copy_ = true;
  copy_generation_ = generation;
  mode_ = Mode::kCopy;
  status_ = Status::OK();
  return true;
}

const registry::OptionTable& OptionTableOf() {
  static const registry::OptionTable table =
      registry::OptionTable::For<ColumnarMemtableOptions>("columnar_memtable")
          .Bytes("active_block_bytes", &ColumnarMemtableOptions::active_block_bytes, 116,
                 uint64_t{1} << 30,
                 "the seed's active_block_size_bytes: a shard's active block is sealed at this "
                 "many bytes / 116 records (Create's default)")
          .Count("shards", &ColumnarMemtableOptions::shards, 1, 256,
                 "the seed's num_shards, rounded up to a power of two (Create's default)")
          .Choice("sorter", &ColumnarMemtableOptions::sorter, {"std", "radix"},
                  "how a sealed block is sorted: std (StdSorter, the seed's README and "
                  "benchmark) or radix (ParallelRadixSorter, Create's default)");
  return table;
}

Status CheckRowsFace(const registry::AnyOptions&) { return Status::NotSupported(kNoRows); }

Status Make(const registry::AnyOptions& any, const RepContext& context, std::unique_ptr<Rep>* out) {
  if (context.rows) return Status::NotSupported(kNoRows);
  if (context.comparator != nullptr && context.comparator != BytewiseComparator()) {
    return Status::InvalidArgument(
        std::string("columnar_memtable orders keys bytewise only, not by ") +
        context.comparator->Name());
  }
  const auto& options = any.As<ColumnarMemtableOptions>();
  SeedOptions seed;
  seed.active_block_bytes = options.active_block_bytes;
  seed.shards = options.shards;
  seed.radix_sorter = options.sorter == "radix";
  try {
    *out = std::make_unique<ColumnarMemtableRep>(std::make_unique<SeedTable>(seed));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("columnar_memtable could not be built");
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("columnar_memtable could not be built: ") +
                                   e.what());
  }
  return Status::OK();
}

const registry::Registration& RegistrationOf() {
  static const registry::Registration registration = [] {
    registry::Registration r;
    r.name = kName;
    r.aliases = {"columnar_memtable"};
    r.summary =
        "conanhujinming/columnar_memtable " MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT
        ": sharded hash-indexed active blocks sorted into columnar blocks in the background; "
        "one version per key; a standalone peer (memrep::MemTable only, no RocksDB face)";
    r.traits.concurrent_insert = true;  // Put and PutBatch are thread-safe
    r.traits.duplicates = RepTraits::Duplicates::kNone;
    r.traits.comparators = RepTraits::Comparators::kBytewise;
    // A hash probe of the active and sealed blocks, then per sorted block a
    // Bloom filter and a binary search.
    r.traits.point_read_while_mutable = RepTraits::Cost::kLogarithmic;
    // Seals and sorts the active blocks, then merges every block.
    r.traits.new_iterator_while_mutable = RepTraits::Cost::kLinear;
    r.options = &OptionTableOf();
    r.check_rows_face = CheckRowsFace;
    r.make = Make;
    return r;
  }();
  return registration;
}

// Registered when memrep_bench starts (this file is linked into it only).
const bool kRegistered = [] {
  Status s = registry::Register(&RegistrationOf());
  if (!s.ok()) {
    std::fprintf(stderr, "memrep_bench: columnar_memtable peer not registered: %s\n",
                 s.ToString().c_str());
    return false;
  }
  AddStandalonePeer(StandalonePeer{kName, /*single_version=*/true});
  return true;
}();

}  // namespace
}  // namespace memrep::bench::columnar_peer
