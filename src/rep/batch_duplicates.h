// BatchDuplicates: finds a duplicate (user key, sequence) where RocksDB makes
// one, without a hash or a comparison on the common path.
//
// RocksDB gives every entry its own sequence number, except with one sequence
// per batch (write-prepared and write-unprepared transactions): there a batch
// that writes a key twice repeats its (user key, sequence), and RocksDB
// relies on the rep to refuse the second one, then splits the batch there.
// A batch is inserted by one thread, entry after entry, with nothing of
// another sequence between them. So a writer thread only has to remember the
// keys it wrote at its current sequence, per rep:
//
//   thread state:  seq S │ group(rep A): first user key, then a set of them
//                        │ group(rep B): ...             (one per column family)
//
// An insert at another sequence starts a new state (the common case: a
// compare and three stores). A second insert at the same sequence turns the
// rep's group into a set ordered by the rep's comparator, so the check also
// holds for comparators under which different bytes are equal keys.
//
// A thread that goes back (RocksDB inserts a thread's rows in rising
// sequence; its own duplicate test, MemPurge or another engine may not) is
// served too: the state also keeps the sequence before the current one, and
// an insert back at it is kEarlier, which the rep looks up (Contains). Any
// other sequence, above or below the current one, begins a new state, with
// no lookup: the common case costs the same whether sequences rise or not.
//
// What it does not find: a duplicate of another thread's row (RocksDB never
// makes those; RepTraits::Duplicates::kSameThread says so to every caller),
// nor a repeat of a row written two or more sequences before the current
// one on the same thread (a thread that writes s, s + 1, s + 2, then s
// again): RocksDB makes neither.
//
// Used by the reps that find kSameThread duplicates (vector, columnar).
//
// Thread safety: the state is the calling thread's own; nothing is shared.
// A group's keys are only read while its rep inserts (the rep is alive), and
// reps are told apart by a number never reused, so a destroyed rep's group is
// never read.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "format/key_order.h"
#include "memrep/entry.h"

namespace memrep::rep {

class BatchDuplicates {
 public:
  enum class Result { kNew, kDuplicate, kEarlier, kNoMemory };

  // A number for a new rep, unique for the life of the process.
  static uint64_t NewOwner();

  // Records `user_key` at `seq`, about to be stored by the rep `owner` (which
  // compares keys with `order`): kDuplicate if this thread recorded the same
  // user key for that rep at the same sequence, with no record at another
  // sequence since; kEarlier if `seq` is the sequence this thread wrote to
  // this rep before its current one (nothing is recorded then: the rep looks
  // the row up, as only a row of that sequence can be repeated); kNoMemory
  // if the set could not grow (nothing is recorded). Any other sequence,
  // above or below the current one, begins a new group. Never throws.
  // REQUIRES: the key's bytes stay where they are while the rep lives (the
  // rep's own copy, not the caller's).
  static Result Admit(uint64_t owner, const format::KeyOrder& order, std::string_view user_key,
                      SequenceNumber seq) noexcept;

  // Whether a batch of these sequences, in order, can meet kEarlier from
  // this thread for the rep `owner`: whether one of them goes back to the
  // sequence before the one current when it comes. Such a batch is stored
  // record by record, so that each record's lookup sees the ones before it.
  static bool MayGoBack(uint64_t owner, std::span<const EntryView> entries) noexcept;
  // Whether the rep `owner` recorded a key at the thread's current sequence.
  static bool RecordedAtCurrent(uint64_t owner) noexcept;
  // The thread's current sequence (0: none yet).
  static SequenceNumber Current() noexcept;
};

}  // namespace memrep::rep
