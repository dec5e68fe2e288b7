#include "memrep/memtable.h"

#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "concurrency/mutex.h"
#include "concurrency/write_gate.h"
#include "format/coding.h"
#include "format/key_order.h"
#include "memory/arena.h"
#include "memrep/registry.h"

namespace memrep {

struct MemTable::Impl {
  Impl(const MemTableOptions& options, RepSpec rep_spec)
      : spec(std::move(rep_spec)), arena(options.arena_block_size), order(options.comparator) {}
  const RepSpec spec;
  memory::Arena arena;
  const format::KeyOrder order;
  std::unique_ptr<Rep> rep;  // declared after the arena: destroyed before it
  // Orders writes against Freeze.
  concurrency::WriteGate gate;
  // Set (release) once Freeze has waited for the writes in progress and
  // frozen the rep: whoever sees it (acquire) sees every write that landed.
  // The gate's own flag turns earlier, while those writes may still land.
  std::atomic<bool> frozen{false};
  // Writers one at a time, for a rep without concurrent inserts.
  concurrency::Mutex writer_mu;
};

namespace {

// The public functions' guard: memory running out in memrep's own
// bookkeeping (a message, a vector) becomes a Status, never an exception.
// (Not noexcept: an exception of the caller's comparator or callback passes
// through, as documented.)
template <typename Fn>
Status Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory(
        "out of memory in the memtable's bookkeeping; a write stored nothing, or for a batch, "
        "only the records before the one being written");
  }
}

// Runs a write through the gate, and one writer at a time for a rep that
// takes no concurrent inserts; the gate is always left, whatever the write
// throws (its callers are Guarded).
template <typename Fn>
Status GatedWrite(concurrency::WriteGate& gate, concurrency::Mutex& writer_mu, bool concurrent,
                  Fn&& write) {
  if (!gate.Enter()) {
    return Status::Frozen("the memtable is frozen (read-only); write to a new memtable");
  }
  struct Leave {
    concurrency::WriteGate& gate;
    ~Leave() { gate.Exit(); }
  } leave{gate};
  if (concurrent) return write();
  concurrency::MutexLock lock(&writer_mu);
  return write();
}

}  // namespace

Status MemTable::Open(const MemTableOptions& options, std::unique_ptr<MemTable>* out) {
  return Guarded([&]() -> Status {
    RepSpec spec;
    Status s = RepSpec::Parse(options.rep, &spec);
    if (!s.ok()) return s;
    if (options.arena_block_size < 4096 || options.arena_block_size > (size_t{1} << 30)) {
      return Status::InvalidArgument(
          "arena_block_size=" + std::to_string(options.arena_block_size) +
          " is out of range; use 4096..1073741824");
    }
    s = spec.CheckComparator(options.comparator);
    if (!s.ok()) return s;
    // Standalone, the engine says how large the table grows, so a rep that
    // cannot hold that much is refused here, before any write (inside RocksDB a
    // rep asks for a switch instead: rocksdb/rep_factory.cc, ValidateOptions).
    s = spec.CheckWriteBufferSize(options.write_buffer_size);
    if (!s.ok()) return s;
    auto impl = std::make_unique<Impl>(options, std::move(spec));
    RepContext context;
    context.allocator = options.allocator != nullptr ? options.allocator : &impl->arena;
    context.comparator = options.comparator;
    context.rows = false;
    context.write_buffer_size = options.write_buffer_size;
    context.lineage = options.lineage.get();
    s = impl->spec.NewRep(context, &impl->rep);
    if (!s.ok()) return s;
    out->reset(new MemTable(std::move(impl)));
    return Status::OK();
  });
}

Status MemTable::Open(std::string_view rep, std::unique_ptr<MemTable>* out) {
  MemTableOptions options;
  try {
    options.rep = std::string(rep);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not copy the rep's name");
  }
  return Open(options, out);
}

MemTable::MemTable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MemTable::~MemTable() = default;

Status MemTable::Validate(const EntryView& record) const {
  if (record.user_key.size() > kMaxUserKeySize) {
    return Status::InvalidArgument("key of " + std::to_string(record.user_key.size()) +
                                   " bytes is too large; the limit is " +
                                   std::to_string(kMaxUserKeySize));
  }
  if (record.value.size() > kMaxValueSize) {
    return Status::InvalidArgument("value of " + std::to_string(record.value.size()) +
                                   " bytes is too large; the limit is " +
                                   std::to_string(kMaxValueSize));
  }
  const auto type = static_cast<ValueType>(record.type());
  if (type != ValueType::kValue && type != ValueType::kDeletion && type != ValueType::kMerge) {
    return Status::InvalidArgument("type " + std::to_string(record.type()) +
                                   " cannot be stored; use kValue, kDeletion or kMerge");
  }
  return Status::OK();
}

