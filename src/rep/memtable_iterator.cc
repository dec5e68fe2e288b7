#include <new>
#include <string>

#include "memrep/iterator.h"

namespace memrep {

Status MemTableIterator::status() const { return status_.ok() ? rep_->status() : status_; }

void MemTableIterator::SeekToFirst() {
  status_ = Status::OK();
  rep_->SeekToFirst();
}

void MemTableIterator::SeekToLast() {
  status_ = Status::OK();
  rep_->SeekToLast();
}

void MemTableIterator::Seek(std::string_view user_key, SequenceNumber snapshot) {
  SeekTo(user_key, snapshot, /*backward=*/false);
}

void MemTableIterator::SeekForPrev(std::string_view user_key, SequenceNumber sequence) {
  SeekTo(user_key, sequence, /*backward=*/true);
}

void MemTableIterator::SeekTo(std::string_view user_key, SequenceNumber sequence, bool backward) {
  // The tag holds 56 bits of sequence: a larger one would wrap (to 0 for
  // 2^56, which skips every record of the key). Above the largest sequence a
  // record can have, every sequence reads the same.
  if (sequence > kMaxSequenceNumber) sequence = kMaxSequenceNumber;
  try {
    scratch_.clear();
    AppendInternalKey(&scratch_, user_key, sequence, static_cast<uint8_t>(ValueType::kForSeek));
  } catch (const std::bad_alloc&) {
    status_ = Status::OutOfMemory("could not allocate a seek key");  // Valid() is false
    return;
  }
  status_ = Status::OK();
  if (backward) {
    rep_->SeekForPrev(scratch_);
  } else {
    rep_->Seek(scratch_);
  }
}

void MemTableIterator::Next() { rep_->Next(); }

void MemTableIterator::Prev() { rep_->Prev(); }

}  // namespace memrep
