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
// What it does not find: a duplicate from another thread, or one after the
// thread inserted at another sequence in between (RocksDB never makes those;
// RepTraits::Duplicates::kInBatch says so to every caller).
//
// Used by the reps that find kInBatch duplicates (vector, columnar).
//
// Thread safety: the state is the calling thread's own; nothing is shared.
// A group's keys are only read while its rep inserts (the rep is alive), and
// reps are told apart by a number never reused, so a destroyed rep's group is
// never read.
#pragma once

#include <cstdint>
#include <string_view>

#include "format/key_order.h"
#include "memrep/entry.h"

namespace memrep::rep {

class BatchDuplicates {
 public:
  enum class Result { kNew, kDuplicate, kNoMemory };

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
};

}  // namespace memrep::rep
