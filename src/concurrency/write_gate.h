// WriteGate: orders writes against a close (the standalone MemTable's
// Freeze). A write either enters before the gate closes, and Close waits for
// it to leave, or is refused: no write is in progress, or can start, once
// Close returns.
//
//   slots:  [ count ][ count ] ... kSlots counters on separate cache lines;
//           a writer counts itself in the slot of its ThreadSlot
//   closed: set once by Close
//
// Enter is one atomic increment on the writer's own cache line and one load
// of `closed`, so concurrent writers do not contend; Close is rare and waits.
//
// Thread safety: Enter/Exit from any thread; Close from any thread, more
// than once.
// Invariant (Dekker's pattern, all four operations seq_cst): a writer
// increments its slot, then reads `closed`; Close sets `closed`, then reads
// every slot. In the single total order of these operations one of the two
// reads sees the other's write, so either the writer sees the gate closed
// (and backs out) or Close sees the writer counted (and waits for it).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "concurrency/per_thread.h"

namespace memrep::concurrency {

class WriteGate {
 public:
  // true: the caller may write, and must call Exit() when done. false: the
  // gate is closed; the caller must not write.
  bool Enter() {
    Slot& slot = slots_.Mine();
    slot.writers.fetch_add(1, std::memory_order_seq_cst);
    if (closed_.load(std::memory_order_seq_cst)) {
      slot.writers.fetch_sub(1, std::memory_order_relaxed);  // wrote nothing
      return false;
    }
    return true;
  }

  // release: the write happens-before Close's acquire load that sees the
  // count drop, so Close's caller sees it.
  void Exit() { slots_.Mine().writers.fetch_sub(1, std::memory_order_release); }

  // Refuses every later Enter, then waits until every entered writer has left.
  void Close() {
    closed_.store(true, std::memory_order_seq_cst);
    slots_.ForEach([](Slot& slot) {
      while (slot.writers.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
    });
    // seq_cst loads are also acquire: each pairs with its writer's Exit.
  }

  bool closed() const { return closed_.load(std::memory_order_acquire); }

 private:
  static constexpr size_t kSlots = 16;
  struct Slot {
    std::atomic<uint32_t> writers{0};
  };
  PerThread<Slot, kSlots> slots_;
  alignas(kCacheLine) std::atomic<bool> closed_{false};
};

}  // namespace memrep::concurrency
