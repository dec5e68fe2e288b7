#include "vector/vector_rep.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "concurrency/background_pool.h"
#include "rep/batch_status.h"
#include "runs/merging_cursor.h"
#include "runs/run_iterator.h"
#include "runs/run_options.h"

namespace memrep::vector {
namespace {

using rep::BatchDuplicates;

runs::RunIndexOptions RunOptions(const VectorOptions& options) {
  // Runs cut and merged while writes continue keep every prefix, so that
  // merging them compares integers and reads no row: with fences only, each
  // merge read every row it moved (a cache miss each: rows sit in insertion
  // order), and the strand, merging a fast writer's rows about log4(n / cut)
  // times, fell ever further behind it (docs/vector.md). Once the rep is idle or
  // frozen, the final merge makes one fenced run from them, reading no row
  // either. The prefixes cost memory while writes continue, which
  // MemoryUsage's high-water mark keeps (141.8 bytes an entry after a 500K
  // 16/100 fill, against 138.9 with fences only). And no background sorting
  // while writers keep every core busy: a vector is chosen to write fast
  // (while readers are present, writers cut their rows themselves).
  runs::RunIndexOptions run_options = runs::RunIndexOptionsOf(options);
  run_options.run_layout = runs::SortedRun::Layout::kWithPrefixes;
  run_options.yield_to_writers = true;
  // A Get searches every run: a filter per run (1 byte an entry) lets it
  // skip those that cannot hold the key's prefix.
  run_options.point_filters = true;
  return run_options;
}

// A node is the write-list link and the row, in 4-byte units: nothing in it
// needs more alignment (rows are read with memcpy), and a row then wastes at
// most 3 bytes of padding instead of 7.
constexpr size_t kHeaderBytes = runs::WriteList::kLinkBytes;
constexpr size_t kUnitBytes = 4;

}  // namespace

size_t ChunkBytes(const VectorOptions& options, uint64_t write_buffer_size) {
  const uint64_t bytes = options.reserve != 0
                             ? options.reserve * VectorOptions::kBytesPerReservedEntry
                             : write_buffer_size;
  return memory::RowRegion::ChunkBytesFor(bytes);
}

VectorRep::VectorRep(const VectorOptions& options, const RepContext& context, uint64_t region_bytes)
    : order_(context.comparator),
      owner_(BatchDuplicates::NewOwner()),
      region_(context.allocator, ChunkBytes(options, runs::WriteBufferSizeFor(options, context)),
              kHeaderBytes, region_bytes, kUnitBytes),
      runs_(std::make_shared<runs::RunIndex>(RunOptions(options), order_, region_,
                                             context.background != nullptr
                                                 ? *context.background
                                                 : concurrency::BackgroundPool::Shared())) {}

Status VectorRep::Make(const VectorOptions& options, const RepContext& context,
                       std::unique_ptr<Rep>* out, uint64_t region_bytes) {
  std::unique_ptr<VectorRep> rep;
  try {
    rep.reset(new VectorRep(options, context, region_bytes));
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate a vector rep");
  }
  rep->region_.GrowChunks();
  Status s = rep->region_.Init();
  if (!s.ok()) return s;
  *out = std::move(rep);
  return Status::OK();
}

VectorRep::~VectorRep() { runs_->Close(); }

Status VectorRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  memory::RowRef ref;
  Status s = region_.Allocate(len, &ref);
  if (!s.ok()) return s;
  *row = region_.Row(ref);
  // The handle is the node's reference (never 0), not a pointer: a pointer
  // cannot be turned back into a reference.
  *handle = reinterpret_cast<KeyHandle>(static_cast<uintptr_t>(ref));
  return Status::OK();
}

bool VectorRep::Append(KeyHandle handle, bool exclusive) {
  const auto ref = static_cast<memory::RowRef>(reinterpret_cast<uintptr_t>(handle));
  // kNoMemory refuses the row like a duplicate: RocksDB then starts a new
  // sequence (with one sequence per batch) and inserts it again, where the
  // check needs no memory; the standalone face goes through Append.
  if (!Admit(region_.Row(ref), 0).ok()) return false;
  runs_->Push(ref, exclusive);
  return true;
}

Status VectorRep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  if (entries.empty()) return Status::OK();
  // A batch whose sequences go back is looked up record by record (each
  // must see the ones before it, which a batch publishes only at its end).
  if (BatchDuplicates::MayGoBack(owner_, entries)) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const Status s = Add(entries[i], concurrent);
      if (!s.ok()) return rep::BatchRecordStatus(i, s);
    }
    return Status::OK();
  }
  std::vector<size_t> sizes;
  std::vector<memory::RowRef> refs;
  try {
    sizes.reserve(entries.size());
    refs.resize(entries.size());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate room to append a batch of " +
                               std::to_string(entries.size()) + " records");
  }
  for (const EntryView& e : entries) sizes.push_back(RowSize(e.user_key.size(), e.value.size()));
  size_t allocated = 0;
  // Why the batch stops early, if it does: no node for a record, or a record refused.
  Status s = region_.AllocateMany(sizes.data(), sizes.size(), refs.data(), &allocated);
  // Rows are written and checked in order; the first refused one ends the
  // batch (the ones before it are stored, its node and the rest stay unused).
  size_t stored = 0;
  for (; stored < allocated; ++stored) {
    char* row = region_.Row(refs[stored]);
    EncodeRow(row, entries[stored]);
    const Status admitted = Admit(row, entries[stored].sequence());
    if (!admitted.ok()) {
      s = admitted;
      break;
    }
    // Each node's link names the one before it; PushChain links the first.
    if (stored > 0) std::memcpy(region_.At(refs[stored]), &refs[stored - 1], kHeaderBytes);
  }
  if (stored > 0) runs_->PushChain(refs[stored - 1], refs[0], stored, /*exclusive=*/!concurrent);
  if (stored == entries.size()) return Status::OK();
  return rep::BatchRecordStatus(stored, s);
}

