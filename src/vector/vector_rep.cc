#include "vector/vector_rep.h"

#include <new>
#include <string>
#include <vector>

#include "rep/batch_status.h"
#include "runs/run_options.h"

namespace memrep::vector {
namespace {

using rep::BatchDuplicates;

runs::RunIndexOptions RunIndexOptionsFor(const VectorOptions& options) {
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
    : RunRep(context, RunIndexOptionsFor(options),
             ChunkBytes(options, runs::WriteBufferSizeFor(options, context)), kHeaderBytes,
             region_bytes, kUnitBytes),
      owner_(BatchDuplicates::NewOwner()) {}

Status VectorRep::Make(const VectorOptions& options, const RepContext& context,
                       std::unique_ptr<Rep>* out, uint64_t region_bytes) {
  return MakeRep("could not allocate a vector rep", context, out,
                 [&] { return new VectorRep(options, context, region_bytes); });
}

Status VectorRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  return AllocateRow(len, handle, row, [this](memory::RowRef ref) { return region_.Row(ref); });
}

bool VectorRep::Append(KeyHandle handle, bool exclusive) {
  const memory::RowRef ref = RefOf(handle);
  // kNoMemory refuses the row like a duplicate: RocksDB then starts a new
  // sequence (with one sequence per batch) and inserts it again, where the
  // check needs no memory; the standalone face goes through Append.
  if (!Admit(region_.Row(ref), 0).ok()) return false;
  runs_->Push(ref, exclusive);
  return true;
}

// The whole batch in one chunk: its sizes and references on the heap.
struct VectorRep::Batch {
  static constexpr bool kPushEachChunk = false;
  VectorRep& self;
  size_t n;
  size_t* sizes;
  memory::RowRef* refs;

  size_t chunk() const { return n; }
  NoHold Hold() { return {}; }
  void Prepare(std::span<const EntryView> chunk) {
    for (size_t j = 0; j < chunk.size(); ++j) {
      sizes[j] = RowSize(chunk[j].user_key.size(), chunk[j].value.size());
    }
  }
  // Rows are written and checked in order; the first refused one ends the
  // batch (the ones before it are stored, its node and the rest stay unused).
  size_t Store(std::span<const EntryView> chunk, size_t /*first*/, size_t allocated,
               BatchChain& chain, Status* s) {
    size_t stored = 0;
    for (; stored < allocated; ++stored) {
      char* row = self.region_.Row(refs[stored]);
      EncodeRow(row, chunk[stored]);
      const Status admitted = self.Admit(row, chunk[stored].sequence());
      if (!admitted.ok()) {
        *s = admitted;
        break;
      }
      chain.Append(refs[stored], self.region_.At(refs[stored]));
    }
    return stored;
  }
};

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
    sizes.resize(entries.size());
    refs.resize(entries.size());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate room to append a batch of " +
                               std::to_string(entries.size()) + " records");
  }
  Batch batch{*this, entries.size(), sizes.data(), refs.data()};
  // Why the batch stops early, if it does: no node for a record, or a record refused.
  Status s;
  const size_t stored = AppendBatch(entries, concurrent, batch, &s);
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

}  // namespace memrep::vector
