#include "sorted_hash/sorted_hash_rep.h"

#include <algorithm>
#include <new>

#include "concurrency/background_pool.h"
#include "rep/batch_status.h"
#include "runs/run_iterator.h"
#include "runs/run_options.h"

namespace memrep::sorted_hash {

uint64_t EffectiveBucketCount(const SortedHashOptions& options, uint64_t write_buffer_size) {
  // A count given is honoured as it is; an automatic one is at least
  // kMinAutoBuckets, so that a tiny write buffer still spreads its keys.
  const uint64_t wanted =
      options.bucket_count != 0
          ? options.bucket_count
          : std::max(write_buffer_size / SortedHashOptions::kWriteBufferBytesPerBucket,
                     SortedHashOptions::kMinAutoBuckets);
  return std::min(wanted, SortedHashOptions::kMaxBucketCount);
}

namespace {

// The largest table the index grows to: bucket_count if given.
uint64_t MaxBuckets(const SortedHashOptions& options) {
  return options.bucket_count != 0 ? options.bucket_count : SortedHashOptions::kMaxBucketCount;
}

// The first table: sized for the memtable where its size is known (the
// standalone face, or the write_buffer_size option), else as small as the
// smallest memtable needs (RocksDB's face: RocksDB does not say, HashIndex).
uint64_t FirstBuckets(const SortedHashOptions& options, uint64_t known_write_buffer_size) {
  if (known_write_buffer_size != 0) return EffectiveBucketCount(options, known_write_buffer_size);
  return std::min(HashIndex::kFirstBuckets, MaxBuckets(options));
}

}  // namespace

SortedHashRep::SortedHashRep(const SortedHashOptions& options, const RepContext& context,
                             uint64_t write_buffer_size, uint64_t region_bytes)
    : order_(context.comparator),
      region_(context.allocator, RowRegion::ChunkBytesFor(write_buffer_size), sizeof(Node),
              region_bytes),
      index_(&region_, FirstBuckets(options, runs::KnownWriteBufferSize(options, context)),
             MaxBuckets(options), SortedHashOptions::kWriteBufferBytesPerBucket),
      runs_(std::make_shared<runs::RunIndex>(runs::RunIndexOptionsOf(options), order_, region_,
                                             context.background != nullptr
                                                 ? *context.background
                                                 : concurrency::BackgroundPool::Shared())) {}

Status SortedHashRep::Make(const SortedHashOptions& options, const RepContext& context,
                           std::unique_ptr<Rep>* out, uint64_t region_bytes) {
  std::unique_ptr<SortedHashRep> rep;
  try {
    rep.reset(new SortedHashRep(options, context, runs::WriteBufferSizeFor(options, context),
                                region_bytes));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a sorted hash rep");
  }
  rep->region_.GrowChunks();
  Status s = rep->region_.Init();
  if (s.ok()) s = rep->index_.Init(context.allocator);
  if (!s.ok()) return s;
  *out = std::move(rep);
  return Status::OK();
}

SortedHashRep::~SortedHashRep() { runs_->Close(); }

Status SortedHashRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  RowRef ref;
  Status s = region_.Allocate(len, &ref);
  if (!s.ok()) return s;
  Node* node = new (region_.At(ref)) Node();
  *row = const_cast<char*>(node->row());
  // The handle is the node's reference (never 0), not a pointer: a pointer
  // cannot be turned back into a reference.
  *handle = reinterpret_cast<KeyHandle>(static_cast<uintptr_t>(ref));
  return Status::OK();
}

bool SortedHashRep::InsertRow(KeyHandle handle, bool exclusive) {
  const auto ref = static_cast<RowRef>(reinterpret_cast<uintptr_t>(handle));
  Node* node = NodeAt(region_, ref);
  uint64_t tag;
  if (!index_.Insert(order_, node, ref, util::Hash(format::RowUserKey(node->row(), &tag)))) {
    return false;
  }
  runs_->Push(ref, exclusive);
  index_.MaybeGrow(region_.ChunkBytes(), [&] { return runs_->Count(); });
  return true;
}

void SortedHashRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  // The key's versions alone: the chain's other keys are in no order.
  index_.ForEachVersion(order_, internal_key, HashIndex::HashOf(internal_key),
                        [&](const Node* node) { return callback(arg, node->row()); });
}

