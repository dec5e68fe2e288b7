#include "runs/run_rep.h"

#include "concurrency/background_pool.h"
#include "runs/merging_cursor.h"
#include "runs/run_iterator.h"

namespace memrep::runs {

RunRep::RunRep(const RepContext& context, const RunIndexOptions& run_options, size_t chunk_bytes,
               size_t header_bytes, uint64_t region_bytes, size_t unit_bytes)
    : order_(context.comparator),
      region_(context.allocator, chunk_bytes, header_bytes, region_bytes, unit_bytes),
      runs_(std::make_shared<RunIndex>(run_options, order_, region_,
                                       concurrency::BackgroundPool::Shared())) {}

RunRep::~RunRep() { runs_->Close(); }

void RunRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  try {
    runs_->WithReadView([&](const RunIndex::View& view) {
      MergingCursor cursor(order_);
      // Only the runs and the tail's levels whose filter admits the key's
      // prefix (those without one admit every key): the others hold no row
      // of the user key (contract: rows of other user keys may be left out).
      // Their filter words are asked for at once.
      const Target target(order_, internal_key);
      const uint32_t hash = SortedRun::FilterHash(target.prefix);
      const SortedRun* only = nullptr;
      size_t sources = 0;
      view.ForEachSource([&](const SortedRun* source) {
        source->PrefetchFilter(hash);
        only = source;
        ++sources;
      });
      if (sources == 1) {
        // One source (an idle or frozen memtable's run): no cursor, and the
        // search's first lines are asked for beside the filter word, so
        // that a key the run holds waits for no miss more than without a
        // filter, and one it does not hold for the filter word only.
        SortedRun::Range range = only->Locate(target);
        if (!only->MayContain(hash)) return;
        range = only->Narrow(target, range);
        only->PrefetchEntries(range);
        for (size_t i = only->Bound(order_, target, range, /*upper=*/false); i < only->size();
             ++i) {
          if (!callback(arg, only->row(i))) return;
        }
        return;
      }
      view.ForEachSource([&](const SortedRun* source) {
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

bool RunRep::Contains(std::string_view internal_key) const {
  struct Probe {
    const format::KeyOrder* order;
    std::string_view key;
    bool found = false;
  } probe{&order_, internal_key};
  RunRep::GetRows(internal_key, &probe, [](void* arg, const char* row) {
    auto* p = static_cast<Probe*>(arg);
    p->found = p->order->CompareRowToKey(row, p->key) == 0;
    return false;
  });
  return probe.found;
}

std::unique_ptr<RepIterator> RunRep::NewIterator() const {
  return std::make_unique<RunIterator>(runs_.get());
}

}  // namespace memrep::runs
