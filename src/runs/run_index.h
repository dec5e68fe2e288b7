// RunIndex: an ordered index of a rep's rows built from sorted runs. Rows are
// pushed in insertion order on a WriteList; a background strand cuts the
// list into sorted runs and merges runs; readers take views (the runs plus a
// sorted tail of what no run holds yet) and walk them with a MergingCursor.
//
//   Push ──► WriteList (16 lock-free stacks, by writer thread)
//               │ cut: the rows after RunSet::covered
//               ▼
//   strand ──► RunSet { SortedRun... } ──► RunViews ──► RunIterator
//               ▲ merge: the two smallest similar runs
//
// Thread safety: Push from any thread, with no lock; views from any thread
// (ReaderSlots, run_view.h); the background work is one SerialTask on the
// rep's BackgroundPool, and writers share it while readers are present. The
// rules, their locks and their reasons: docs/runs.md.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "concurrency/background_pool.h"
#include "concurrency/mutex.h"
#include "concurrency/quiet_detector.h"
#include "concurrency/serial_task.h"
#include "concurrency/shared_writes.h"
#include "concurrency/spin_lock.h"
#include "format/key_order.h"
#include "memrep/status.h"
#include "runs/reader_slots.h"
#include "runs/run_index_options.h"
#include "runs/run_index_stats.h"
#include "runs/run_points.h"
#include "runs/run_set.h"
#include "runs/run_view.h"
#include "runs/work_state.h"
#include "runs/write_list.h"

namespace memrep::runs {

class RunIndex : public std::enable_shared_from_this<RunIndex> {
 public:
  using Tail = SharedTail;
  using View = RunView;

  // REQUIRES: every node of `region` begins with its write-list link
  // (WriteList::kLinkBytes); region, order and pool outlive the index.
  RunIndex(const RunIndexOptions& options, const format::KeyOrder& order, const RowRegion& region,
           concurrency::BackgroundPool& pool);
  // The index's last reference may be dropped on a thread (the strand's,
  // its task done) that is ordered after the index's last reader and
  // writer only through the caller: RocksDB frees a memtable once its
  // readers are done, by means that ThreadSanitizer does not see in an
  // uninstrumented librocksdb. So the destructor first loads each reader
  // slot's `busy` (acquire, pairing with its last holder's release) and
  // takes, once each, the locks under which readers and helping writers
  // publish what it then frees (the run set, the tail cache, the merge
  // state): its order after them is then memrep's own.
  ~RunIndex();

  const format::KeyOrder& order() const { return order_; }

  // ---- Writes (this header) ----

  // Adds the node `ref`, whose row is complete: it becomes visible to
  // Snapshot, and is sorted in the background. exclusive: no other thread
  // pushes meanwhile (a rep's Insert, as opposed to InsertConcurrently).
  void Push(RowRef ref, bool exclusive = false) {
    if (const unsigned marks = write_list_.Push(region_, ref, ref, 1, exclusive)) Due(marks);
  }
  // Adds n nodes linked newest first (WriteList::Push), with one publication.
  void PushChain(RowRef newest, RowRef oldest, uint64_t n, bool exclusive = false) {
    if (const unsigned marks = write_list_.Push(region_, newest, oldest, n, exclusive)) Due(marks);
  }
  // Rows pushed so far. O(1).
  uint64_t Count() const { return write_list_.Count(); }

  // Rows a writer thread adds between its refreshes of the shared tail while
  // readers are present.
  static constexpr uint64_t kTailStep = 16;
  // A reader that finds at most this many rows after the shared tail sorts
  // them for itself, as one more level of its view, and leaves the shared
  // tail alone; more (no writer has refreshed it) are merged into the shared
  // tail once, for all readers.
  static constexpr size_t kPrivateTailMax = 4 * kTailStep;

  // ---- Views (run_index.cc) ----

