#include <new>

#include "format/coding.h"
#include "memrep/memtable.h"

namespace memrep {

Status WriteBatch::Append(ValueType type, std::string_view key, std::string_view value) {
  if (key.size() > kMaxUserKeySize || value.size() > kMaxValueSize) {
    return Status::InvalidArgument(
        "a write batch record's key or value is over the size limit "
        "(kMaxUserKeySize, kMaxValueSize)");
  }
  const size_t before = rep_.size();
  try {
    char header[1 + 5];
    header[0] = static_cast<char>(type);
    char* p = format::EncodeVarint32(header + 1, static_cast<uint32_t>(key.size()));
    rep_.append(header, p);
    rep_.append(key);
    p = format::EncodeVarint32(header, static_cast<uint32_t>(value.size()));
    rep_.append(header, p);
    rep_.append(value);
  } catch (const std::bad_alloc&) {
    rep_.resize(before);  // shrinking allocates nothing
    return Status::OutOfMemory("no memory for a write batch record");
  }
  ++count_;
  return Status::OK();
}

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
