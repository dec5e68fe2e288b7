// ReaderSlots: each reader thread's last view of a RunIndex
// (RunIndex::WithReadView, ReaderView), kept so that a read of an index that
// is not changing takes no lock and counts no reference. A view left in a
// slot keeps its runs alive after a merge replaced them: the strand drops
// stale ones after each step (RunIndex::DropStaleViews).
//
// Invariants:
//  1. Only the thread that set `busy` from false to true (an acquire
//     exchange) reads or writes `view`, until it stores false (release:
//     SlotRelease). So threads that share a slot, and the strand's
//     DropStaleViews, see each other's whole view; a thread that finds
//     `busy` set never waits: it reads a Snapshot of its own (which also
//     makes a call from inside a read's callback safe).
//  2. A slot's view is complete for the moment it was taken (a Snapshot, or
//     Extend: the same set, and every row between its heads and heads loaded
//     after the set's version was checked); it is handed out only while
//     Current, else renewed first, so a read sees every row pushed before
//     it. Tested under ThreadSanitizer by StressTest (threads that only Get,
//     and threads that iterate, beside writers) and
//     RunIndex.AReadViewShowsEveryRow*, RunIndex.AReaderViewExtends*.
//  3. An iterator's view is the slot's, moved out (ReaderView), and is its
//     iterator's alone until given back (ReturnView), which stores it only
//     into an empty slot and only while its set is the current one: so a
//     slot never holds a view of a replaced set that DropStaleViews has
//     already passed (a set replaced after the store is the strand's next
//     DropStaleViews' to drop, as for WithReadView's own views).
//  4. ~RunIndex loads every slot's `busy` (acquire) before the views are let
//     go.
#pragma once

#include <atomic>
#include <cstdint>

#include "concurrency/per_thread.h"
#include "runs/run_view.h"

namespace memrep::runs {

struct ReaderSlot {
  std::atomic<bool> busy{false};
  RunView view;
  // Iterator views taken (ReaderView): written by the slot's holder (busy),
  // summed for the merges seeks pay for. relaxed: a count, read as a hint.
  std::atomic<uint64_t> seeks{0};
};

// Ends a hold of a slot (invariant 1).
struct SlotRelease {
  ReaderSlot& slot;
  ~SlotRelease() { slot.busy.store(false, std::memory_order_release); }
};

// Threads beyond 32 share slots: correct (invariant 1), and such a thread
// reads a Snapshot of its own whenever its slot is in use.
using ReaderSlots = concurrency::PerThread<ReaderSlot, 32>;

}  // namespace memrep::runs
