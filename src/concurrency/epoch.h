// EpochDomain: epoch-based reclamation, so memory that lock-free readers may
// still be reading is reused only once none of them can be.
//
//   reader/writer:  Guard g(domain);   // announces the epoch it entered in
//                   ... follow links to objects ...
//                   (g's destructor: the slot is free again)
//   unlinker:       unlink x (a release store), then stamp = Advance(), and
//                   keep x with its stamp (the domain keeps no objects: the
//                   caller's own list of retired objects)
//   later:          x may be reused once SafeToReuse(stamp), that is, once
//                   stamp < OldestAnnounced(); one OldestAnnounced() call
//                   settles a whole list of retired objects
//
// Slots: kSlots announcement words, one cache line each. A thread claims a
// free slot for the length of one guard, starting at its ThreadSlot() so that
// it finds its own slot free; with more than kSlots guards at once it spins,
// trying the next slots, until one is free.
//
// Thread safety: guards, Advance, SafeToReuse and OldestAnnounced from any
// threads at once.
//
// Invariants and memory orders:
//  1. A slot holds 0 (free) or an epoch its guard read. A guard announces
//     with a seq_cst CAS, then reads the epoch again (seq_cst) until it reads
//     what it announced. Advance moves the epoch on with a seq_cst RMW after
//     the unlinking, and OldestAnnounced reads the slots with seq_cst loads.
//     If the guard's last read of the epoch reads the Advance's value (or a
//     later one), it synchronizes with the Advance, so everything unlinked
//     before it is unlinked for this guard; if it reads an older value, it
//     precedes the Advance in the single total order, the announcement
//     precedes it too, and a later OldestAnnounced sees the announcement (an
//     epoch <= the stamp).
//  2. An object stamped r (the epoch before the Advance that followed its
//     unlinking) is safe to reuse only when every claimed slot holds an epoch
//     > r: that guard claimed its slot after the advance past r, so after the
//     unlinking (invariant 1).
//  3. Releasing a slot is a release store: what the guard read happens before
//     the object's reuse, which starts after OldestAnnounced's load saw the
//     slot free.
#pragma once

#include <atomic>
#include <cstdint>

#include "concurrency/per_thread.h"
#include "concurrency/shared_writes.h"

namespace memrep::concurrency {

class EpochDomain {
 public:
  static constexpr uint32_t kSlots = 64;

  class Guard {
   public:
    explicit Guard(const EpochDomain& domain) : domain_(&domain) { slot_ = domain.Claim(); }
    // A guard for nothing: used when no object can be retired any more (a
    // frozen structure), so reads need no announcement.
    Guard() = default;
    ~Guard() {
      if (domain_ != nullptr) domain_->Release(slot_);
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    const EpochDomain* domain_ = nullptr;
    uint32_t slot_ = 0;
  };

  // The stamp for an object unlinked just now (invariant 2): advances the
  // epoch and returns the value before.
  uint64_t Advance() {
    MEMREP_COUNT_SHARED_WRITE(SharedWrite::kEpochAdvance);
    return epoch_.fetch_add(1, std::memory_order_seq_cst);
  }

  // Whether an object retired with this stamp can be reused: no claimed slot
  // holds an epoch <= stamp.
  bool SafeToReuse(uint64_t stamp) const { return OldestAnnounced() > stamp; }

  // The smallest epoch a claimed slot holds, or the current epoch if none is
  // claimed. Objects stamped below it can be reused.
  uint64_t OldestAnnounced() const {
    uint64_t oldest = epoch_.load(std::memory_order_seq_cst);
    slots_.ForEach([&](const Slot& s) {
      const uint64_t e = s.epoch.load(std::memory_order_seq_cst);
      if (e != 0 && e < oldest) oldest = e;
    });
    return oldest;
  }

 private:
  struct Slot {
    std::atomic<uint64_t> epoch{0};
  };

  uint32_t Claim() const {
    uint32_t i = ThreadShard(kSlots);
    for (;;) {
      uint64_t expected = 0;
      uint64_t e = epoch_.load(std::memory_order_seq_cst);
      if (slots_[i].epoch.compare_exchange_strong(expected, e, std::memory_order_seq_cst)) {
        MEMREP_COUNT_SHARED_WRITE(SharedWrite::kEpochAnnounce);
        // Read the epoch again until it matches the announcement: the last
        // read then either reads from (or after) an Advance, which makes the
        // unlinking before that Advance visible to this guard's reads, or
        // precedes it, and then so does the announcement (invariant 1).
        for (uint64_t now = epoch_.load(std::memory_order_seq_cst); now != e;
             now = epoch_.load(std::memory_order_seq_cst)) {
          e = now;
          slots_[i].epoch.store(e, std::memory_order_seq_cst);
        }
        return i;
      }
      MEMREP_COUNT_SHARED_WRITE(SharedWrite::kEpochSlotTaken);
      i = (i + 1) % kSlots;
    }
  }
  void Release(uint32_t slot) const { slots_[slot].epoch.store(0, std::memory_order_release); }

  // Epochs start at 1 so that 0 means a free slot.
  alignas(kCacheLine) std::atomic<uint64_t> epoch_{1};
  mutable PerThread<Slot, kSlots> slots_;
};

}  // namespace memrep::concurrency
