// EpochDomain: epoch-based reclamation, so memory that lock-free readers may
// still be reading is reused only once none of them can be.
//
//   reader/writer:  Guard g(domain);   // announces the epoch it entered in
//                   ... follow links to objects ...
//                   (g's destructor: the slot is free again)
//   unlinker:       unlink x (a release store), then Retire(x)
//   later:          Reclaim hands back every x retired before all the
//                   announcements now present were made
//
// Slots: kSlots announcement words, one cache line each. A thread claims a
// free slot for the length of one guard, starting at its ThreadSlot() so that
// it finds its own slot free; with more than kSlots guards at once it waits.
//
// Invariants and memory orders:
//  1. A slot holds 0 (free) or the epoch its guard read when it claimed the
//     slot. The claim is a seq_cst CAS and Reclaim reads slots with seq_cst
//     loads, after the retired objects were unlinked and the epoch advanced
//     with a seq_cst fetch_add. So either Reclaim sees the claim, or the
//     claim (and everything the guard reads after it) comes after the
//     advance in the single total order, and the guard cannot reach an
//     object unlinked before it.
//  2. An object retired with stamp r (the epoch before the advance that
//     followed its unlinking) is handed back only when every claimed slot
//     holds an epoch > r: that guard claimed its slot after the advance past
//     r, so after the unlinking (invariant 1).
//  3. Releasing a slot is a release store: what the guard read happens before
//     the object's reuse, which starts after Reclaim's load saw the slot free.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "concurrency/thread_slot.h"

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
  uint64_t Advance() { return epoch_.fetch_add(1, std::memory_order_seq_cst); }

  // Whether an object retired with this stamp can be reused: no claimed slot
  // holds an epoch <= stamp.
  bool SafeToReuse(uint64_t stamp) const { return OldestAnnounced() > stamp; }

  // The smallest epoch a claimed slot holds, or the current epoch if none is
  // claimed. Objects stamped below it can be reused.
  uint64_t OldestAnnounced() const {
    uint64_t oldest = epoch_.load(std::memory_order_seq_cst);
    for (const Slot& s : slots_) {
      const uint64_t e = s.epoch.load(std::memory_order_seq_cst);
      if (e != 0 && e < oldest) oldest = e;
    }
    return oldest;
  }

 private:
  struct alignas(kCacheLine) Slot {
    std::atomic<uint64_t> epoch{0};
  };

  uint32_t Claim() const {
    uint32_t i = ThreadSlot() % kSlots;
    for (;;) {
      uint64_t expected = 0;
      const uint64_t e = epoch_.load(std::memory_order_seq_cst);
      if (slots_[i].epoch.compare_exchange_strong(expected, e, std::memory_order_seq_cst)) {
        return i;
      }
      i = (i + 1) % kSlots;
    }
  }
  void Release(uint32_t slot) const { slots_[slot].epoch.store(0, std::memory_order_release); }

  // Epochs start at 1 so that 0 means a free slot.
  alignas(kCacheLine) std::atomic<uint64_t> epoch_{1};
  mutable std::array<Slot, kSlots> slots_;
};

}  // namespace memrep::concurrency
