// ThreadChunks: per-thread bump allocation over any chunk source. Each
// thread carves what it allocates from a chunk of its own and goes to the
// shared source (a region's cursor, an arena, a free list) once per chunk,
// not once per allocation; the bytes it has carved are counted in its own
// cache line, and a reader sums them (docs/trie.md, Contention audit).
//
//   slot i (one per thread while at most kSlots threads are live; ThreadSlot):
//     span  = end << 32 | cursor     the free part [cursor, end) of its chunk
//     taken = units of all chunks it took
//   carved units = sum over slots of taken - (end - cursor)
//
// Positions are the source's own 32-bit numbers (4-byte units of a region,
// references): a chunk [start, start + units) has start + units < 2^32.
//
// Thread safety: Carve from any thread; the sums from any thread (exact when
// no Carve runs, within a chunk per slot otherwise). Threads whose slots
// collide (more live threads than kSlots: concurrency/thread_slot.h) share
// a slot's chunk: correct, their CASes on its span only contend.
// Invariants and memory orders:
//  1. cursor <= end in every span; [cursor, end) of a slot's span has not
//     been handed out, and everything below cursor in its chunk has.
//  2. A span only changes by a CAS that moves its cursor up (a carve), or by
//     a store under the slot's refill lock (a new chunk), so a carve that
//     read a span before a refill fails its CAS and reads again. Carves are
//     relaxed: they only divide positions among threads; what is written at
//     a position is published by the caller's own release stores.
//  3. One thread at a time refills a slot (its refill lock), and the others
//     of the slot carve from the chunk it installs instead of taking their
//     own: one take from the source per chunk.
//  4. A refill adds the chunk to `taken`, then installs the span with a
//     release store, after take() returned; carves load the span and CAS it
//     with acquire (free on x86), and so do the sums before reading `taken`.
//     So a thread that carves from a chunk another thread of its slot took
//     sees what take() wrote (a chunk table's slot, RowRegion), and the sums
//     never see a chunk's room without its units (the carves after the
//     store are RMWs, which continue its release sequence).
#pragma once

#include <atomic>
#include <cstdint>

#include "concurrency/mutex.h"
#include "concurrency/per_thread.h"
#include "concurrency/shared_writes.h"
#include "memrep/status.h"

namespace memrep::memory {

class ThreadChunks {
 public:
  static constexpr size_t kSlots = 16;

  ThreadChunks() = default;
  ThreadChunks(const ThreadChunks&) = delete;
  ThreadChunks& operator=(const ThreadChunks&) = delete;

  // Hands out `units` consecutive positions (REQUIRES: units > 0) from the
  // calling thread's chunk, or, when they do not fit, from a new chunk that
  // take(units, &start, &chunk_units) gives (Status; chunk_units >= units;
  // called under the slot's refill lock, once per chunk). Then the rest of
  // the old chunk, if any, goes to leftover(start, units), under the same
  // lock, the caller's alone from then on (to keep for small objects, or to
  // drop). On a failure of take nothing is handed out, the old chunk stays,
  // and take's Status is returned.
  template <typename Take, typename Leftover>
  Status Carve(uint64_t units, Take&& take, Leftover&& leftover, uint64_t* start) {
    Slot& slot = slots_.Mine();
    if (CarveFrom(&slot, units, start)) return Status::OK();
    return Refill(&slot, units, take, leftover, start);
  }

  template <typename Take>
  Status Carve(uint64_t units, Take&& take, uint64_t* start) {
    return Carve(
        units, take, [](uint64_t, uint64_t) {}, start);
  }

  // The free room of the calling thread's chunk (a guess: another thread
  // of its slot may carve meanwhile).
  uint64_t Room() const {
    const uint64_t span = slots_.Mine().span.load(std::memory_order_relaxed);
    return (span >> 32) - (span & 0xffffffffu);
  }

  // Units handed out by Carve (leftovers included), summed over the slots.
  uint64_t CarvedUnits() const {
    uint64_t carved = 0;
    slots_.ForEach([&](const Slot& slot) {
      const uint64_t span = slot.span.load(std::memory_order_acquire);  // invariant 4
      carved += slot.taken.load(std::memory_order_relaxed) - ((span >> 32) - (span & 0xffffffffu));
    });
    return carved;
  }
  // Units taken but not yet handed out: the free part of every slot's chunk.
  uint64_t UnusedUnits() const {
    uint64_t unused = 0;
    slots_.ForEach([&](const Slot& slot) {
      const uint64_t span = slot.span.load(std::memory_order_relaxed);
      unused += (span >> 32) - (span & 0xffffffffu);
    });
    return unused;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> span{0};
    std::atomic<uint64_t> taken{0};
    concurrency::Mutex refill;
  };

  // Hands out `units` from the slot's chunk if they fit: the whole path of
  // an allocation but once per chunk, kept small so that it inlines.
  static bool CarveFrom(Slot* slot, uint64_t units, uint64_t* start) {
    // acquire: invariant 4.
    uint64_t span = slot->span.load(std::memory_order_acquire);
    while (units <= (span >> 32) - (span & 0xffffffffu)) {
      MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kShardCursor);
      // acquire: invariant 4 (the positions need no more, invariant 2).
      if (slot->span.compare_exchange_weak(span, span + units, std::memory_order_acquire)) {
        *start = span & 0xffffffffu;
        return true;
      }
    }
    return false;
  }

  // The chunk had no room: under the slot's refill lock, carves from the
  // chunk another thread of the slot installed meanwhile, or takes a new one.
  template <typename Take, typename Leftover>
  [[gnu::noinline]] Status Refill(Slot* slot, uint64_t units, Take& take, Leftover& leftover,
                                  uint64_t* start) {
    concurrency::MutexLock lock(&slot->refill);
    if (CarveFrom(slot, units, start)) return Status::OK();
    uint64_t chunk = 0, chunk_units = 0;
    // The old chunk stays in place if take fails: smaller objects still fit
    // in its rest.
    Status s = take(units, &chunk, &chunk_units);
    if (!s.ok()) return s;
    Close(slot, leftover);
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kChunkRefill);
    // Under the refill lock, so a load and a store: no RMW needed.
    slot->taken.store(slot->taken.load(std::memory_order_relaxed) + chunk_units,
                      std::memory_order_relaxed);
    *start = chunk;
    // release: invariant 4.
    slot->span.store((chunk + chunk_units) << 32 | (chunk + units), std::memory_order_release);
    return Status::OK();
  }

  // Empties the slot's span, giving its rest (if any) to leftover. The CAS
  // makes the rest this thread's alone: a carve of another thread of the
  // slot either moved the cursor first (the CAS fails and reads again) or
  // fails against the empty span. Only refills change a span otherwise
  // (invariant 2), and the caller holds the refill lock.
  template <typename Leftover>
  static void Close(Slot* slot, Leftover& leftover) REQUIRES(slot->refill) {
    uint64_t now = slot->span.load(std::memory_order_acquire);  // invariant 4
    for (;;) {
      const uint64_t cursor = now & 0xffffffffu, end = now >> 32;
      if (cursor == end) return;
      // acquire: invariant 4, for the span read again if it fails.
      if (slot->span.compare_exchange_weak(now, end << 32 | end, std::memory_order_acquire)) {
        leftover(cursor, end - cursor);
        return;
      }
    }
  }
  concurrency::PerThread<Slot, kSlots> slots_;
};

}  // namespace memrep::memory
