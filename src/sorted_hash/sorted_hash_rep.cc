#include "sorted_hash/sorted_hash_rep.h"

#include <algorithm>
#include <random>

#include "sorted_hash/core.h"
#include "sorted_hash/merging_cursor.h"

namespace memrep {

std::unique_ptr<Rep> NewSortedHashRep(const SortedHashOptions& options, const RepContext& context) {
  return std::make_unique<sorted_hash::SortedHashRep>(options, context);
}

namespace sorted_hash {
namespace {

// An iterator over a view: the runs of a RunSet plus a privately sorted tail.
// Every positioning call (SeekToFirst, SeekToLast, Seek, SeekForPrev) first
// takes a new view if entries were inserted or runs merged since the last
// one, so it sees every entry inserted before the call. RocksDB relies on that: Refresh() and
// tailing iterators keep a memtable iterator and seek it again. Next and Prev
// stay on the current view, so a scan is a consistent sequence.
class Iterator final : public RepIterator {
 public:
  // The first view is taken by the first positioning call, not here: an
  // iterator is always positioned before it is read.
  explicit Iterator(std::shared_ptr<Core> core) : core_(std::move(core)), cursor_(core_->order) {}

  bool Valid() const override { return cursor_.Valid(); }
  const char* entry() const override { return cursor_.entry(); }
  void SeekToFirst() override {
    Refresh();
    cursor_.SeekToFirst();
  }
  void SeekToLast() override {
    Refresh();
    cursor_.SeekToLast();
  }
  void Seek(std::string_view internal_key) override {
    Refresh();
    cursor_.Seek(internal_key);
  }
  void SeekForPrev(std::string_view internal_key) override {
    Refresh();
    cursor_.SeekForPrev(internal_key);
  }
  void Next() override { cursor_.Next(); }
  void Prev() override { cursor_.Prev(); }

 private:
  void Refresh() {
    // Unchanged heads mean no entry was pushed since the view was taken; an
    // unchanged version, that no merge replaced its runs. Either change takes
    // a new view: a merged set is searched with fewer binary searches, and the
    // old runs are let go.
    if (view_.set != nullptr && core_->runs.Version() == view_.set->version &&
        core_->write_list.LoadHeads() == view_.heads()) {
      return;
    }
    view_ = core_->Snapshot();
    cursor_.Clear();
    for (const auto& run : view_.set->runs) cursor_.AddSource(run.get());
    for (const auto& level : view_.tail.levels) cursor_.AddSource(level.get());
  }

