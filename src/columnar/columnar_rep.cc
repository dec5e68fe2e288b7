#include "columnar/columnar_rep.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <random>
#include <thread>
#include <unordered_set>

#include "columnar/columnar_iterator.h"
#include "concurrency/background_pool.h"
#include "format/batch_status.h"
#include "format/coding.h"
#include "runs/run_options.h"
#include "util/hash64.h"

namespace memrep::columnar {

namespace {

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

class ColumnarRep::RegionLock {
 public:
  explicit RegionLock(Region& region) : region_(region) {}
  ~RegionLock() {
    // release: the next holder sees the region's block and chunk as left.
    region_.busy.store(false, std::memory_order_release);
  }
  RegionLock(const RegionLock&) = delete;
  RegionLock& operator=(const RegionLock&) = delete;

 private:
  Region& region_;
};

ColumnarRep::ColumnarRep(const ColumnarOptions& options, const RepContext& context,
                         uint64_t write_buffer_size)
    : order_(context.comparator),
      allocator_(context.allocator),
      rows_(context.rows),
      shards_(options.shards),
      chunk_bytes_(ChunkBytesFor(write_buffer_size)),
      table_(std::countr_zero(EffectiveBlockSize(options, write_buffer_size))),
      index_(EffectiveBucketCount(options, write_buffer_size), &table_, context.allocator),
      regions_(new Region[options.shards]),
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

ColumnarRep::Region& ColumnarRep::Claim() {
  const uint32_t start = concurrency::ThreadSlot() % shards_;
  for (uint32_t i = 0;; ++i) {
    Region& region = regions_[(start + i) % shards_];
    // relaxed test first: a busy region costs a shared read, not a write.
    // acquire: pairs with the last holder's release in ~RegionLock.
    if (!region.busy.load(std::memory_order_relaxed) &&
        !region.busy.exchange(true, std::memory_order_acquire)) {
      return region;
    }
    if (i % shards_ == shards_ - 1) std::this_thread::yield();
  }
}

char* ColumnarRep::TakeBytes(Region& region, size_t n) {
  if (n <= region.left) {
    char* p = region.bytes;
    region.bytes += n;
    region.left -= n;
    return p;
  }
  // A big entry gets its own allocation; the chunk stays for small ones.
  if (n > chunk_bytes_ / 4) return allocator_->AllocateAligned(n);
  char* chunk = allocator_->AllocateAligned(chunk_bytes_);
  if (chunk == nullptr) return nullptr;
  region.bytes = chunk + n;
  region.left = chunk_bytes_ - n;
  return chunk;
}

Status ColumnarRep::TableFull() const {
  return Status::Full("the columnar rep has used all " +
                      std::to_string(table_.mapped_blocks() - 1) +
                      " of its blocks; switch memtables (or use a larger block_size)");
}

Status ColumnarRep::Reserve(Region& region, EntryRef* ref, Block** out) {
  Block* block = region.block;
  if (block == nullptr || block->reserved.load(std::memory_order_relaxed) == block->capacity) {
    // relaxed: a counter; the block table and the sets publish blocks. A
    // refused number stays taken (the table is full for good).
    if (next_block_.load(std::memory_order_relaxed) >= table_.mapped_blocks()) return TableFull();
    const uint32_t number = next_block_.fetch_add(1, std::memory_order_relaxed);
    if (number >= table_.mapped_blocks()) return TableFull();
    char* memory = allocator_->AllocateAligned(Block::BytesFor(table_.capacity()));
    if (memory == nullptr) return Status::OutOfMemory("could not allocate a columnar block");
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

bool ColumnarRep::Store(Region* region, Block* block, EntryRef ref, const char* key,
                        uint32_t key_len, uint64_t tag, uint32_t value_len, uint64_t hash,
                        Status* s) {
  const uint32_t i = table_.IndexOf(ref);
  Meta& meta = block->meta[i];
  meta.key = key;
  meta.key_len = key_len;
  meta.value_len = value_len;
  meta.tag = tag;
  block->prefix[i] = order_.Prefix(std::string_view(key, key_len));
  switch (index_.Insert(order_, ref, hash)) {
    case ColumnIndex::Result::kLinked:
      block->Resolve(i, Meta::kReady, region != nullptr);
      CountEntry(region);
      return true;
    case ColumnIndex::Result::kDuplicate:
      *s = format::DuplicateRecordStatus(TagSequence(tag));
      break;
    case ColumnIndex::Result::kNoMemory:
      *s = Status::OutOfMemory("could not allocate an overflow bucket of the columnar index");
      break;
  }
  block->Resolve(i, Meta::kRefused, region != nullptr);
  return false;
}

// ---- Rows ----

Status ColumnarRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  Region& region = Claim();
  RegionLock lock(region);
  // A 4-byte header in front of the row names the entry reserved for it.
  char* memory = TakeBytes(region, sizeof(EntryRef) + len);
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
  const uint64_t tag = format::DecodeFixed64(key + key_len);
  uint32_t value_len;
  format::DecodeVarint32(key + internal_key_len, &value_len);
  Status ignored;
  return Store(nullptr, table_.BlockOf(ref), ref, key, key_len, tag, value_len,
               util::Hash(std::string_view(key, key_len)), &ignored);
}

template <typename Fn>
void ColumnarRep::ForVersions(std::string_view internal_key, uint64_t hash, Fn&& fn) const {
  const std::string_view user = internal_key.substr(0, internal_key.size() - 8);
  const uint64_t seq =
      TagSequence(format::DecodeFixed64(internal_key.data() + internal_key.size() - 8));
  for (EntryRef ref = index_.Find(order_, user, hash); ref != 0; ref = index_.Older(ref)) {
    if (TagSequence(table_.MetaOf(ref).tag) > seq) continue;  // newer than the snapshot
    if (!fn(ref)) return;
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

Status ColumnarRep::Add(const EntryView& entry, bool /*concurrent*/) {
  return AddBatch(std::span<const EntryView>(&entry, 1), false);
}

Status ColumnarRep::AddBatch(std::span<const EntryView> entries, bool /*concurrent*/) {
  // Index buckets are loaded kAhead entries ahead of their insert.
  constexpr size_t kAhead = 8;
  uint64_t hashes[kAhead];
  const size_t n = entries.size();
  for (size_t j = 0; j < std::min(n, kAhead); ++j) {
    hashes[j] = util::Hash(entries[j].user_key);
    index_.Prefetch(hashes[j]);
  }
  Region& region = Claim();
  RegionLock lock(region);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < n) {
      hashes[i % kAhead] = util::Hash(entries[i + kAhead].user_key);
      index_.Prefetch(hashes[i % kAhead]);
    }
    const EntryView& e = entries[i];
    Status s;
    char* bytes = TakeBytes(region, e.user_key.size() + e.value.size());
    if (bytes == nullptr) {
      s = Status::OutOfMemory("could not allocate an entry's bytes");
    } else {
      if (!e.user_key.empty()) std::memcpy(bytes, e.user_key.data(), e.user_key.size());
      if (!e.value.empty()) std::memcpy(bytes + e.user_key.size(), e.value.data(), e.value.size());
      EntryRef ref;
      Block* block;
      s = Reserve(region, &ref, &block);
      if (s.ok() && Store(&region, block, ref, bytes, uint32_t(e.user_key.size()), e.tag,
                          uint32_t(e.value.size()), hash, &s)) {
        continue;
      }
    }
    return n == 1 ? s : format::BatchRecordStatus(i, s);
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

uint64_t ColumnarRep::NumEntries() const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < shards_; ++i) n += regions_[i].count.load(std::memory_order_relaxed);
  return n;
}

size_t ColumnarRep::MemoryUsage() const {
  // Blocks, byte chunks and overflow buckets are the Allocator's (it counts
  // them); the bucket array is charged in full, the block table as touched,
  // and the sorted blocks in advance.
  const uint64_t blocks = UsedBlocks();
  return index_.bytes() + BlockTable::TouchedBytes(blocks) + shards_ * sizeof(Region) +
         NumEntries() * kChargedSortBytesPerEntry;
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
