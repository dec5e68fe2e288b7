#include "memrep/memtable.h"

namespace memrep {

void WriteBatch::Put(std::string_view key, std::string_view value) {
  ops_.push_back(Op{ValueType::kValue, std::string(key), std::string(value)});
}

void WriteBatch::Delete(std::string_view key) {
  ops_.push_back(Op{ValueType::kDeletion, std::string(key), std::string()});
}

void MemTableIterator::Seek(std::string_view user_key, SequenceNumber snapshot) {
  scratch_.clear();
  AppendInternalKey(&scratch_, user_key, snapshot, static_cast<uint8_t>(ValueType::kForSeek));
  rep_->Seek(scratch_);
}

void MemTableIterator::SeekForPrev(std::string_view user_key, SequenceNumber sequence) {
  scratch_.clear();
  AppendInternalKey(&scratch_, user_key, sequence, static_cast<uint8_t>(ValueType::kForSeek));
  rep_->SeekForPrev(scratch_);
}

}  // namespace memrep
