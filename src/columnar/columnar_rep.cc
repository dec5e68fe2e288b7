#include "columnar/columnar_rep.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <random>
#include <unordered_set>

#include "columnar/columnar_iterator.h"
#include "concurrency/background_pool.h"
#include "format/coding.h"
#include "memory/populate.h"
#include "rep/batch_duplicates.h"
#include "rep/batch_status.h"
#include "runs/run_options.h"
#include "util/hash64.h"

namespace memrep::columnar {

namespace {

// Ages (pushes since its own) at which a queued entry's insert has the
// metadata, then the key, of the version it meets in its bucket loaded;
// done once this many of the region's last 16 links met a version.
constexpr uint32_t kVersionMetaAge = LinkQueue::kDepth / 2;
constexpr uint32_t kVersionKeyAge = LinkQueue::kDepth - 2;
constexpr int kVersionsMetToPrefetch = 4;

// Blocks a table maps at most (8 bytes each, touched as used): with the
// smallest blocks this still names 64M entries.
constexpr uint32_t kMaxTableBlocks = uint32_t{1} << 22;

// An arena (RocksDB's, memrep's) hands an allocation of more than a quarter
// of its block size a block of its own, of exactly that size, and carves
// smaller ones from shared blocks, wasting what is left of a block that the
// next one does not fit. RocksDB sizes its arena blocks min(1 MiB,
// write_buffer_size / 8): the rep's big allocations (blocks of columns, byte
// chunks) are made larger than a quarter of that, so none is carved.
uint64_t OwnBlockBytes(uint64_t write_buffer_size) {
  return std::min<uint64_t>(uint64_t{1} << 20, write_buffer_size / 8) / 4 + 64;
}

// The byte chunk a writer region takes from the Allocator at a time.
size_t ChunkBytesFor(uint64_t write_buffer_size) {
  return std::max<uint64_t>(std::clamp<uint64_t>(write_buffer_size / 64, 4096, 256 * 1024),
                            OwnBlockBytes(write_buffer_size));
}

}  // namespace

uint32_t EffectiveBlockSize(const ColumnarOptions& options, uint64_t write_buffer_size) {
  using O = ColumnarOptions;
  // Auto: the smallest power of two whose columns make an allocation of its
  // own (OwnBlockBytes), at least 256 entries.
  const uint64_t wanted =
      options.block_size != 0
          ? options.block_size
          : std::bit_ceil(std::max<uint64_t>(
                256, OwnBlockBytes(write_buffer_size) / (sizeof(uint64_t) + sizeof(Meta)) + 1));
  return std::bit_floor(
      static_cast<uint32_t>(std::clamp<uint64_t>(wanted, O::kMinBlockSize, O::kMaxBlockSize)));
}

uint64_t EffectiveBucketCount(const ColumnarOptions& options, uint64_t write_buffer_size) {
  using O = ColumnarOptions;
  const uint64_t wanted =
      options.bucket_count != 0
          ? options.bucket_count
          : std::max(write_buffer_size / O::kWriteBufferBytesPerBucket, O::kMinAutoBuckets);
  return std::bit_ceil(std::min(wanted, O::kMaxBucketCount));
}

ColumnarRep::ColumnarRep(const ColumnarOptions& options, const RepContext& context,
                         uint64_t write_buffer_size)
    : order_(context.comparator),
      allocator_(context.allocator),
      rows_(context.rows),
      table_(std::countr_zero(EffectiveBlockSize(options, write_buffer_size))),
      index_(EffectiveBucketCount(options, write_buffer_size), &table_, context.allocator),
      regions_(options.shards, context.allocator, ChunkBytesFor(write_buffer_size)),
      owner_(rep::BatchDuplicates::NewOwner()),
      sets_(std::make_shared<BlockSets>(table_, order_, options.max_sorted_blocks,
                                        context.background != nullptr
                                            ? *context.background
                                            : concurrency::BackgroundPool::Shared())) {}

Status ColumnarRep::Make(const ColumnarOptions& options, const RepContext& context,
                         std::unique_ptr<Rep>* out) {
  std::unique_ptr<ColumnarRep> rep;
  try {
    rep.reset(new ColumnarRep(options, context, runs::WriteBufferSizeFor(options, context)));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a columnar rep");
  }
  Status s = rep->table_.Init(std::min(rep->table_.max_blocks(), kMaxTableBlocks));
  if (s.ok()) s = rep->index_.Init();
  if (!s.ok()) return s;
  *out = std::move(rep);
  return Status::OK();
}

ColumnarRep::~ColumnarRep() { sets_->Close(); }

Status ColumnarRep::NoOverflowBucket() {
  return Status::OutOfMemory(
      "could not allocate an overflow bucket of the columnar index; switch memtables");
}

Status ColumnarRep::TableFull() const {
  return Status::Full("the columnar rep has used all " +
                      std::to_string(table_.mapped_blocks() - 1) +
                      " of its blocks; switch memtables (or use a larger block_size)");
}

Status ColumnarRep::Reserve(WriterRegion& region, EntryRef* ref, Block** out) {
  Block* block = region.block;
  if (block == nullptr || block->reserved.load(std::memory_order_relaxed) == block->capacity) {
    // relaxed: a counter; the block table and the sets publish blocks. A
    // refused number stays taken (the table is full for good).
    if (next_block_.load(std::memory_order_relaxed) >= table_.mapped_blocks()) return TableFull();
    const uint32_t number = next_block_.fetch_add(1, std::memory_order_relaxed);
    if (number >= table_.mapped_blocks()) return TableFull();
    char* memory = allocator_->AllocateAligned(Block::BytesFor(table_.capacity()));
    if (memory == nullptr) return Status::OutOfMemory("could not allocate a columnar block");
    memory::PrefaultWholePages(memory, Block::BytesFor(table_.capacity()));
    Block* fresh = Block::Create(memory, number, table_.capacity(), rows_);
    table_.Set(number, fresh);
    try {
      sets_->AddBlock(fresh);
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("could not record a new columnar block");
    }
    if (block != nullptr) {
      // release: the strand that sees the flag sees `reserved` final.
      block->sealed.store(true, std::memory_order_release);
      sets_->Sealed();
    }
    region.block = block = fresh;
  }
  const uint32_t i = block->reserved.load(std::memory_order_relaxed);
  block->meta[i].state.store(Meta::kPending, std::memory_order_relaxed);
  // release: a reader that sees the count sees the entry's state initialised.
  block->reserved.store(i + 1, std::memory_order_release);
  *ref = table_.Ref(block->number, i);
  *out = block;
  return Status::OK();
}

void ColumnarRep::Fill(Block* block, uint32_t i, const char* key, uint32_t key_len, uint64_t tag,
                       uint32_t value_len) {
  Meta& meta = block->meta[i];
  meta.key = key;
  meta.key_len = key_len;
  meta.value_len = value_len;
  meta.tag = tag;
  meta.older.store(0, std::memory_order_relaxed);  // published by the state's release
  block->prefix[i] = order_.Prefix(std::string_view(key, key_len));
}

Status ColumnarRep::Admit(const Meta& meta) const {
  using D = rep::BatchDuplicates;
  switch (
      D::Admit(owner_, order_, std::string_view(meta.key, meta.key_len), TagSequence(meta.tag))) {
    case D::Result::kNew:
      return Status::OK();
    case D::Result::kDuplicate:
      return rep::DuplicateRecordStatus(TagSequence(meta.tag));
    case D::Result::kNoMemory:
      break;
  }
  return Status::OutOfMemory("could not record the batch's keys to find duplicates");
}

bool ColumnarRep::LinkOldest(WriterRegion& region) {
  switch (index_.Insert(order_, region.queue.oldest_ref(), region.queue.oldest_hash())) {
    case ColumnIndex::Result::kNoMemory:
      return false;  // it stays queued, where reads still find it
    case ColumnIndex::Result::kDuplicate:
      // Another thread stored the same (user key, sequence), which the
      // caller must not do (kInBatch, contract point 4): the index keeps the
      // version it has; this one stays in its block, for iterators.
    case ColumnIndex::Result::kLinked:
      region.versions_met >>= 1;
      break;
    case ColumnIndex::Result::kLinkedVersion:
      region.versions_met = (region.versions_met >> 1) | 0x8000;
      break;
  }
  region.queue.Pop();
  return true;
}

void ColumnarRep::Enqueue(WriterRegion& region, EntryRef ref, uint64_t hash) {
  if (region.queue.empty()) {
    const uint32_t i = regions_.IndexOf(region);
    const uint64_t bit = uint64_t{1} << (i % 64);
    // relaxed: the bit is set before the push in this thread, so before
    // whatever follows the insert's return; a reader ordered after that sees
    // it (see queued_); the entries themselves are published by the queue.
    if ((queued_[i / 64].load(std::memory_order_relaxed) & bit) == 0) {
      queued_[i / 64].fetch_or(bit, std::memory_order_relaxed);
    }
  }
  region.queue.Push(ref, hash);
  // The link of an entry comes kDepth pushes after its own; meanwhile its
  // bucket, then the metadata and the key of the version it may meet there,
  // are loaded, one dependent step every few pushes.
  index_.PrefetchForInsert(hash);
  // Only where links met versions lately (updates): elsewhere reading the
  // bucket early would only wait for it.
  if (std::popcount(region.versions_met) < kVersionsMetToPrefetch) return;
  const uint32_t queued = region.queue.size();
  if (queued > kVersionMetaAge)
    index_.PrefetchVersion(region.queue.hash_at_age(kVersionMetaAge), 1);
  if (queued > kVersionKeyAge) index_.PrefetchVersion(region.queue.hash_at_age(kVersionKeyAge), 2);
}

// ---- Rows ----

Status ColumnarRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  WriterRegion& region = regions_.Claim();
  WriterRegions::Lock lock(region);
  // A 4-byte header in front of the row names the entry reserved for it.
  char* memory = regions_.TakeBytes(region, sizeof(EntryRef) + len);
  if (memory == nullptr) return Status::OutOfMemory("could not allocate a row");
  EntryRef ref;
  Block* block;
  Status s = Reserve(region, &ref, &block);
  if (!s.ok()) return s;
  std::memcpy(memory, &ref, sizeof ref);
  *handle = memory;
  *row = memory + sizeof(EntryRef);
  return Status::OK();
}

