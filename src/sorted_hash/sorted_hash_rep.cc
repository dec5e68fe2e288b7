#include "sorted_hash/sorted_hash_rep.h"

#include <algorithm>
#include <new>

#include "rep/batch_status.h"
#include "runs/run_options.h"

namespace memrep::sorted_hash {

SortedHashRep::SortedHashRep(const SortedHashOptions& options, const RepContext& context,
                             uint64_t region_bytes)
    : RunRep(context, runs::RunIndexOptionsOf(options),
             RowRegion::ChunkBytesFor(runs::WriteBufferSizeFor(options, context)), sizeof(Node),
             region_bytes),
      // The first table: sized for the memtable where its size is known (the
      // standalone face, or the write_buffer_size option), else as small as
      // the smallest memtable needs (RocksDB's face: RocksDB does not say).
      index_(&region_,
             concurrency::FirstBuckets(options, runs::KnownWriteBufferSize(options, context),
                                       HashIndex::kFirstBuckets),
             concurrency::MaxBuckets(options), SortedHashOptions::kWriteBufferBytesPerBucket) {}

Status SortedHashRep::Make(const SortedHashOptions& options, const RepContext& context,
                           std::unique_ptr<Rep>* out, uint64_t region_bytes) {
  return MakeRep("could not allocate a sorted hash rep", context, out,
                 [&] { return new SortedHashRep(options, context, region_bytes); });
}

Status SortedHashRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  return AllocateRow(len, handle, row, [this](RowRef ref) {
    return const_cast<char*>((new (region_.At(ref)) Node())->row());
  });
}

bool SortedHashRep::InsertRow(KeyHandle handle, bool exclusive) {
  const RowRef ref = RefOf(handle);
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

void SortedHashRep::ProbedRows(std::string_view internal_key, void* arg,
                               RowCallback callback) const {
  // The key's own versions are GetRows' to hand on.
  index_.ForEachCompared(order_, format::UserKey(internal_key), HashIndex::HashOf(internal_key),
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

// Chunks of the batch, so that the bookkeeping lives on the stack, each
// pushed on the write list as it is stored.
struct SortedHashRep::Batch {
  static constexpr size_t kChunk = 128;
  static constexpr size_t kAhead = 8;  // as MultiGet: buckets kAhead ahead, heads kAhead / 2
  static constexpr bool kPushEachChunk = true;
  // The arrays are left uninitialized: each chunk writes what it reads.
  explicit Batch(SortedHashRep& rep) : self(rep) {}

  SortedHashRep& self;
  size_t sizes[kChunk];
  RowRef refs[kChunk];
  uint64_t hashes[kChunk];

  static size_t chunk() { return kChunk; }
  NoHold Hold() { return {}; }
  void Prepare(std::span<const EntryView> chunk) {
    for (size_t j = 0; j < chunk.size(); ++j) {
      sizes[j] = RowSize(chunk[j].user_key.size(), chunk[j].value.size());
      hashes[j] = util::Hash(chunk[j].user_key);
      if (j < kAhead) self.index_.PrefetchBucket(hashes[j]);
    }
  }
  size_t Store(std::span<const EntryView> chunk, size_t /*first*/, size_t allocated,
               BatchChain& chain, Status* s) {
    HashIndex& index = self.index_;
    size_t stored = 0;
    for (; stored < allocated; ++stored) {
      if (stored + kAhead < allocated) index.PrefetchBucket(hashes[stored + kAhead]);
      if (stored + kAhead / 2 < allocated) index.PrefetchHead(hashes[stored + kAhead / 2]);
      Node* node = new (self.region_.At(refs[stored])) Node();
      EncodeRow(const_cast<char*>(node->row()), chunk[stored]);
      if (!index.Insert(self.order_, node, refs[stored], hashes[stored])) {
        *s = rep::DuplicateRecordStatus(chunk[stored].sequence());
        break;
      }
      chain.Append(refs[stored], node);
    }
    return stored;
  }
  void Pushed() {
    self.index_.MaybeGrow(self.region_.ChunkBytes(), [&] { return self.runs_->Count(); });
  }
};

Status SortedHashRep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  Batch batch(*this);
  // Why the batch stops early, if it does: no node for a record, or a record refused.
  Status s;
  const size_t stored = AppendBatch(entries, concurrent, batch, &s);
  if (stored == entries.size()) return Status::OK();
  return rep::BatchRecordStatus(stored, s);
}

bool SortedHashRep::Contains(std::string_view internal_key) const {
  return index_.Contains(order_, internal_key);
}

}  // namespace memrep::sorted_hash