Status VectorRep::Add(const EntryView& entry, bool concurrent) {
  // One entry: Allocate and Append, as the rows face does, with no batch
  // bookkeeping; only a check that could not get memory reads differently.
  memory::RowRef ref;
  Status s = region_.Allocate(RowSize(entry.user_key.size(), entry.value.size()), &ref);
  if (!s.ok()) return s;
  EncodeRow(region_.Row(ref), entry);
  s = Admit(region_.Row(ref), entry.sequence());
  if (s.ok()) runs_->Push(ref, /*exclusive=*/!concurrent);
  return s;
}

BatchDuplicates::Result VectorRep::AdmitRow(const char* row) const {
  uint64_t tag;
  const std::string_view user_key = format::RowUserKey(row, &tag);
  return BatchDuplicates::Admit(owner_, order_, user_key, TagSequence(tag));
}

Status VectorRep::Admit(const char* row, SequenceNumber sequence) const {
  switch (AdmitRow(row)) {
    case BatchDuplicates::Result::kNew:
      return Status::OK();
    case BatchDuplicates::Result::kEarlier:
      // Below the thread's sequence: any row may be its duplicate.
      if (!Contains(format::RowInternalKey(row))) return Status::OK();
      [[fallthrough]];
    case BatchDuplicates::Result::kDuplicate:
      return rep::DuplicateRecordStatus(sequence);
    case BatchDuplicates::Result::kNoMemory:
      break;
  }
  return Status::OutOfMemory("could not record the batch's keys to find duplicates");
}

void VectorRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  try {
    runs_->WithReadView([&](const runs::RunIndex::View& view) {
      runs::MergingCursor cursor(order_);
      // Only the runs and the tail's levels whose filter admits the key's
      // prefix (those without one admit every key): the others hold no row
      // of the user key (contract: rows of other user keys may be left out).
      // Their filter words are asked for at once.
      const runs::Target target(order_, internal_key);
      const uint32_t hash = runs::SortedRun::FilterHash(target.prefix);
      const runs::SortedRun* only = nullptr;
      size_t sources = 0;
      view.ForEachSource([&](const runs::SortedRun* source) {
        source->PrefetchFilter(hash);
        only = source;
        ++sources;
      });
      if (sources == 1) {
        // One source (an idle or frozen memtable's run): no cursor, and the
        // search's first lines are asked for beside the filter word, so
        // that a key the run holds waits for no miss more than without a
        // filter, and one it does not hold for the filter word only.
        runs::SortedRun::Range range = only->Locate(target);
        if (!only->MayContain(hash)) return;
        range = only->Narrow(target, range);
        only->PrefetchEntries(range);
        for (size_t i = only->Bound(order_, target, range, /*upper=*/false); i < only->size();
             ++i) {
          if (!callback(arg, only->row(i))) return;
        }
        return;
      }
      view.ForEachSource([&](const runs::SortedRun* source) {
        if (source->MayContain(hash)) cursor.AddSource(source);
      });
      for (cursor.Seek(internal_key); cursor.Valid(); cursor.Next()) {
        if (!callback(arg, cursor.row())) return;
      }
    });
  } catch (const std::bad_alloc&) {
    // A read must not fail for memory (a Get has no status to say so in
    // RocksDB): search without any. (Nothing was handed out: what throws is
    // the view and the cursor, made before the first row.)
    runs_->GetRowsWithoutMemory(internal_key, arg, callback);
  }
}

bool VectorRep::Contains(std::string_view internal_key) const {
  struct Probe {
    const format::KeyOrder* order;
    std::string_view key;
    bool found = false;
  } probe{&order_, internal_key};
  GetRows(internal_key, &probe, [](void* arg, const char* row) {
    auto* p = static_cast<Probe*>(arg);
    p->found = p->order->CompareRowToKey(row, p->key) == 0;
    return false;
  });
  return probe.found;
}

Status VectorRep::RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const {
  return runs_->RandomSample(target, seed, out);
}

std::unique_ptr<RepIterator> VectorRep::NewIterator() const {
  return std::make_unique<runs::RunIterator>(runs_.get());
}

size_t VectorRep::MemoryUsage() const {
  // Nodes are taken from the Allocator, which counts them; the region's
  // chunk table is charged as it grows, the runs as they are built, with
  // what sorting after Freeze needs fixed at Freeze (RunIndex::ChargedBytes),
  // so that the figure never grows after Freeze.
  return region_.TableBytes() + runs_->ChargedBytes();
}

}  // namespace memrep::vector