bool ColumnarRep::InsertRow(KeyHandle handle) {
  const char* memory = static_cast<const char*>(handle);
  EntryRef ref;
  std::memcpy(&ref, memory, sizeof ref);
  const char* row = memory + sizeof(EntryRef);
  uint32_t internal_key_len;
  const char* key = format::DecodeVarint32(row, &internal_key_len);
  const uint32_t key_len = internal_key_len - 8;
  uint32_t value_len;
  format::DecodeVarint32(key + internal_key_len, &value_len);
  Block* block = table_.BlockOf(ref);
  const uint32_t i = table_.IndexOf(ref);
  Fill(block, i, key, key_len, format::DecodeFixed64(key + key_len), value_len);
  const uint64_t hash = util::Hash(std::string_view(key, key_len));
  // A refused row (a duplicate; or no memory, which RocksDB also retries at
  // a new sequence) stays in its block as refused.
  bool stored = false;
  if (Admit(block->meta[i]).ok()) {
    WriterRegion& region = regions_.Claim();
    WriterRegions::Lock lock(region);
    if (MakeRoom(region)) {
      // Not exclusive: the block is the region Allocate used, not this one.
      Finish(region, Staged{block, ref, hash}, /*exclusive=*/false);
      stored = true;
    }
  }
  if (!stored) block->Resolve(i, Meta::kRefused, /*exclusive=*/false);
  return stored;
}

