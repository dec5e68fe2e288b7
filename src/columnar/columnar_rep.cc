#include "columnar/columnar_rep.h"

#include <algorithm>
#include <bit>
#include <new>

#include "format/coding.h"
#include "format/key_order.h"
#include "rep/batch_duplicates.h"
#include "rep/batch_status.h"
#include "runs/run_options.h"
#include "util/hash64.h"

namespace memrep::columnar {

namespace {

// Ages (pushes since its own) at which a queued entry's insert has the node
// of the version it meets in its bucket loaded; done once this many of the
// region's last 16 links met a version.
constexpr uint32_t kVersionAge = LinkQueue::kDepth / 2;
constexpr int kVersionsMetToPrefetch = 4;

}  // namespace

runs::RunIndexOptions RunOptionsOf(const ColumnarOptions& options) {
  // block_size: the entries a writer adds between background sorts, which
  // is what a block of that many entries was; the rest as RunOptions'.
  RunOptions shared;
  if (options.block_size != 0) shared.background_cut = options.block_size;
  shared.max_runs = options.max_sorted_blocks;
  shared.seek_merges = options.seek_merges;
  runs::RunIndexOptions run_options = runs::RunIndexOptionsOf(shared);
  // Fenced runs only, as the vector rep's: runs that keep every prefix while
  // small (kAuto, the sorted hash rep's choice) charge 12 bytes an entry
  // instead of about 6 while a memtable of up to a few hundred thousand
  // entries fills, so a flushed memtable held fewer entries than the skip
  // list's (docs/results/2026-11-25-columnar.md). The shared tail keeps its
  // prefixes either way.
  run_options.run_layout = runs::SortedRun::Layout::kFenced;
  return run_options;
}

ColumnarRep::ColumnarRep(const ColumnarOptions& options, const RepContext& context,
                         uint64_t region_bytes)
    : RunRep(context, RunOptionsOf(options),
             RowRegion::ChunkBytesFor(runs::WriteBufferSizeFor(options, context)), sizeof(Node),
             region_bytes, kNodeUnitBytes),
      owner_(rep::BatchDuplicates::NewOwner()),
      // The first table: sized for the memtable where its size is known, else
      // as small as the smallest memtable needs (ColumnIndex grows it).
      index_(&region_,
             concurrency::FirstBuckets(options, runs::KnownWriteBufferSize(options, context),
                                       ColumnIndex::kFirstBuckets),
             concurrency::MaxBuckets(options), ColumnarOptions::kWriteBufferBytesPerBucket),
      regions_(options.shards) {}

Status ColumnarRep::Make(const ColumnarOptions& options, const RepContext& context,
                         std::unique_ptr<Rep>* out, uint64_t region_bytes) {
  return MakeRep("could not allocate a columnar rep", context, out,
                 [&] { return new ColumnarRep(options, context, region_bytes); });
}

Status ColumnarRep::NoOverflowBucket() {
  return Status::OutOfMemory(
      "could not allocate an overflow bucket of the columnar index; switch memtables");
}

Status ColumnarRep::Admit(std::string_view user_key, uint64_t tag) const {
  using D = rep::BatchDuplicates;
  switch (D::Admit(owner_, order_, user_key, TagSequence(tag))) {
    case D::Result::kNew:
      return Status::OK();
    case D::Result::kEarlier:
      // Below the thread's sequence: any row may be its duplicate. The key
      // is a row's, whose tag follows it.
      if (!Contains(std::string_view(user_key.data(), user_key.size() + 8))) return Status::OK();
      [[fallthrough]];
    case D::Result::kDuplicate:
      return rep::DuplicateRecordStatus(TagSequence(tag));
    case D::Result::kNoMemory:
      break;
  }
  return Status::OutOfMemory("could not record the batch's keys to find duplicates");
}

bool ColumnarRep::LinkOldest(WriterRegion& region) {
  switch (
      index_.Insert(order_, region.queue.oldest_ref(), region.queue.oldest_hash(), &region.stash)) {
    case ColumnIndex::Result::kNoMemory:
      return false;  // it stays queued, where reads still find it
    case ColumnIndex::Result::kDuplicate:
      // Another thread stored the same (user key, sequence), which the
      // caller must not do (kSameThread, contract point 4): the index keeps the
      // version it has; this one stays in the runs, for iterators.
    case ColumnIndex::Result::kLinked:
      region.versions_met >>= 1;
      break;
    case ColumnIndex::Result::kLinkedVersion:
      region.versions_met = (region.versions_met >> 1) | 0x8000;
      break;
  }
  region.queue.Pop();
  index_.MaybeGrow(region_.ChunkBytes(), [&] { return runs_->Count(); });
  return true;
}

void ColumnarRep::Enqueue(WriterRegion& region, RowRef ref, uint64_t hash) {
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
  // bucket, then the node of the version it may meet there, are loaded.
  index_.PrefetchForInsert(hash);
  // Only where links met versions lately (updates): elsewhere reading the
  // bucket early would only wait for it.
  if (std::popcount(region.versions_met) < kVersionsMetToPrefetch) return;
  if (region.queue.size() > kVersionAge)
    index_.PrefetchVersion(region.queue.hash_at_age(kVersionAge));
}

// ---- Rows ----

Status ColumnarRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  return AllocateRow(len, handle, row,
                     [this](RowRef ref) { return (new (region_.At(ref)) Node())->row(); });
}