Status MemTable::Add(std::string_view key, SequenceNumber seq, ValueType type,
                     std::string_view value) {
  return Guarded([&]() -> Status {
    if (seq > kMaxSequenceNumber) {
      return Status::InvalidArgument("sequence " + std::to_string(seq) +
                                     " is above kMaxSequenceNumber (2^56-1)");
    }
    const EntryView record = EntryView::Of(key, seq, type, value);
    Status s = Validate(record);
    if (!s.ok()) return s;
    Rep& rep = *impl_->rep;
    const bool concurrent = traits().concurrent_insert;
    return GatedWrite(impl_->gate, impl_->writer_mu, concurrent,
                      [&] { return rep.Add(record, concurrent); });
  });
}

Status MemTable::Write(std::span<const EntryView> records) {
  return Guarded([&]() -> Status {
    for (size_t i = 0; i < records.size(); ++i) {
      Status s = Validate(records[i]);
      if (!s.ok()) {
        return Status::InvalidArgument("batch record " + std::to_string(i) + ": " + s.message());
      }
    }
    Rep& rep = *impl_->rep;
    const bool concurrent = traits().concurrent_insert;
    return GatedWrite(impl_->gate, impl_->writer_mu, concurrent,
                      [&] { return rep.AddBatch(records, concurrent); });
  });
}

// WriteBatch's records: type | varint32 key size | key | varint32 value size | value.
template <typename Fn>
void WriteBatch::ForEach(Fn&& fn) const {
  const char* p = rep_.data();
  const char* const end = p + rep_.size();
  while (p < end) {
    const auto type = static_cast<ValueType>(*p++);
    uint32_t size;
    p = format::DecodeVarint32(p, &size);
    const std::string_view key(p, size);
    p = format::DecodeVarint32(p + size, &size);
    const std::string_view value(p, size);
    p += size;
    fn(type, key, value);
  }
}

Status MemTable::Write(const WriteBatch& batch, SequenceNumber first_seq) {
  return Guarded([&]() -> Status {
    if (batch.Count() > 0 && first_seq > kMaxSequenceNumber - (batch.Count() - 1)) {
      return Status::InvalidArgument("the batch's sequences would pass kMaxSequenceNumber");
    }
    std::vector<EntryView> records;
    records.reserve(batch.Count());
    SequenceNumber seq = first_seq;
    batch.ForEach([&](ValueType type, std::string_view key, std::string_view value) {
      records.push_back(EntryView::Of(key, seq++, type, value));
    });
    return Write(records);
  });
}

namespace {

struct GetState {
  const format::KeyOrder* order;
  std::string_view key;
  bool found = false;
  uint8_t type = 0;
  SequenceNumber sequence = 0;
  std::string* value;
  bool copied = false;
};

bool GetCallback(void* arg, const EntryView& entry) {
  auto* state = static_cast<GetState*>(arg);
  if (state->order->CompareUserKeys(entry.user_key, state->key) == 0) {
    state->found = true;
    state->type = entry.type();
    state->sequence = entry.sequence();
    if (entry.type() == static_cast<uint8_t>(ValueType::kValue)) {
      // The view lives only during the callback: copy now.
      try {
        state->value->assign(entry.value);
        state->copied = true;
      } catch (const std::bad_alloc&) {
      }
    }
  }
  return false;  // the first record at or after the lookup key decides
}

// What a Get's state says about its key.
Status Outcome(const GetState& state) {
  if (!state.found) return Status::NotFound();
  switch (static_cast<ValueType>(state.type)) {
    case ValueType::kValue:
      if (!state.copied) return Status::OutOfMemory("could not copy the value");
      return Status::OK();
    case ValueType::kDeletion:
      return Status::NotFound("deleted at sequence " + std::to_string(state.sequence));
    default:
      return Status::InvalidArgument(
          "the newest record is a merge operand; read it with an iterator");
  }
}

// The internal key that Get seeks: the user key, then (snapshot, kForSeek).
void EncodeLookupKey(std::string_view key, SequenceNumber snapshot, char* out) {
  std::memcpy(out, key.data(), key.size());
  format::EncodeFixed64(out + key.size(),
                        PackTag(snapshot, static_cast<uint8_t>(ValueType::kForSeek)));
}

}  // namespace