size_t ColumnarRep::QueuedVersions(std::string_view user_key, uint64_t hash, EntryRef* out) const {
  const uint64_t fp = hash & LinkQueue::kFingerprintMask;
  size_t n = 0;
  for (uint32_t w = 0; w < kQueuedWords && w * 64 < regions_.size(); ++w) {
    // relaxed: see queued_; the queue's own loads acquire what it holds.
    for (uint64_t bits = queued_[w].load(std::memory_order_relaxed); bits != 0; bits &= bits - 1) {
      regions_[w * 64 + std::countr_zero(bits)].queue.ForEach([&](uint64_t v) {
        if ((v & LinkQueue::kFingerprintMask) != fp) return;
        const auto ref = static_cast<EntryRef>(v);
        const Meta& m = table_.MetaOf(ref);
        if (order_.CompareUserKeys(std::string_view(m.key, m.key_len), user_key) != 0) return;
        // Newest first (insertion: a key rarely has more than one here).
        size_t j = n++;
        for (; j > 0 && TagSequence(table_.MetaOf(out[j - 1]).tag) < TagSequence(m.tag); --j) {
          out[j] = out[j - 1];
        }
        out[j] = ref;
      });
    }
  }
  return n;
}

template <typename Fn>
void ColumnarRep::ForVersions(std::string_view internal_key, uint64_t hash, Fn&& fn) const {
  const std::string_view user = internal_key.substr(0, internal_key.size() - 8);
  const uint64_t seq =
      TagSequence(format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
  const auto seq_of = [&](EntryRef ref) { return TagSequence(table_.MetaOf(ref).tag); };
  // The queues are read before the index (link_queue.h): an entry that
  // leaves a queue meanwhile is then in the index.
  EntryRef queued[ColumnarOptions::kMaxShards * LinkQueue::kDepth];
  const size_t n = QueuedVersions(user, hash, queued);
  EntryRef chain = index_.Find(order_, user, hash);
  // Both lists are newest first: merge them (with no queued version, this
  // walks the chain); an entry linked after the queues were read is in
  // both, one after the other.
  size_t q = 0;
  for (EntryRef last = 0;;) {
    EntryRef next;
    if (q < n && (chain == 0 || seq_of(queued[q]) >= seq_of(chain))) {
      next = queued[q++];
    } else if (chain != 0) {
      next = chain;
      chain = index_.Older(chain);
    } else {
      return;
    }
    if (next == last) continue;
    last = next;
    if (seq_of(next) > seq) continue;  // newer than the snapshot
    if (!fn(next)) return;
  }
}

void ColumnarRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  ForVersions(
      internal_key, util::Hash(internal_key.substr(0, internal_key.size() - 8)),
      [&](EntryRef ref) { return callback(arg, table_.BlockOf(ref)->row(table_.IndexOf(ref))); });
}

