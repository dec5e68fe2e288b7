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
// An insert at a sequence below the thread's current one (RocksDB inserts a
// thread's rows in rising sequence; a test, MemPurge or an engine may not)
// is kEarlier: it may repeat any row the thread stored, and the rep looks it
// up (Contains). The thread's state stays at its current sequence, so every
// later insert below it is looked up too.
//
// What it does not find: a duplicate of another thread's row (RocksDB never
// makes those; RepTraits::Duplicates::kSameThread says so to every caller).
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
  // sequence since (nothing is recorded then); kNoMemory if the set could not
  // grow (nothing is recorded). Never throws.
  // REQUIRES: the key's bytes stay where they are while the rep lives (the
  // rep's own copy, not the caller's).
  static Result Admit(uint64_t owner, const format::KeyOrder& order, std::string_view user_key,
                      SequenceNumber seq) noexcept;

  // Whether a batch of these sequences, in order, can meet kEarlier from
  // this thread: one of them below the one before it, or the first below
  // the thread's current sequence. A batch that cannot may skip recording
  // records between two of other sequences (they can repeat nothing).
  static bool MayGoBack(std::span<const EntryView> entries) noexcept {
    SequenceNumber before = Current();
    for (const EntryView& e : entries) {
      if (e.sequence() < before) return true;
      before = e.sequence();
    }
    return false;
  }
  // The thread's current sequence (0: none yet).
  static SequenceNumber Current() noexcept;
};

}  // namespace memrep::rep
