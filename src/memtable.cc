#include "memrep/memtable.h"

#include <string>

#include "format/key_order.h"
#include "util/arena.h"

namespace memrep {

struct MemTable::Impl {
  explicit Impl(const MemTableOptions& options)
      : arena(options.arena_block_size), order(options.comparator) {}
  util::Arena arena;
  format::KeyOrder order;
  std::unique_ptr<Rep> rep;  // declared after the arena: destroyed before it
};

Status MemTable::Open(const MemTableOptions& options, std::unique_ptr<MemTable>* out) {
  if (options.rep != RepKind::kSortedHash) {
    return Status::InvalidArgument("unknown rep kind; memrep offers RepKind::kSortedHash");
  }
  Status s = options.sorted_hash.Validate();
  if (!s.ok()) return s;
  if (options.arena_block_size < 4096 || options.arena_block_size > (size_t{1} << 30)) {
    return Status::InvalidArgument("arena_block_size=" + std::to_string(options.arena_block_size) +
                                   " is out of range; use 4096..1073741824");
  }
  auto impl = std::make_unique<Impl>(options);
  impl->rep = NewSortedHashRep(options.sorted_hash,
                               RepContext{&impl->arena, options.comparator});
  out->reset(new MemTable(std::move(impl)));
  return Status::OK();
}

MemTable::MemTable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)), rep_(impl_->rep.get()) {}

MemTable::~MemTable() = default;

Status MemTable::Validate(std::string_view key, SequenceNumber seq, ValueType type,
                          std::string_view value) const {
  if (rep_->frozen()) {
    return Status::Frozen("the memtable is frozen (read-only); write to a new memtable");
  }
  if (key.size() > kMaxUserKeySize) {
    return Status::InvalidArgument("key of " + std::to_string(key.size()) +
                                   " bytes is too large; the limit is " +
                                   std::to_string(kMaxUserKeySize));
  }
  if (value.size() > kMaxValueSize) {
    return Status::InvalidArgument("value of " + std::to_string(value.size()) +
                                   " bytes is too large; the limit is " +
                                   std::to_string(kMaxValueSize));
  }
  if (seq > kMaxSequenceNumber) {
    return Status::InvalidArgument("sequence " + std::to_string(seq) +
                                   " is above kMaxSequenceNumber (2^56-1)");
  }
  if (type != ValueType::kValue && type != ValueType::kDeletion && type != ValueType::kMerge) {
    return Status::InvalidArgument("type " + std::to_string(static_cast<int>(type)) +
                                   " cannot be stored; use kValue, kDeletion or kMerge");
  }
  return Status::OK();
}

Status MemTable::Insert(std::string_view key, SequenceNumber seq, ValueType type,
                        std::string_view value) {
  const size_t len = EncodedEntrySize(key.size(), value.size());
  char* buf;
  KeyHandle handle = rep_->Allocate(len, &buf);
  EncodeEntry(buf, key, seq, static_cast<uint8_t>(type), value);
  if (!rep_->InsertConcurrently(handle)) {
    return Status::AlreadyExists("key already has a record with sequence " + std::to_string(seq));
  }
  return Status::OK();
}

Status MemTable::Add(std::string_view key, SequenceNumber seq, ValueType type,
                     std::string_view value) {
  Status s = Validate(key, seq, type, value);
  return s.ok() ? Insert(key, seq, type, value) : s;
}

Status MemTable::Write(const WriteBatch& batch, SequenceNumber first_seq) {
  if (batch.Count() > 0 && first_seq > kMaxSequenceNumber - (batch.Count() - 1)) {
    return Status::InvalidArgument("the batch's sequences would pass kMaxSequenceNumber");
  }
  for (size_t i = 0; i < batch.ops_.size(); ++i) {
    const WriteBatch::Op& op = batch.ops_[i];
    Status s = Validate(op.key, first_seq + i, op.type, op.value);
    if (s.IsFrozen()) return s;
    if (!s.ok()) {
      return Status::InvalidArgument("batch record " + std::to_string(i) + ": " + s.message());
    }
  }
  for (size_t i = 0; i < batch.ops_.size(); ++i) {
    const WriteBatch::Op& op = batch.ops_[i];
    Status s = Insert(op.key, first_seq + i, op.type, op.value);
    if (!s.ok()) {
      return Status::AlreadyExists("batch record " + std::to_string(i) + ": " + s.message() +
                                   "; the " + std::to_string(i) + " records before it were added");
    }
  }
  return Status::OK();
}

namespace {

struct GetState {
  const format::KeyOrder* order;
  std::string_view key;
  bool found = false;
  EntryView entry;
};

bool GetCallback(void* arg, const char* entry) {
  auto* state = static_cast<GetState*>(arg);
  EntryView view = DecodeEntry(entry);
  if (state->order->CompareUserKeys(view.user_key, state->key) == 0) {
    state->found = true;
    state->entry = view;
  }
  return false;  // the first record at or after the lookup key decides
}

}  // namespace

Status MemTable::Get(std::string_view key, SequenceNumber snapshot, std::string* value) const {
  if (snapshot > kMaxSequenceNumber) snapshot = kMaxSequenceNumber;
  std::string lookup;
  lookup.reserve(key.size() + 8);
  AppendInternalKey(&lookup, key, snapshot, static_cast<uint8_t>(ValueType::kForSeek));
  GetState state;
  state.order = &impl_->order;
  state.key = key;
  rep_->Get(lookup, &state, GetCallback);
  if (!state.found) return Status::NotFound();
  switch (static_cast<ValueType>(state.entry.type())) {
    case ValueType::kValue:
      value->assign(state.entry.value);
      return Status::OK();
    case ValueType::kDeletion:
      return Status::NotFound("deleted at sequence " + std::to_string(state.entry.sequence()));
    default:
      return Status::InvalidArgument("the newest record is a merge operand; read it with an iterator");
  }
}

std::unique_ptr<MemTableIterator> MemTable::NewIterator() const {
  return std::make_unique<MemTableIterator>(rep_->NewIterator());
}

void MemTable::Freeze() { rep_->Freeze(); }

bool MemTable::frozen() const { return rep_->frozen(); }

Status MemTable::Drain(const std::function<void(const EntryView&)>& fn) const {
  if (!rep_->frozen()) {
    return Status::InvalidArgument("Drain needs a frozen memtable: call Freeze() first");
  }
  auto it = rep_->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) fn(DecodeEntry(it->entry()));
  return Status::OK();
}

size_t MemTable::MemoryUsage() const { return impl_->arena.MemoryUsage() + rep_->MemoryUsage(); }

uint64_t MemTable::NumEntries() const { return rep_->NumEntries(); }

}  // namespace memrep