  // A view of every row pushed so far. The tail is built from the last
  // snapshot's (kept in the index), sorting only the rows pushed since.
  // A tail of at least seal_threshold rows is published as a new run.
  // May throw std::bad_alloc (callers at a public boundary catch it).
  // `current`: the caller's reference to the current set, if it holds one
  // (a reader renewing its view): taken over instead of RunSetHolder's
  // lock and a count on the set, which every reader shares.
  View Snapshot(std::shared_ptr<const RunSet> current = nullptr);
  // Whether `view` still shows every row and the current runs.
  bool Current(const View& view) const {
    return runs_.Version() == view.set->version && write_list_.LoadHeads() == view.heads();
  }

  // Calls fn(view) with a view of every row pushed so far, for one point
  // read. The calling thread's last view is reused while it is current
  // (Current: a version and the write list's heads, loaded, not written), so
  // that reads of an index that is not changing take no lock, write no
  // cache line other readers read, count no reference and allocate nothing:
  // what Snapshot does for every call would make all readers on many cores
  // queue on the same mutexes and reference counts. Threads that share a
  // slot (ReaderSlots), or a call made from inside fn, take a Snapshot of
  // their own instead. The view is valid during fn only. May throw
  // std::bad_alloc (callers at a public boundary catch it).
  template <typename Fn>
  void WithReadView(Fn&& fn) {
    ReaderSlot& slot = readers_.Mine();
    // acquire: the view a thread that shared this slot left in it is
    // complete (reader_slots.h, invariant 1).
    if (slot.busy.exchange(true, std::memory_order_acquire)) {
      const View view = Snapshot();
      fn(view);
      return;
    }
    SlotRelease release{slot};
    // A current view needs no NoteReader: while it stays current no writer
    // pushes, and the first read after a push extends its view or takes a
    // Snapshot, either of which notes it.
    MakeCurrent(slot.view);
    fn(static_cast<const View&>(slot.view));
  }

  // A view of every row pushed so far, for an iterator: the calling thread's
  // last one (WithReadView's slot) while current, else that one extended by
  // the rows pushed since (Extend), else a Snapshot. The slot's view is lent,
  // not copied (moved out; the slot is empty until ReturnView): so a reader
  // that makes an iterator per Seek beside a writer takes no lock, counts no
  // reference other readers count, and walks and sorts only the few rows
  // written since its own last Seek. May throw std::bad_alloc (callers at a
  // public boundary catch it).
  View ReaderView() {
    ReaderSlot& slot = readers_.Mine();
    // acquire/release: as in WithReadView.
    if (slot.busy.exchange(true, std::memory_order_acquire)) return Snapshot();
    SlotRelease release{slot};
    slot.seeks.store(slot.seeks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    MakeCurrent(slot.view);
    View lent = std::move(slot.view);
    slot.view = View{};
    return lent;
  }
  // Gives a view that ReaderView lent back to the calling thread's slot, for
  // its next read to extend, if the slot is empty and the view's run set is
  // still the current one; else lets it go (a stale view would keep runs
  // that a merge replaced alive: reader_slots.h, invariant 3).
  void ReturnView(View view) {
    if (view.set == nullptr) return;
    ReaderSlot& slot = readers_.Mine();
    if (slot.busy.exchange(true, std::memory_order_acquire)) return;
    SlotRelease release{slot};
    if (slot.view.set == nullptr && runs_.Version() == view.set->version) {
      slot.view = std::move(view);
    }
  }

  // ---- Life (run_index.cc) ----

  // Read-only from now on: the strand sorts everything into one run. Only
  // flags and requests: never waits for a sort.
  void Freeze();
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }
  // Makes queued tasks harmless, stops a running merge (within
  // SortedRun::kCancelCheck rows; a running cut finishes first), and waits
  // for the running task to return. Called by the rep's destructor. Queued
  // tasks hold the index, so it outlives its rep until they have run.
  void Close() { task_.Close(); }
  // Whether Close has begun: merges running from then on stop early.
  bool Closing() const { return task_.cancelled(); }
  // CPU time the background work has spent so far (Rep::BackgroundCpuNanos).
  uint64_t BackgroundCpuNanos() const { return task_.CpuNanos(); }

  // ---- Queries (run_index_queries.cc) ----