bool ColumnarRep::InsertRow(KeyHandle handle, bool exclusive) {
  const RowRef ref = RefOf(handle);
  uint64_t tag;
  const std::string_view user_key = NodeOf(ref)->user_key(&tag);
  // A refused row (a duplicate; or no memory, which RocksDB also retries at
  // a new sequence) stays unused in the region.
  if (!Admit(user_key, tag).ok()) return false;
  {
    WriterRegion& region = regions_.Claim();
    WriterRegions::Lock lock(region);
    if (!MakeRoom(region)) return false;
    Enqueue(region, ref, util::Hash(user_key));
  }
  runs_->Push(ref, exclusive);
  return true;
}

template <typename Fn>
void ColumnarRep::ForEachQueued(uint64_t hash, Fn&& fn) const {
  const uint64_t fp = hash & LinkQueue::kFingerprintMask;
  for (uint32_t w = 0; w < kQueuedWords && w * 64 < regions_.size(); ++w) {
    // relaxed: see queued_; the queue's own loads acquire what it holds.
    for (uint64_t bits = queued_[w].load(std::memory_order_relaxed); bits != 0; bits &= bits - 1) {
      regions_[w * 64 + std::countr_zero(bits)].queue.ForEach([&](uint64_t v) {
        if ((v & LinkQueue::kFingerprintMask) == fp) fn(static_cast<RowRef>(v));
      });
    }
  }
}

size_t ColumnarRep::QueuedVersions(std::string_view user_key, uint64_t hash, RowRef* out) const {
  size_t n = 0;
  ForEachQueued(hash, [&](RowRef ref) {
    uint64_t tag;
    if (order_.CompareUserKeys(NodeOf(ref)->user_key(&tag), user_key) != 0) return;
    // Newest first (insertion: a key rarely has more than one here).
    const SequenceNumber seq = TagSequence(tag);
    size_t j = n++;
    for (; j > 0 && NodeOf(out[j - 1])->sequence() < seq; --j) out[j] = out[j - 1];
    out[j] = ref;
  });
  return n;
}