  const std::shared_ptr<Core> core_;  // keeps the key order alive
  Core::View view_;
  MergingCursor cursor_;
};

}  // namespace

SortedHashRep::SortedHashRep(const SortedHashOptions& options, const RepContext& context)
    : core_(std::make_shared<Core>(options, context.comparator, context.allocator)),
      index_(options.EffectiveBucketCount(), &core_->region) {}

SortedHashRep::~SortedHashRep() { core_->Close(); }

KeyHandle SortedHashRep::Allocate(size_t len, char** entry) {
  // The handle is the node's reference (never 0), not a pointer: a pointer
  // cannot be turned back into a reference.
  const NodeRef ref = core_->region.Allocate(sizeof(Node) + len);
  Node* node = new (core_->region.At(ref)) Node();
  *entry = node->entry();
  return reinterpret_cast<KeyHandle>(static_cast<uintptr_t>(ref));
}

bool SortedHashRep::Insert(KeyHandle handle) {
  const auto ref = static_cast<NodeRef>(reinterpret_cast<uintptr_t>(handle));
  Node* node = NodeAt(core_->region, ref);
  if (!index_.Insert(core_->order, node, ref)) return false;
  const uint64_t in_shard = core_->write_list.Push(node, ref);
  if (in_shard % core_->options.background_cut == 0) core_->Schedule(false);
  return true;
}

void SortedHashRep::Get(std::string_view internal_key, void* arg,
                        bool (*callback)(void* arg, const char* entry)) const {
  for (const Node* node = index_.Find(core_->order, internal_key); node != nullptr;
       node = index_.Next(node)) {
    if (!callback(arg, node->entry())) return;
  }
}

bool SortedHashRep::Contains(std::string_view internal_key) const {
  const Node* node = index_.Find(core_->order, internal_key);
  return node != nullptr && core_->order.CompareEntryToKey(node->entry(), internal_key) == 0;
}

std::unique_ptr<RepIterator> SortedHashRep::NewIterator() const {
  return std::make_unique<Iterator>(core_);
}

void SortedHashRep::Freeze() {
  // release: background tasks that see the flag also see every insert before it.
  core_->frozen.store(true, std::memory_order_release);
  core_->Schedule(false);
}

bool SortedHashRep::frozen() const { return core_->frozen.load(std::memory_order_acquire); }

size_t SortedHashRep::MemoryUsage() const {
  // Nodes are taken from the Allocator, which counts them; the node
  // region's chunk table is charged as it grows.
  // Sorted runs are charged in advance, twice per entry: once for the run
  // that finally holds it, once for a merge that briefly holds its inputs and
  // its output. So the figure only grows with inserts and stays constant once
  // they end: RocksDB records a memtable's usage when it becomes immutable and
  // requires it not to grow after (background sorting must not change it).
  // The shared tail (at most seal_threshold entries, 12 bytes each) is
  // charged three times: the cached one, one being extended and one being
  // sealed into a run. Runs of at most kPrefixedRunMax entries keep every
  // prefix; at most max_runs of them are published, plus a merge's inputs and
  // output, so their extra bytes are charged for that many entries at most.
  const uint64_t n = NumEntries();
  const uint64_t prefixed =
      std::min<uint64_t>(n, (core_->options.max_runs + 2) * uint64_t{SortedRun::kPrefixedRunMax});
  // Runs' top indexes: one prefix per kTopStride fences or prefixes, rounded
  // up per run, and only in runs of at least 4 * kTopStride of them: under
  // 1.25 * entries / kTopStride in all.
  const uint64_t top = n * 5 / (4 * SortedRun::kTopStride);
  return core_->region.TableBytes() + index_.bytes() + 2 * SortedRun::kMaxBytesPerEntry * n +
         2 * sizeof(uint64_t) * top +
         2 * (SortedRun::kBytesPerEntryWithPrefixes - SortedRun::kMaxBytesPerEntry) * prefixed +
         3 * SortedRun::kBytesPerEntryWithPrefixes *
             std::min<uint64_t>(n, core_->options.seal_threshold);
}

size_t SortedHashRep::RunBytes() const {
  return static_cast<size_t>(std::max<int64_t>(core_->run_memory->load(std::memory_order_relaxed), 0));
}

uint64_t SortedHashRep::NumEntries() const { return core_->write_list.Count(); }

uint64_t SortedHashRep::ApproximateNumEntries(std::string_view start, std::string_view end) const {
  const std::shared_ptr<const RunSet> set = core_->runs.Current();
  const format::KeyOrder& order = core_->order;
  const Target from(order, start), to(order, end);
  uint64_t in_range = 0;
  for (const auto& run : set->runs) {
    const size_t lo = run->LowerBound(order, from);
    const size_t hi = run->LowerBound(order, to);
    if (hi > lo) in_range += hi - lo;
  }
  // Entries not yet in a run are few (the worker cuts them every few
  // milliseconds): count them one by one.
  for (const RunSlot& slot : core_->CollectTail(*set, core_->write_list.LoadHeads())) {
    if (order.CompareEntryToKey(slot.entry, start) >= 0 &&
        order.CompareEntryToKey(slot.entry, end) < 0) {
      ++in_range;
    }
  }
  return in_range;
}

void SortedHashRep::RandomSample(size_t target, uint64_t seed,
                                 std::vector<const char*>* out) const {
  std::vector<const char*> all;
  WriteList::ForEachBetween(core_->region, core_->write_list.LoadHeads(), WriteList::Heads{},
                            [&](const Node* n, NodeRef) { all.push_back(n->entry()); });
  if (target < all.size()) {
    // A partial Fisher-Yates shuffle: the first `target` slots become a uniform sample.
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i < target; ++i) {
      std::uniform_int_distribution<size_t> pick(i, all.size() - 1);
      std::swap(all[i], all[pick(rng)]);
    }
    all.resize(target);
  }
  out->insert(out->end(), all.begin(), all.end());
}

size_t SortedHashRep::NodeBytes() const { return core_->region.ChunkBytes(); }

size_t SortedHashRep::NumRuns() const { return core_->runs.Current()->runs.size(); }

}  // namespace sorted_hash
}  // namespace memrep
