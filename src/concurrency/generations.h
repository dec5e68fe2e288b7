// Generations: an index that grows by adding tables, never by moving what
// it holds. A memtable cannot know how big it will get (RocksDB makes
// memtables on paths that say nothing of the write buffer, and SetOptions
// changes it under a running column family), and what a memtable charges
// must follow what it holds (RocksDB's flush decisions read it). So a point
// index starts with a table small enough for the smallest memtable and adds
// a bigger one each time its rows outgrow the newest:
//
//   tables_:  [ T0: first ][ T1: T0 x growth ] ... [ Tn-1: the newest ]
//   count_:   n, the tables published
//
// An entry stays in the table it was linked into; a new key goes to the
// newest table, a key's later versions to the table its group is in. The
// point indexes built on this (the sorted hash rep's HashIndex, the columnar
// rep's ColumnIndex) search the newest table first, and say how a key that
// two writers linked into two tables at once is found (their headers).
//
// Covering: right after a table is published, the grower sets every key of
// the older tables in a summary the new table keeps, then marks it covered.
// A key a covered table's summary rules out is in no table: a new key costs
// one table's probe, not one per generation (the indexes' headers say why
// no key linked while the grower reads is missed).
//
// Thread safety: Grow from any thread (one grows at a time, the others go on
// without waiting); count() and table() from any thread.
// Invariants and memory orders:
//  1. Tables are only added, at index count_, by the thread holding
//     growing_; tables_[i] is stored before count_ becomes i + 1, so a thread
//     that loads count_ sees every table below it (the store of count_ is a
//     release; readers load it with acquire or seq_cst).
//  2. The store of count_ is seq_cst, and so are the loads writers take it
//     with, so the indexes can order a writer's link against another's look
//     at the tables (HashIndex, invariant 6).
//  3. A table is never removed or replaced before the Generations is
//     destroyed.
//  4. covered_[i] is stored (release) once, after the grower's cover(i)
//     returned; a thread that loads it true (acquire) sees every write that
//     cover made. Table 0 is covered from the start.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "memrep/status.h"
#include "util/assert.h"

namespace memrep::concurrency {

template <typename Table, int kMaxTables>
class Generations {
 public:
  Generations() = default;
  Generations(const Generations&) = delete;
  Generations& operator=(const Generations&) = delete;

  // The tables published. acquire: invariant 1.
  int count() const { return count_.load(std::memory_order_acquire); }
  // The same, for a writer that must be ordered against other writers
  // (invariant 2).
  int count_seq_cst() const { return count_.load(std::memory_order_seq_cst); }
  // REQUIRES: i < a count() this thread loaded.
  Table& table(int i) const { return *tables_[i]; }
  Table& newest() const { return table(count() - 1); }
  bool full() const { return count() == kMaxTables; }
  // Whether table i's summary holds every older table's keys. acquire:
  // invariant 4. REQUIRES: i < a count() this thread loaded.
  bool covered(int i) const { return covered_[i].load(std::memory_order_acquire); }

  // Publishes `table` as the first one. REQUIRES: no table yet, no reader.
  void InitFirst(std::unique_ptr<Table> table) {
    MEMREP_ASSERT(count_.load(std::memory_order_relaxed) == 0);
    tables_[0] = std::move(table);
    covered_[0].store(true, std::memory_order_relaxed);  // published by count_
    count_.store(1, std::memory_order_release);
  }

  // If no other thread is growing the index, make(&table) builds the next
  // table (it may fail, with a Status, and then nothing changes) and it is
  // published; then cover(new_table, older) puts the keys of the `older`
  // tables below it into its summary, and it is marked covered. Returns
  // false, doing nothing, if another thread was growing or the index has
  // kMaxTables tables. Never blocks.
  template <typename Make, typename Cover>
  bool Grow(Make&& make, Cover&& cover) {
    // acquire: a grower sees what the previous one published.
    if (growing_.exchange(true, std::memory_order_acquire)) return false;
    const int n = count_.load(std::memory_order_relaxed);  // only growers change it
    bool grown = false;
    if (n < kMaxTables) {
      std::unique_ptr<Table> next;
      if (make(&next).ok() && next != nullptr) {
        tables_[n] = std::move(next);
        // seq_cst: invariants 1 and 2.
        count_.store(n + 1, std::memory_order_seq_cst);
        cover(*tables_[n], n);
        covered_[n].store(true, std::memory_order_release);  // invariant 4
        grown = true;
      }
    }
    growing_.store(false, std::memory_order_release);
    return grown;
  }

 private:
  std::unique_ptr<Table> tables_[kMaxTables];
  std::atomic<bool> covered_[kMaxTables] = {};
  std::atomic<int> count_{0};
  std::atomic<bool> growing_{false};
};

}  // namespace memrep::concurrency