bool ColumnarRep::Contains(std::string_view internal_key) const {
  const uint64_t seq =
      TagSequence(format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
  bool found = false;
  ForVersions(internal_key, util::Hash(internal_key.substr(0, internal_key.size() - 8)),
              [&](EntryRef ref) {
                found = TagSequence(table_.MetaOf(ref).tag) == seq;
                return false;  // the first at or after the key decides
              });
  return found;
}

Status ColumnarRep::RandomSample(size_t target, uint64_t seed,
                                 std::vector<const char*>* out) const {
  if (!rows_) return Status::NotSupported("RandomSample serves rows; this rep has none");
  try {
    const uint32_t blocks = UsedBlocks();
    const auto each_ready = [&](auto&& fn) {
      for (uint32_t number = 1; number < blocks; ++number) {
        const Block* block = table_.Get(number);
        if (block == nullptr) continue;
        const uint32_t reserved = block->reserved.load(std::memory_order_acquire);
        for (uint32_t i = 0; i < reserved; ++i) {
          if (block->ready(i)) fn(block, i);
        }
      }
    };
    const uint64_t n = NumEntries();
    if (target >= n) {
      each_ready([&](const Block* block, uint32_t i) { out->push_back(block->row(i)); });
      return Status::OK();
    }
    // Distinct entries drawn at random: a block, then an index in it.
    std::mt19937_64 rng(seed);
    std::unordered_set<EntryRef> chosen;
    for (uint64_t attempt = 0; chosen.size() < target && attempt < 64 * target + 1024; ++attempt) {
      const uint32_t number = 1 + uint32_t(rng() % std::max<uint32_t>(1, blocks - 1));
      const Block* block = number < blocks ? table_.Get(number) : nullptr;
      if (block == nullptr) continue;
      const uint32_t reserved = block->reserved.load(std::memory_order_acquire);
      if (reserved == 0) continue;
      const uint32_t i = uint32_t(rng() % reserved);
      if (block->ready(i) && chosen.insert(table_.Ref(number, i)).second) {
        out->push_back(block->row(i));
      }
    }
    // Unlucky draws: complete the sample with entries not yet chosen.
    each_ready([&](const Block* block, uint32_t i) {
      if (chosen.size() < target && chosen.insert(table_.Ref(block->number, i)).second) {
        out->push_back(block->row(i));
      }
    });
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a random sample");
  }
}

// ---- Views ----

Status ColumnarRep::Stage(WriterRegion& region, const EntryView& e, bool admit, Staged* out) {
  out->hash = util::Hash(e.user_key);
  char* bytes = regions_.TakeBytes(region, e.user_key.size() + e.value.size());
  if (bytes == nullptr) return Status::OutOfMemory("could not allocate an entry's bytes");
  if (!e.user_key.empty()) std::memcpy(bytes, e.user_key.data(), e.user_key.size());
  if (!e.value.empty()) std::memcpy(bytes + e.user_key.size(), e.value.data(), e.value.size());
  Status s = Reserve(region, &out->ref, &out->block);
  if (!s.ok()) return s;
  const uint32_t i = table_.IndexOf(out->ref);
  Fill(out->block, i, bytes, uint32_t(e.user_key.size()), e.tag, uint32_t(e.value.size()));
  if (!admit) return Status::OK();
  s = Admit(out->block->meta[i]);
  if (!s.ok()) out->block->Resolve(i, Meta::kRefused, /*exclusive=*/true);
  return s;
}

void ColumnarRep::Finish(WriterRegion& region, const Staged& staged, bool exclusive) {
  staged.block->Resolve(table_.IndexOf(staged.ref), Meta::kReady, exclusive);
  regions_.CountEntry(&region);
  Enqueue(region, staged.ref, staged.hash);
}

Status ColumnarRep::Add(const EntryView& entry, bool /*concurrent*/) {
  WriterRegion& region = regions_.Claim();
  WriterRegions::Lock lock(region);
  // Room first: the link's atomic then waits for no store of this entry.
  if (!MakeRoom(region)) return NoOverflowBucket();
  Staged staged;
  Status s = Stage(region, entry, /*admit=*/true, &staged);
  if (s.ok()) Finish(region, staged);
  return s;
}

namespace {

// Whether a batch's record i must go through BatchDuplicates: a duplicate
// it finds is a record at the sequence of the records just before it, and
// only a record that such a record may follow need be recorded. So a record
// between two of other sequences (most batches: one sequence a record) is
// skipped; the first and last are not, as the thread's runs go on across
// calls.
bool NeedsAdmit(std::span<const EntryView> entries, size_t i) {
  const SequenceNumber seq = entries[i].sequence();
  return i == 0 || i + 1 == entries.size() || entries[i - 1].sequence() == seq ||
         entries[i + 1].sequence() == seq;
}

}  // namespace

Status ColumnarRep::AddBatch(std::span<const EntryView> entries, bool /*concurrent*/) {
  // One region claim. Entries go in groups: first every entry of the group
  // is written (streaming stores, its bucket prefetched), then each is
  // published, which links an older one: the links' atomics come together,
  // and only the first waits for the group's stores to drain.
  constexpr size_t kGroup = 16;
  WriterRegion& region = regions_.Claim();
  WriterRegions::Lock lock(region);
  const size_t n = entries.size();
  for (size_t start = 0; start < n; start += kGroup) {
    const size_t m = std::min(kGroup, n - start);
    Staged staged[kGroup];
    size_t k = 0;
    Status s;
    for (; k < m; ++k) {
      s = Stage(region, entries[start + k], NeedsAdmit(entries, start + k), &staged[k]);
      if (!s.ok()) break;
      index_.PrefetchForInsert(staged[k].hash);
    }
    for (size_t j = 0; j < k; ++j) {
      if (!MakeRoom(region)) {
        // Unpublished entries are refused, from this one on.
        for (size_t r = j; r < k; ++r) {
          staged[r].block->Resolve(table_.IndexOf(staged[r].ref), Meta::kRefused, true);
        }
        s = NoOverflowBucket();
        k = j;
        break;
      }
      Finish(region, staged[j]);
    }
    if (!s.ok()) return n == 1 ? s : rep::BatchRecordStatus(start + k, s);
  }
  return Status::OK();
}

void ColumnarRep::Get(std::string_view internal_key, void* arg, EntryCallback callback) const {
  ForVersions(internal_key, util::Hash(internal_key.substr(0, internal_key.size() - 8)),
              [&](EntryRef ref) { return callback(arg, table_.EntryOf(ref)); });
}

void ColumnarRep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                           MultiEntryCallback callback) const {
  constexpr size_t kAhead = 8;
  uint64_t hashes[kAhead];
  const size_t n = internal_keys.size();
  const auto hash_of = [](std::string_view ik) { return util::Hash(ik.substr(0, ik.size() - 8)); };
  for (size_t j = 0; j < std::min(n, kAhead); ++j) {
    hashes[j] = hash_of(internal_keys[j]);
    index_.Prefetch(hashes[j]);
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < n) {
      hashes[i % kAhead] = hash_of(internal_keys[i + kAhead]);
      index_.Prefetch(hashes[i % kAhead]);
    }
    ForVersions(internal_keys[i], hash,
                [&](EntryRef ref) { return callback(arg, i, table_.EntryOf(ref)); });
  }
}