Status MemTable::Get(std::string_view key, SequenceNumber snapshot, std::string* value) const {
  return Guarded([&]() -> Status {
    if (snapshot > kMaxSequenceNumber) snapshot = kMaxSequenceNumber;
    // The lookup key on the stack when it fits (no allocation per Get).
    constexpr size_t kStackKey = 256;
    char stack[kStackKey];
    std::string heap;
    char* lookup = stack;
    if (key.size() + 8 > kStackKey) {
      try {
        heap.resize(key.size() + 8);
      } catch (const std::bad_alloc&) {
        return Status::OutOfMemory("could not allocate a lookup key");
      }
      lookup = heap.data();
    }
    EncodeLookupKey(key, snapshot, lookup);
    GetState state;
    state.order = &impl_->order;
    state.key = key;
    state.value = value;
    impl_->rep->Get(std::string_view(lookup, key.size() + 8), &state, GetCallback);
    return Outcome(state);
  });
}

Status MemTable::MultiGet(std::span<const std::string_view> keys, SequenceNumber snapshot,
                          std::vector<std::string>* values, std::vector<Status>* statuses) const {
  return Guarded([&]() -> Status {
    if (snapshot > kMaxSequenceNumber) snapshot = kMaxSequenceNumber;
    // bad_alloc from here on is Guarded's OutOfMemory.
    values->resize(keys.size());
    statuses->assign(keys.size(), Status::OK());
    // Every lookup key in one buffer.
    size_t bytes = 0;
    for (const std::string_view key : keys) bytes += key.size() + 8;
    std::string buffer(bytes, '\0');
    std::vector<std::string_view> lookups(keys.size());
    std::vector<GetState> states(keys.size());
    char* at = buffer.data();
    for (size_t i = 0; i < keys.size(); ++i) {
      EncodeLookupKey(keys[i], snapshot, at);
      lookups[i] = std::string_view(at, keys[i].size() + 8);
      at += keys[i].size() + 8;
      states[i].order = &impl_->order;
      states[i].key = keys[i];
      states[i].value = &(*values)[i];
    }
    impl_->rep->MultiGet(lookups, states.data(), [](void* arg, size_t i, const EntryView& entry) {
      return GetCallback(&static_cast<GetState*>(arg)[i], entry);
    });
    for (size_t i = 0; i < keys.size(); ++i) (*statuses)[i] = Outcome(states[i]);
    return Status::OK();
  });
}

Status MemTable::NewIterator(std::unique_ptr<MemTableIterator>* out) const {
  try {
    *out = std::make_unique<MemTableIterator>(impl_->rep->NewIterator());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("could not allocate an iterator");
  }
  return Status::OK();
}

Status MemTable::Freeze() {
  impl_->gate.Close();  // every write that entered has landed; later ones are refused
  impl_->rep->Freeze();
  impl_->frozen.store(true, std::memory_order_release);
  return impl_->rep->FreezeResult();
}

bool MemTable::frozen() const { return impl_->frozen.load(std::memory_order_acquire); }

Status MemTable::Drain(const std::function<void(const EntryView&)>& fn) const {
  return Guarded([&]() -> Status {
    if (!frozen()) {
      return Status::InvalidArgument("Drain needs a frozen memtable: call Freeze() first");
    }
    std::unique_ptr<MemTableIterator> it;
    Status s = NewIterator(&it);
    if (!s.ok()) return s;
    for (it->SeekToFirst(); it->Valid(); it->Next()) fn(it->entry());
    return it->status();
  });
}

size_t MemTable::MemoryUsage() const {
  // The arena is empty when the caller's allocator is used.
  return impl_->arena.MemoryUsage() + impl_->rep->MemoryUsage();
}

bool MemTable::NearlyFull() const { return impl_->rep->NearlyFull(); }

uint64_t MemTable::NumEntries() const { return impl_->rep->NumEntries(); }

const std::string& MemTable::rep_name() const { return impl_->spec.name(); }

const RepTraits& MemTable::traits() const { return impl_->spec.traits(); }

}  // namespace memrep