namespace {

// Get's chain walks for a batch of keys: on_node(i, node) on each version of
// key i until it returns false. A software pipeline: key i + kAhead's bucket
// is being loaded, key i + kAhead / 2's first node, while key i's chain is
// walked.
template <class OnNode>
void WalkChains(const HashIndex& index, const format::KeyOrder& order,
                std::span<const std::string_view> internal_keys, OnNode&& on_node) {
  constexpr size_t kAhead = 8;
  const size_t n = internal_keys.size();
  uint64_t hashes[kAhead];  // of keys i .. i + kAhead - 1, by index % kAhead
  for (size_t j = 0; j < std::min(n, kAhead); ++j) {
    hashes[j] = HashIndex::HashOf(internal_keys[j]);
    index.PrefetchBucket(hashes[j]);
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < n) {
      hashes[i % kAhead] = HashIndex::HashOf(internal_keys[i + kAhead]);
      index.PrefetchBucket(hashes[i % kAhead]);
    }
    if (i + kAhead / 2 < n) index.PrefetchHead(hashes[(i + kAhead / 2) % kAhead]);
    index.ForEachVersion(order, internal_keys[i], hash,
                         [&](const Node* node) { return on_node(i, node); });
  }
}

}  // namespace

void SortedHashRep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                             MultiEntryCallback callback) const {
  WalkChains(index_, order_, internal_keys,
             [&](size_t i, const Node* node) { return callback(arg, i, DecodeRow(node->row())); });
}

void SortedHashRep::MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                                 MultiRowCallback callback) const {
  WalkChains(index_, order_, internal_keys,
             [&](size_t i, const Node* node) { return callback(arg, i, node->row()); });
}

Status SortedHashRep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  // Chunks of the batch, so that the bookkeeping lives on the stack.
  constexpr size_t kChunk = 128;
  constexpr size_t kAhead = 8;  // as MultiGet: buckets kAhead ahead, heads kAhead / 2
  size_t sizes[kChunk];
  RowRef refs[kChunk];
  uint64_t hashes[kChunk];
  for (size_t first = 0; first < entries.size(); first += kChunk) {
    const std::span<const EntryView> chunk =
        entries.subspan(first, std::min(kChunk, entries.size() - first));
    for (size_t j = 0; j < chunk.size(); ++j) {
      sizes[j] = RowSize(chunk[j].user_key.size(), chunk[j].value.size());
      hashes[j] = util::Hash(chunk[j].user_key);
      if (j < kAhead) index_.PrefetchBucket(hashes[j]);
    }
    size_t allocated = 0;
    // Why the chunk stops early, if it does: no node for a record, or a record refused.
    Status s = region_.AllocateMany(sizes, chunk.size(), refs, &allocated);
    size_t stored = 0;
    for (; stored < allocated; ++stored) {
      if (stored + kAhead < allocated) index_.PrefetchBucket(hashes[stored + kAhead]);
      if (stored + kAhead / 2 < allocated) index_.PrefetchHead(hashes[stored + kAhead / 2]);
      Node* node = new (region_.At(refs[stored])) Node();
      EncodeRow(const_cast<char*>(node->row()), chunk[stored]);
      if (!index_.Insert(order_, node, refs[stored], hashes[stored])) {
        s = rep::DuplicateRecordStatus(chunk[stored].sequence());
        break;
      }
      // Each node's link names the one before it; PushChain links the first.
      if (stored > 0) node->list_next = refs[stored - 1];
    }
    if (stored > 0) runs_->PushChain(refs[stored - 1], refs[0], stored, /*exclusive=*/!concurrent);
    index_.MaybeGrow(region_.ChunkBytes(), [&] { return runs_->Count(); });
    if (stored < chunk.size()) return rep::BatchRecordStatus(first + stored, s);
  }
  return Status::OK();
}

bool SortedHashRep::Contains(std::string_view internal_key) const {
  return index_.Contains(order_, internal_key);
}

std::unique_ptr<RepIterator> SortedHashRep::NewIterator() const {
  return std::make_unique<runs::RunIterator>(runs_.get());
}

size_t SortedHashRep::MemoryUsage() const {
  // Nodes and buckets are taken from the Allocator, which counts them (a
  // bucket array too big for it is mapped, and charged here), buckets as the
  // index grows (HashIndex); the region's
  // chunk table is charged as it grows, the runs as they are built
  // (RunIndex::ChargedBytes).
  return region_.TableBytes() + index_.MappedBytes() + runs_->ChargedBytes();
}

Status SortedHashRep::RandomSample(size_t target, uint64_t seed,
                                   std::vector<const char*>* out) const {
  return runs_->RandomSample(target, seed, out);
}

}  // namespace memrep::sorted_hash
