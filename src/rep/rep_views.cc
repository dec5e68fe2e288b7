// Rep's view functions, for reps that store rows: a view is encoded into a
// row on Add and decoded from one on Get (and MultiGetRows' default, the
// batch form of GetRows). A rep that stores entries in a form of its own
// overrides them.
#include <string>

#include "memrep/rep.h"
#include "rep/batch_status.h"

namespace memrep {

Status Rep::Add(const EntryView& entry, bool concurrent) {
  KeyHandle handle;
  char* row;
  Status s = Allocate(RowSize(entry.user_key.size(), entry.value.size()), &handle, &row);
  if (!s.ok()) return s;
  EncodeRow(row, entry);
  if (!(concurrent ? InsertConcurrently(handle) : Insert(handle))) {
    return rep::DuplicateRecordStatus(entry.sequence());
  }
  return Status::OK();
}

Status Rep::AddBatch(std::span<const EntryView> entries, bool concurrent) {
  for (size_t i = 0; i < entries.size(); ++i) {
    Status s = Add(entries[i], concurrent);
    if (!s.ok()) return rep::BatchRecordStatus(i, s);
  }
  return Status::OK();
}

void Rep::Get(std::string_view internal_key, void* arg, EntryCallback callback) const {
  struct Forward {
    void* arg;
    EntryCallback callback;
  } forward{arg, callback};
  GetRows(internal_key, &forward, [](void* a, const char* row) {
    auto* f = static_cast<Forward*>(a);
    return f->callback(f->arg, DecodeRow(row));
  });
}

void Rep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                   MultiEntryCallback callback) const {
  struct Forward {
    void* arg;
    MultiEntryCallback callback;
    size_t index;
  } forward{arg, callback, 0};
  for (; forward.index < internal_keys.size(); ++forward.index) {
    Get(internal_keys[forward.index], &forward, [](void* a, const EntryView& entry) {
      auto* f = static_cast<Forward*>(a);
      return f->callback(f->arg, f->index, entry);
    });
  }
}

void Rep::MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                       MultiRowCallback callback) const {
  struct Forward {
    void* arg;
    MultiRowCallback callback;
    size_t index;
  } forward{arg, callback, 0};
  for (; forward.index < internal_keys.size(); ++forward.index) {
    GetRows(internal_keys[forward.index], &forward, [](void* a, const char* row) {
      auto* f = static_cast<Forward*>(a);
      return f->callback(f->arg, f->index, row);
    });
  }
}

}  // namespace memrep