  // The rows in [start, end) of internal keys: counted in the runs by binary
  // search, and one by one among the few unsorted rows.
  uint64_t CountBetween(std::string_view start, std::string_view end) const;
  // Calls fn(ref) for every row pushed so far.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    WriteList::ForEachBetween(region_, write_list_.LoadHeads(), WriteList::Heads{}, fn);
  }
  // Up to `target` distinct rows chosen at random, appended to *out
  // (Rep::RandomSample for every rep built on a RunIndex).
  Status RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const;
  // Calls callback(arg, row) on the rows at and after internal_key, in order,
  // until it returns false (Rep::GetRows), using no memory: a search of each
  // run and a pass over the unsorted rows per row handed out. For when a
  // Snapshot could not be had; a reader with memory seeks a view instead.
  void GetRowsWithoutMemory(std::string_view internal_key, void* arg,
                            bool (*callback)(void*, const char*)) const;

  // ---- Accounting (run_index.cc, run_index_queries.cc) ----

  // MemoryUsage's share for the runs, charged as they are built: the most
  // that the published runs and the shared tail have held, plus what the
  // rows in no run will take once cut (UnsortedCharge each), as last
  // computed by a call that found rows added since the one before. So the
  // figure grows with inserts only and is constant once they stop: RocksDB
  // records a memtable's usage when it turns immutable and requires that it
  // never changes after, while background work goes on. Not charged:
  // scratch that lives for one merge or sort (a merge's output while its
  // inputs still exist, the pieces of a sort, runs only an old view still
  // holds), and the prefixes of a run cut while writes continue from rows
  // counted as unsorted at the last insert (at most 6 bytes a row for
  // background_cut rows per writer thread). O(1), lock-free.
  uint64_t ChargedBytes() const;
  // For tests and benchmarks: the number of sorted runs now, the bytes they
  // hold, and what the background policy did.
  size_t NumRuns() const { return runs_.Current()->runs.size(); }
  size_t RunBytes() const;
  const RunIndexStats& stats() const { return stats_; }
  // Rows in no published run (as of the last published set; may lag).
  uint64_t Unsorted() const {
    const uint64_t count = Count();
    const uint64_t in_runs = set_entries_.load(std::memory_order_relaxed);
    return count > in_runs ? count - in_runs : 0;
  }

 private:
  friend class concurrency::SerialTask;

  // ---- The write path's signals (this header) ----