template <typename Fn>
void ColumnarRep::ForVersions(std::string_view internal_key, uint64_t hash, Fn&& fn) const {
  const std::string_view user = format::UserKey(internal_key);
  const uint64_t seq = TagSequence(format::KeyTag(internal_key));
  const auto seq_of = [&](RowRef ref) { return NodeOf(ref)->sequence(); };
  // The queues are read before the index (link_queue.h): an entry that
  // leaves a queue meanwhile is then in the index.
  RowRef queued[ColumnarOptions::kMaxShards * LinkQueue::kDepth];
  const size_t n = QueuedVersions(user, hash, queued);
  RowRef chains[ColumnIndex::kMaxTables];
  const int c = index_.FindChains(order_, user, hash, chains);
  // Every list is newest first: merge them (with no queued version, this
  // walks the chain; a key has more than one chain only if two writers
  // linked it into two tables at once); an entry linked after the queues
  // were read is in a chain too, right after its queued self.
  size_t q = 0;
  for (RowRef last = 0;;) {
    int best = -1;
    for (int i = 0; i < c; ++i) {
      if (chains[i] != 0 && (best < 0 || seq_of(chains[i]) > seq_of(chains[best]))) best = i;
    }
    RowRef next;
    if (q < n && (best < 0 || seq_of(queued[q]) >= seq_of(chains[best]))) {
      next = queued[q++];
    } else if (best >= 0) {
      next = chains[best];
      chains[best] = index_.Older(next);
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
  ForVersions(internal_key, util::Hash(format::UserKey(internal_key)),
              [&](RowRef ref) { return callback(arg, NodeOf(ref)->row()); });
}

void ColumnarRep::ProbedRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  const std::string_view user_key = format::UserKey(internal_key);
  const uint64_t hash = util::Hash(user_key);
  bool more = true;
  // What ForVersions compares: every queued fingerprint match, then the
  // index's candidates (the key's own versions are GetRows' to hand on).
  ForEachQueued(hash, [&](RowRef ref) {
    uint64_t tag;
    if (!more || order_.CompareUserKeys(NodeOf(ref)->user_key(&tag), user_key) == 0) return;
    more = callback(arg, NodeOf(ref)->row());
  });
  if (more) {
    index_.ForEachCompared(order_, user_key, hash,
                           [&](RowRef ref) { return callback(arg, NodeOf(ref)->row()); });
  }
}

bool ColumnarRep::Contains(std::string_view internal_key) const {
  const uint64_t seq = TagSequence(format::KeyTag(internal_key));
  bool found = false;
  ForVersions(internal_key, util::Hash(format::UserKey(internal_key)), [&](RowRef ref) {
    found = NodeOf(ref)->sequence() == seq;
    return false;  // the first at or after the key decides
  });
  return found;
}

// ---- Views ----

Status ColumnarRep::Add(const EntryView& entry, bool concurrent) {
  RowRef ref;
  {
    WriterRegion& region = regions_.Claim();
    WriterRegions::Lock lock(region);
    // Room first: the link's atomic then waits for no store of this entry.
    if (!MakeRoom(region)) return NoOverflowBucket();
    Status s = region_.Allocate(RowSize(entry.user_key.size(), entry.value.size()), &ref);
    if (!s.ok()) return s;
    Node* node = new (region_.At(ref)) Node();
    EncodeRow(node->row(), entry);
    // A refused entry's node stays unused in the region. The key admitted
    // is the row's: BatchDuplicates keeps it while the batch goes on.
    uint64_t tag;
    const std::string_view user_key = node->user_key(&tag);
    s = Admit(user_key, tag);
    if (!s.ok()) return s;
    Enqueue(region, ref, util::Hash(entry.user_key));
  }
  // The write list needs no writer region.
  runs_->Push(ref, /*exclusive=*/!concurrent);
  return Status::OK();
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

// One region claim for the batch. Entries go in groups: first every entry
// of the group is written (its bucket prefetched), then each is queued,
// which links an older one: the links' atomics come together, and only the
// first waits for the group's stores to drain. The stored nodes are chained
// newest first and pushed on the write list once, at the end, when the
// region is released (the write list needs none).
struct ColumnarRep::Batch {
  static constexpr size_t kGroup = 16;
  static constexpr bool kPushEachChunk = false;
  // The arrays are left uninitialized: each group writes what it reads.
  Batch(ColumnarRep& rep, std::span<const EntryView> batch) : self(rep), entries(batch) {}

  ColumnarRep& self;
  std::span<const EntryView> entries;  // the whole batch
  WriterRegion* region = nullptr;      // the one held
  size_t sizes[kGroup];
  RowRef refs[kGroup];
  uint64_t hashes[kGroup];

  static size_t chunk() { return kGroup; }
  WriterRegions::Lock Hold() {
    region = &self.regions_.Claim();
    return WriterRegions::Lock(*region);
  }
  void Prepare(std::span<const EntryView> group) {
    for (size_t k = 0; k < group.size(); ++k) {
      sizes[k] = RowSize(group[k].user_key.size(), group[k].value.size());
    }
  }
  size_t Store(std::span<const EntryView> group, size_t first, size_t allocated, BatchChain& chain,
               Status* s) {
    // Written and checked in order; the first refused one ends the batch
    // (its node and the rest stay unused).
    size_t k = 0;
    for (; k < allocated; ++k) {
      const EntryView& e = group[k];
      Node* node = new (self.region_.At(refs[k])) Node();
      EncodeRow(node->row(), e);
      if (NeedsAdmit(entries, first + k)) {
        uint64_t tag;
        const std::string_view user_key = node->user_key(&tag);  // the row's: kept
        const Status admitted = self.Admit(user_key, tag);
        if (!admitted.ok()) {
          *s = admitted;
          break;
        }
      }
      hashes[k] = util::Hash(e.user_key);
      self.index_.PrefetchForInsert(hashes[k]);
    }
    for (size_t j = 0; j < k; ++j) {
      if (!self.MakeRoom(*region)) {
        *s = NoOverflowBucket();  // unqueued entries are refused, from this one on
        return j;
      }
      self.Enqueue(*region, refs[j], hashes[j]);
      chain.Append(refs[j], NodeAt(self.region_, refs[j]));
    }
    return k;
  }
};

Status ColumnarRep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  const size_t n = entries.size();
  // A batch whose sequences go back is looked up record by record (each
  // must see the ones before it, which a group queues only after it).
  if (rep::BatchDuplicates::MayGoBack(owner_, entries)) {
    for (size_t i = 0; i < n; ++i) {
      const Status s = Add(entries[i], concurrent);
      if (!s.ok()) return n == 1 ? s : rep::BatchRecordStatus(i, s);
    }
    return Status::OK();
  }
  Batch batch(*this, entries);
  Status s;
  const size_t stored = AppendBatch(entries, concurrent, batch, &s);
  if (stored == n) return Status::OK();
  return n == 1 ? s : rep::BatchRecordStatus(stored, s);
}

template <class OnRow>
void ColumnarRep::ForVersionsOfMany(std::span<const std::string_view> internal_keys,
                                    OnRow&& on_row) const {
  constexpr size_t kAhead = 8;
  uint64_t hashes[kAhead];
  const size_t n = internal_keys.size();
  const auto hash_of = [](std::string_view ik) { return util::Hash(format::UserKey(ik)); };
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
    ForVersions(internal_keys[i], hash, [&](RowRef ref) { return on_row(i, NodeOf(ref)->row()); });
  }
}

void ColumnarRep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                           MultiEntryCallback callback) const {
  ForVersionsOfMany(internal_keys,
                    [&](size_t i, const char* row) { return callback(arg, i, DecodeRow(row)); });
}

void ColumnarRep::MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                               MultiRowCallback callback) const {
  ForVersionsOfMany(internal_keys,
                    [&](size_t i, const char* row) { return callback(arg, i, row); });
}

}  // namespace memrep::columnar