// ---- Both ----

std::unique_ptr<RepIterator> ColumnarRep::NewIterator() const {
  return std::make_unique<ColumnarIterator>(table_, order_, sets_);
}

uint64_t ColumnarRep::NumEntries() const { return regions_.NumEntries(); }

size_t ColumnarRep::MemoryUsage() const {
  // Blocks, byte chunks and overflow buckets are the Allocator's (it counts
  // them); the bucket array is charged in full, the block table as touched,
  // and the sorted blocks in advance.
  const uint64_t blocks = UsedBlocks();
  return index_.bytes() + BlockTable::TouchedBytes(blocks) +
         regions_.size() * sizeof(WriterRegion) + NumEntries() * kChargedSortBytesPerEntry;
}

bool ColumnarRep::NearlyFull() const { return UsedBlocks() > table_.mapped_blocks() / 4 * 3; }

uint64_t ColumnarRep::ApproximateNumEntries(std::string_view start, std::string_view end) const {
  try {
    const std::shared_ptr<const BlockSets::Set> set = sets_->Current();
    const Target lo = Target::Of(order_, start), hi = Target::Of(order_, end);
    uint64_t n = 0;
    for (const auto& sorted : set->sorted) {
      const size_t a = sorted->Bound(table_, order_, lo, false);
      const size_t b = sorted->Bound(table_, order_, hi, false);
      if (b > a) n += b - a;
    }
    for (const Block* block : set->pending) {
      const uint32_t reserved = block->reserved.load(std::memory_order_acquire);
      for (uint32_t i = 0; i < reserved; ++i) {
        if (!block->ready(i)) continue;
        const EntryRef ref = table_.Ref(block->number, i);
        if (CompareToTarget(table_, order_, ref, lo) >= 0 &&
            CompareToTarget(table_, order_, ref, hi) < 0) {
          ++n;
        }
      }
    }
    return n;
  } catch (const std::bad_alloc&) {
    return 0;
  }
}

}  // namespace memrep::columnar