  // Queues a background task unless one is already queued.
  void Schedule(bool delayed) { task_.Schedule(shared_from_this(), delayed); }
  // A writer's shard reached a mark (WriteList::kCut: background_cut more
  // rows; kTail: kTailStep more). At kCut the writer helps when readers are
  // present, and requests the strand's work either way. While readers are
  // present it also keeps the shared tail sorted every kTailStep rows
  // (RefreshTail), so that a reader sorts only the few rows since.
  void Due(unsigned marks) {
    const bool readers = ReadersPresent();
    if (readers) write_list_.ArmTail(kTailStep);
    if (marks & WriteList::kCut) {
      if (readers) Help();
      Schedule(false);
    } else if (readers) {
      RefreshTail();
    }
  }
  // A coarse clock, in milliseconds, for noticing readers.
  static uint64_t NowMs() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  // Called by every Snapshot. relaxed: a hint for writers; the store is
  // skipped while the value is current, so that readers do not keep
  // writing a line they all read.
  void NoteReader() {
    const uint64_t now = NowMs();
    if (last_read_ms_.load(std::memory_order_relaxed) != now) {
      last_read_ms_.store(now, std::memory_order_relaxed);
      MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kIndexFlag);
    }
  }
  bool ReadersPresent() const {
    return NowMs() - last_read_ms_.load(std::memory_order_relaxed) <= kReaderWindowMs;
  }
  // Whether writers are doing the background work themselves: readers are
  // present and a writer came to help within kReaderWindowMs. relaxed: a
  // hint (a wrong answer moves work between the strand and a writer).
  bool WritersHelping() const {
    const uint64_t now = NowMs();
    return now - last_read_ms_.load(std::memory_order_relaxed) <= kReaderWindowMs &&
           now - last_help_ms_.load(std::memory_order_relaxed) <= kReaderWindowMs;
  }

  // ---- Views and the shared tail (run_index.cc) ----

  // Makes a reader slot's view current: kept while it is (no lock, no
  // write), else extended by the rows pushed since, else a new Snapshot (the
  // old one let go first: its runs may be merged away). The write list's
  // heads are loaded once, for both the check and the extension: each is a
  // line that a writer on another core keeps writing.
  void MakeCurrent(View& view) {
    // The version first (acquire: the set it names is the one `view` holds,
    // so the rows up to its `covered` are in its runs), then the heads: every
    // row pushed before this call is at or before them.
    if (view.set != nullptr && runs_.Version() == view.set->version) {
      const WriteList::Heads heads = write_list_.LoadHeads();
      if (heads == view.heads() || Extend(view, heads)) return;
    }
    // The view's set, while still the current one, goes on into the new
    // view (Snapshot checks its version again).
    std::shared_ptr<const RunSet> set = std::move(view.set);
    view = View{};
    view = Snapshot(std::move(set));
  }
  // Extends `view` (one this index gave) in place by the rows pushed since,
  // up to `heads` (loaded after the view's set was found to be the current
  // one: MakeCurrent), as one level of its own (at most kPrivateTailMax rows
  // with the view's own), when no run was cut or merged since and the tail
  // stays under seal_threshold: no lock taken, only the new rows walked and
  // sorted, and no reference count of the set or the shared levels touched
  // (every reader of the index holds those: counting them per read would
  // have all readers on many cores write the same cache lines). False,
  // `view` unchanged, if it cannot (then a Snapshot is needed, which seals a
  // big tail). May throw std::bad_alloc (then `view` is unchanged too).
  bool Extend(View& view, const WriteList::Heads& heads);
  // Snapshot's view of `set` and the rows after it; publishes them as a run
  // if they are at least seal_threshold. reader: as BuildTail's.
  View CutView(std::shared_ptr<const RunSet> set, bool reader);
  // The tail cache, taken under tail_mu_ (a pointer copy).
  std::shared_ptr<const Tail> CachedTail() const EXCLUDES(tail_mu_);
  // Sets view.tail, view.own and view.heads() to the rows after view.set:
  // the cached tail when it starts where the set ends, and the rows pushed
  // after it; loads the write list's heads.
  // cancel: the strand's (Close stops its big sorts: Cancelled is thrown);
  // nullptr for a reader or a writer.
  // reader: a few rows after the cached tail (kPrivateTailMax) become the
  // view's own level, neither merged nor cached (view.own); else view.own is
  // nullptr and view.tail holds every row.
  void BuildTail(View& view, const std::atomic<bool>* cancel, bool reader = false)
      EXCLUDES(tail_mu_);
  struct Cancelled {};
  // The tail, and `more` rows pushed after it, as one run.
  // layout: of the run made (a reader's seal: the runs' layout).
  std::shared_ptr<const SortedRun> Seal(const Tail& tail, const SortedRun* more,
                                        SortedRun::Layout layout, SortedRun::Filter filter) const;
  // A reader's own level: `slots` (sorted here unless `sorted`), as a run
  // that keeps every prefix and is counted nowhere (scratch of one view).
  std::shared_ptr<const SortedRun> OwnLevel(std::vector<RunSlot> slots, bool sorted = false) const;
  // Whether so many rows are in no run of `set` that sorting them should be
  // done once, under sort_mu_, rather than by every reader that arrives
  // meanwhile (a frozen vector rep's whole content, say, wanted at once by
  // its background sort and RocksDB's flush).
  bool ManyUnsorted(const RunSet& set) const {
    // Count may lag a push the set already holds: no underflow.
    const uint64_t count = Count();
    return count > set.entries && count - set.entries >= options_.seal_threshold;
  }
  // Stores set_bytes_ and set_entries_ from the current run set, and lets a
  // cached tail of rows a run now holds go.
  void NoteSet();
  // A row in no run, as the fenced run an idle cut makes of it (reference,
  // fence share, top index share and rounding, and the point filter's byte
  // where the index keeps one: FilterFor). Not the 12 bytes of a run that
  // keeps its prefixes: rows wait unsorted by the hundred thousand while the
  // strand is behind fast writers, and the charge's high-water mark would
  // keep that peak.
  static constexpr uint64_t UnsortedCharge(SortedRun::Filter filter) {
    return SortedRun::kMaxBytesPerEntry + 1 +
           (filter == SortedRun::Filter::kPoint ? SortedRun::kFilterBitsPerEntry / 8 : 0);
  }
  // The filter of a run a background step (a cut, a merge) makes: while
  // writes continue, only while the index has readers, so that with no
  // reader the write path builds and charges nothing more; and always once
  // the index is idle or frozen, when those steps make one run: a Get for a
  // key it does not hold then costs one filter word instead of a search.
  // (Readers' own seals use filter_.)
  SortedRun::Filter FilterFor(bool idle) const {
    return idle || ReadersPresent() ? filter_ : SortedRun::Filter::kNone;
  }
  // The layout of runs a background step builds: fenced once the index is
  // idle or frozen (what ChargedBytes counts rows in no run as).
  SortedRun::Layout LayoutFor(bool idle) const {
    return idle ? SortedRun::Layout::kFenced : options_.run_layout;
  }

  // ---- Background work and its policy (run_index_work.cc) ----

  // Sorts the rows after the shared tail into it, and publishes it as a run
  // once it holds seal_threshold rows (as a Snapshot would), unless another
  // writer is doing that. Never throws.
  void RefreshTail();
  // A writer's share of the work while readers are present: cuts and merges
  // as the strand would, unless another thread is, waiting for that one only
  // past HelpBound() rows in no run. Never throws.
  void Help() EXCLUDES(work_.mu);
  // One run of the background task; returns whether to run again later.
  bool BackgroundWork() EXCLUDES(work_.mu);
  // One step of background work; returns whether more is left for later.
  // helping: a writer's (Help): no yielding to writers.
  bool CutAndMerge(bool idle, bool helping) REQUIRES(work_.mu);
  // The background task's cut of the rows after `base`; returns how many it
  // left unsorted. helping: a writer's cut (Help), made whatever the
  // tail's size.
  size_t Cut(bool idle, bool helping, std::shared_ptr<const RunSet> base) REQUIRES(work_.mu);
  // Merges the runs of *set at `picks` into one and publishes it; *set is
  // then the current set. False if Close cancelled the merge.
  bool MergePicks(const std::vector<size_t>& picks, bool idle, bool helping,
                  std::shared_ptr<const RunSet>* set) REQUIRES(work_.mu);
  // The merge of `inputs` in the layout and filter of a background step.
  // nullptr if Close cancelled it. May throw std::bad_alloc.
  std::shared_ptr<const SortedRun> MergeRuns(const std::vector<const SortedRun*>& inputs,
                                             bool idle) const;
  // Iterator views taken so far, by every reader slot.
  uint64_t SeeksSoFar() const;
  // Clears the views in reader slots that are no longer current (slots in
  // use are skipped: their reader is reading a view it may keep).
  // Returns whether it skipped a slot in use (whose reader may be storing
  // a view of runs a merge just replaced).
  bool DropStaleViews();
  // Whether at least as many writer threads as cores pushed since the last
  // background task.
  bool WritersBusy() REQUIRES(work_.mu);
  // Merges of more rows than this are big: the strand makes them without
  // work_.mu (CutAndMerge).
  uint64_t BigMergeRows() const { return 16 * uint64_t{options_.background_cut}; }
  // Rows in no run above which a writer that would help waits for the
  // thread already cutting, rather than writing on.
  uint64_t HelpBound() const { return 4 * uint64_t{options_.background_cut}; }
  // For how long after a Snapshot (or a writer's help) the index counts as
  // having readers (or helping writers).
  static constexpr uint64_t kReaderWindowMs = 100;
  // How often the strand looks again while the index has unsorted rows or
  // several runs: once nothing arrives for a period, it becomes one run.
  static constexpr std::chrono::milliseconds kRecheckPeriod{10};
  // While iterators seek beside writers, the runs below the biggest are
  // merged into one (kSeekRuns runs in all) as far as kSeekMergeRows rows
  // per seek taken since the last step pay for the rows copied
  // (docs/runs.md, "Seeks pay for fewer runs"). Get-only readers earn
  // nothing.
  static constexpr size_t kSeekRuns = 2;
  static constexpr uint64_t kSeekMergeRows = 64;

  // ---- Data ----
  // The members that one side writes often are kept in groups that each
  // start a cache line of their own (alignas), away from the members both
  // sides only read (the options, the region, the write list's and the
  // reader slots' own padded arrays): a reader beside a writer then misses
  // only on the lines that carry what the writer published (the shard head,
  // the run set, the shared tail), not on lines the writer wrote for a
  // statistic or a flag (false sharing).

  // Read by all.
  const RunIndexOptions options_;
  const format::KeyOrder& order_;
  const RowRegion& region_;
  WriteList write_list_;
  ReaderSlots readers_;  // reader_slots.h
  alignas(concurrency::kCacheLine) RunSetHolder runs_;
  const MemoryCounter run_memory_ = std::make_shared<std::atomic<int64_t>>(0);

  // Written by whoever publishes a set or the shared tail, and by ChargedBytes.
  alignas(concurrency::kCacheLine) std::atomic<bool> frozen_{false};
  // What ChargedBytes reads, kept in atomics so that it takes no lock
  // (RocksDB asks after every insert): the current run set's bytes and
  // entries (stored as each set is published), the tail cache's bytes, the
  // charge and the row count it was last computed at. Each is exact; read
  // together they may mix two moments, which moves the estimate by one cut
  // for one call.
  std::atomic<uint64_t> set_bytes_{0};
  std::atomic<uint64_t> set_entries_{0};
  std::atomic<uint64_t> tail_bytes_{0};  // written under tail_mu_
  mutable std::atomic<uint64_t> charged_{0};
  mutable std::atomic<uint64_t> charged_at_count_{0};

  // The filter of published runs (RunIndexOptions::point_filters).
  alignas(concurrency::kCacheLine) const SortedRun::Filter filter_;
  concurrency::BackgroundPool& pool_;
  concurrency::SerialTask task_;  // the background work: Schedule, Close
  WorkState work_;                // the cuts' and merges' lock and state
  // Held while sorting many rows (ManyUnsorted), so that they are sorted
  // once. Taken after work_.mu and before tail_mu_ and RunSetHolder's locks,
  // never the other way.
  concurrency::Mutex sort_mu_;
  // Held for a pointer copy or exchange only (a reader takes the cache
  // beside writers that refresh it: a spin, never a sleep in the kernel).
  alignas(concurrency::kCacheLine) mutable concurrency::SpinLock tail_mu_;
  std::shared_ptr<const Tail> tail_cache_ GUARDED_BY(tail_mu_);

  // Written by writers (RefreshTail, Help) and the strand.
  // Set while one writer refreshes the shared tail (RefreshTail).
  alignas(concurrency::kCacheLine) std::atomic<bool> refreshing_{false};
  RunIndexStats stats_;
  // When a writer last came to cut and merge for readers (Help; NowMs).
  std::atomic<uint64_t> last_help_ms_{0};

  // Written by readers (Snapshot), read by writers.
  // The RunSet version for which an iterator last asked for background work.
  alignas(concurrency::kCacheLine) std::atomic<uint64_t> nudged_version_{~uint64_t{0}};
  // When a Snapshot was last taken (NowMs).
  std::atomic<uint64_t> last_read_ms_{0};

  // Whether inserts have paused; background tasks only (they never overlap).
  alignas(concurrency::kCacheLine) concurrency::QuietDetector quiet_{kRecheckPeriod};
};

}  // namespace memrep::runs
