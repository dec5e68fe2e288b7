#include "memtable_rep_adapter.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "util/assert.h"

namespace memrep::rocksdb_plugin {
namespace {

using ROCKSDB_NAMESPACE::Slice;

std::string_view View(const Slice& s) { return std::string_view(s.data(), s.size()); }

std::string_view InternalKeyOfRow(const char* row) {
  return View(ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(row));
}

// Whether `row`'s user key has the same bytes as the internal key
// `target`'s (a row whose length no longer holds a sequence: no).
bool SameUserKey(const char* row, const Slice& target) {
  constexpr size_t kTag = 8;  // sequence and type
  const std::string_view key = InternalKeyOfRow(row);
  return key.size() >= kTag && target.size() >= kTag &&
         key.substr(0, key.size() - kTag) == std::string_view(target.data(), target.size() - kTag);
}

// A read or write RocksDB cannot be told about failed: stop with the reason.
[[noreturn]] void Failed(const char* what) {
  std::fprintf(stderr, "memrep: %s inside RocksDB, which has no way to report it: out of memory\n",
               what);
  std::abort();
}
[[noreturn]] void ReadFailed() { Failed("a memtable read failed"); }

// Corruption for a step of a read that met rows out of RocksDB's order
// (paranoid memory checks): the keys in hex only where the options allow data
// in errors.
ROCKSDB_NAMESPACE::Status OrderViolation(const char* step, const Slice& from, const char* to_row,
                                         bool allow_data_in_errors) {
  std::string message = std::string("memrep memtable: ") + step +
                        " met rows out of order (a later row sorts before an earlier key)";
  if (allow_data_in_errors) {
    message += ": from internal key " + from.ToString(/*hex=*/true) + " to " +
               ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(to_row).ToString(/*hex=*/true);
  }
  return ROCKSDB_NAMESPACE::Status::Corruption(message);
}

// An overflow row's handle: its address with the top bit set, which no
// rep's handle has (rep.h), so InsertRow tells the two apart by one test.
constexpr uintptr_t kOverflowTag = uintptr_t{1} << 63;

}  // namespace

char* ArenaAllocator::AllocateAligned(size_t bytes) noexcept {
  try {
    return arena_->AllocateAligned(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// The rep's iterator, merged with a snapshot of the overflow when it holds
// rows (taken at each positioning call, as the rep's view is). Without an
// overflow every call goes straight to the rep's iterator.
//
// Merging: `current_` names the source under the cursor; moving forward, the
// other source rests on its first row after the current one, moving
// backward on its last row before it. Rows are distinct across the two, so a
// change of direction re-seeks the other source once.
class MemTableRepAdapter::MergedIterator final : public ROCKSDB_NAMESPACE::MemTableRep::Iterator {
 public:
  MergedIterator(const MemTableRepAdapter& owner, std::unique_ptr<RepIterator> rep)
      : owner_(owner), rep_(std::move(rep)) {}

  bool Valid() const override { return !failed_ && (merged() ? current_ != kNone : rep_->Valid()); }
  const char* key() const override {
    return merged() && current_ == kExtra ? extra_[static_cast<size_t>(pos_)] : rep_->row();
  }
  void Next() override {
    if (!merged()) return rep_->Next();
    if (!forward_) {
      const std::string_view at = InternalKeyOfRow(key());
      if (current_ == kExtra) {
        rep_->Seek(at);
        CheckPositioned();
      } else {
        pos_ = LowerBound(at);
      }
      forward_ = true;
    }
    if (current_ == kExtra) {
      ++pos_;
    } else {
      rep_->Next();
    }
    Pick(/*forward=*/true);
  }
  void Prev() override {
    if (!merged()) return rep_->Prev();
    if (forward_) {
      const std::string_view at = InternalKeyOfRow(key());
      if (current_ == kExtra) {
        rep_->SeekForPrev(at);
        CheckPositioned();
      } else {
        pos_ = LowerBound(at) - 1;
      }
      forward_ = false;
    }
    if (current_ == kExtra) {
      --pos_;
    } else {
      rep_->Prev();
    }
    Pick(/*forward=*/false);
  }
  // RocksDB passes the target as an internal key, or (11.1's
  // MemTableRep::MultiGet) as a memtable key with an empty internal key.
  void Seek(const Slice& internal_key, const char* memtable_key) override {
    SeekTo(Target(internal_key, memtable_key));
  }
  void SeekForPrev(const Slice& internal_key, const char* memtable_key) override {
    SeekForPrevTo(Target(internal_key, memtable_key));
  }
  void SeekTo(const Slice& internal_key) {
    Refresh();
    rep_->Seek(View(internal_key));
    CheckPositioned();
    if (!merged()) return;
    pos_ = LowerBound(View(internal_key));
    forward_ = true;
    Pick(/*forward=*/true);
  }
  void SeekForPrevTo(const Slice& internal_key) {
    Refresh();
    rep_->SeekForPrev(View(internal_key));
    CheckPositioned();
    if (!merged()) return;
    pos_ = UpperBound(View(internal_key)) - 1;
    forward_ = false;
    Pick(/*forward=*/false);
  }
  void SeekToFirst() override {
    Refresh();
    rep_->SeekToFirst();
    CheckPositioned();
    if (!merged()) return;
    pos_ = 0;
    forward_ = true;
    Pick(/*forward=*/true);
  }
  void SeekToLast() override {
    Refresh();
    rep_->SeekToLast();
    CheckPositioned();
    if (!merged()) return;
    pos_ = static_cast<ptrdiff_t>(extra_.size()) - 1;
    forward_ = false;
    Pick(/*forward=*/false);
  }

#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
  ROCKSDB_NAMESPACE::Status SeekAndValidate(const Slice& internal_key, const char* memtable_key,
                                            bool allow_data_in_errors, bool check_order,
                                            const KeyCheck& check_key) override {
    return SeekChecked(Target(internal_key, memtable_key), allow_data_in_errors, check_order,
                       check_key ? &check_key : nullptr);
  }
#elif MEMREP_ROCKSDB_HAS_VALIDATION
  ROCKSDB_NAMESPACE::Status SeekAndValidate(const Slice& internal_key, const char* memtable_key,
                                            bool allow_data_in_errors) override {
    return SeekChecked(Target(internal_key, memtable_key), allow_data_in_errors, true, nullptr);
  }
#endif
#if MEMREP_ROCKSDB_HAS_VALIDATION
  ROCKSDB_NAMESPACE::Status NextAndValidate(bool allow_data_in_errors) override {
    return StepChecked(/*forward=*/true, allow_data_in_errors);
  }
  ROCKSDB_NAMESPACE::Status PrevAndValidate(bool allow_data_in_errors) override {
    return StepChecked(/*forward=*/false, allow_data_in_errors);
  }
#endif

  // RocksDB's paranoid memory checks (rocksdb_compat.h): each step is taken
  // as usual, then its result is checked against the order it must keep
  // (`check_order`). A step that fails leaves the iterator invalid and
  // answers Corruption. RocksDB's own check of a row (`check_key`, the
  // per-key checksum) is not run on the row a seek lands on: RocksDB's
  // memtable iterator checks that row itself as soon as the seek returns
  // (MemTableIterator's VerifyEntryChecksum, in every version with these
  // hooks), and the rows a binary search only compares are covered by the
  // order checks (DisorderNearSeek) for what could mislead it.
  ROCKSDB_NAMESPACE::Status SeekChecked(const Slice& target, bool allow_data_in_errors,
                                        bool check_order, const KeyCheck* /*check_key*/) {
    SeekTo(target);
    if (check_order) {
      // Rows out of order that the rep's search stepped by (a binary search
      // lands beside a key moved out of order, not on it).
      const char* before = nullptr;
      if (const char* row = rep_->DisorderNearSeek(&before)) {
        return Fail(OrderViolation("Seek", ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(before), row,
                                   allow_data_in_errors));
      }
    }
    if (!Valid()) return ROCKSDB_NAMESPACE::Status::OK();
    if (check_order && owner_.cmp_(key(), target) < 0) {
      return Fail(OrderViolation("Seek", target, key(), allow_data_in_errors));
    }
    return ROCKSDB_NAMESPACE::Status::OK();
  }
  ROCKSDB_NAMESPACE::Status StepChecked(bool forward, bool allow_data_in_errors) {
    const char* from = key();
    forward ? Next() : Prev();
    if (!Valid()) return ROCKSDB_NAMESPACE::Status::OK();
    const int c = owner_.cmp_(key(), from);
    if (forward ? c <= 0 : c >= 0) {
      return Fail(OrderViolation(forward ? "Next" : "Prev",
                                 ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(from), key(),
                                 allow_data_in_errors));
    }
    return ROCKSDB_NAMESPACE::Status::OK();
  }

 private:
  enum Source { kNone, kRep, kExtra };

  // The target of a seek: the internal key, or the memtable key's.
  static Slice Target(const Slice& internal_key, const char* memtable_key) {
    return memtable_key != nullptr ? ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(memtable_key)
                                   : internal_key;
  }
  // `s`, after making the iterator invalid if it is not OK.
  ROCKSDB_NAMESPACE::Status Fail(ROCKSDB_NAMESPACE::Status s) {
    if (!s.ok()) failed_ = true;
    return s;
  }

  // After a positioning call: a rep iterator that could not be positioned
  // (out of memory) has no answer RocksDB could be given.
  void CheckPositioned() const {
    if (!rep_->Valid() && !rep_->status().ok()) ReadFailed();
  }
  bool merged() const { return !extra_.empty(); }
  void Refresh() {
    failed_ = false;
    OverflowRows* overflow = owner_.OverflowIfUsed();
    if (overflow != nullptr && overflow->count() != extra_.size()) {
      try {
        extra_ = overflow->Snapshot();
      } catch (const std::bad_alloc&) {
        ReadFailed();
      }
    }
  }
  bool ExtraValid() const { return pos_ >= 0 && pos_ < static_cast<ptrdiff_t>(extra_.size()); }
  const char* Extra() const { return extra_[static_cast<size_t>(pos_)]; }
  // First overflow row >= key (> key with `upper`).
  ptrdiff_t Bound(std::string_view key, bool upper) const {
    const Slice k(key.data(), key.size());
    const auto& cmp = owner_.cmp_;
    auto it =
        upper ? std::upper_bound(extra_.begin(), extra_.end(), k,
                                 [&](const Slice& a, const char* row) { return cmp(row, a) > 0; })
              : std::lower_bound(extra_.begin(), extra_.end(), k,
                                 [&](const char* row, const Slice& a) { return cmp(row, a) < 0; });
    return it - extra_.begin();
  }
  ptrdiff_t LowerBound(std::string_view key) const { return Bound(key, false); }
  ptrdiff_t UpperBound(std::string_view key) const { return Bound(key, true); }
  // The source under the cursor: the smaller head moving forward, the
  // larger moving backward.
  void Pick(bool forward) {
    const bool a = rep_->Valid(), b = ExtraValid();
    if (!a || !b) {
      current_ = a ? kRep : (b ? kExtra : kNone);
      return;
    }
    const int c = owner_.cmp_(rep_->row(), Extra());
    current_ = (forward ? c < 0 : c > 0) ? kRep : kExtra;
  }

  const MemTableRepAdapter& owner_;
  const std::unique_ptr<RepIterator> rep_;
  std::vector<const char*> extra_;  // the overflow's rows, sorted; empty: not merging
  ptrdiff_t pos_ = -1;
  Source current_ = kNone;
  bool forward_ = true;
  bool failed_ = false;  // a checked step failed: invalid until repositioned
};

MemTableRepAdapter::MemTableRepAdapter(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                                       ROCKSDB_NAMESPACE::Allocator* arena,
                                       std::unique_ptr<ArenaAllocator> allocator,
                                       std::unique_ptr<UserKeyComparator> order,
                                       std::unique_ptr<Rep> rep, const RepTraits& traits)
    : MemTableRep(arena),
      cmp_(cmp),
      arena_allocator_(std::move(allocator)),
      order_(std::move(order)),
      rep_(std::move(rep)),
      traits_(traits) {}

MemTableRepAdapter::~MemTableRepAdapter() = default;

OverflowRows& MemTableRepAdapter::Overflow() {
  try {
    std::call_once(overflow_once_, [this] { overflow_ = std::make_unique<OverflowRows>(cmp_); });
  } catch (const std::bad_alloc&) {
    Failed("a memtable write could not start its overflow");
  }
  return *overflow_;
}

MemTableRepAdapter::KeyHandle MemTableRepAdapter::Allocate(const size_t len, char** buf) {
  // Once a row overflowed, every later one does too: a writer's duplicate
  // (which follows its original) then always finds the original by
  // InsertRow's checks.
  KeyHandle handle;
  if (!overflowed_.load(std::memory_order_relaxed) && rep_->Allocate(len, &handle, buf).ok()) {
    MEMREP_ASSERT((reinterpret_cast<uintptr_t>(handle) & kOverflowTag) == 0);
    return handle;
  }
  // The rep has no room: the row goes to the overflow (see the header), in
  // RocksDB's own arena, which fails as it does for RocksDB's own reps.
  Overflow();
  *buf = allocator_->AllocateAligned(len);
  overflowed_.store(true, std::memory_order_release);  // readers now look at the overflow
  return reinterpret_cast<KeyHandle>(reinterpret_cast<uintptr_t>(*buf) | kOverflowTag);
}

bool MemTableRepAdapter::InsertRow(KeyHandle handle, bool concurrent) {
  const auto bits = reinterpret_cast<uintptr_t>(handle);
  if ((bits & kOverflowTag) == 0) {
    // A row allocated before the rep filled up still goes to the rep.
    return concurrent ? rep_->InsertConcurrently(handle) : rep_->Insert(handle);
  }
  // A duplicate shares the sequence of the batch being written, so it comes
  // from the same writer after its original: an overflow row's original is
  // in the rep or in the overflow, and both are checked.
  const char* row = reinterpret_cast<const char*>(bits & ~kOverflowTag);
  if (traits_.detects_duplicates() && rep_->Contains(InternalKeyOfRow(row))) return false;
  try {
    return overflow_->Insert(row);
  } catch (const std::bad_alloc&) {
    Failed("a memtable write could not be indexed");
  }
}

bool MemTableRepAdapter::Contains(const char* memtable_key) const {
  const std::string_view key = InternalKeyOfRow(memtable_key);
  if (rep_->Contains(key)) return true;
  OverflowRows* overflow = OverflowIfUsed();
  return overflow != nullptr && overflow->Contains(key);
}

void MemTableRepAdapter::Get(const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
                             bool (*callback)(void* arg, const char* entry)) {
  GetRows(InternalKeyOf(key), arg, callback);
}

void MemTableRepAdapter::GetRows(const Slice& internal_key, void* arg,
                                 bool (*callback)(void* arg, const char* entry)) {
  OverflowRows* overflow = OverflowIfUsed();
  if (overflow == nullptr || overflow->count() == 0) {
    rep_->GetRows(View(internal_key), arg, callback);
    return;
  }
  // Rare: rows in both places. Walk them merged, in order.
  std::unique_ptr<RepIterator> rep_iterator;
  try {
    rep_iterator = rep_->NewIterator();
  } catch (const std::bad_alloc&) {
    ReadFailed();
  }
  MergedIterator it(*this, std::move(rep_iterator));
  for (it.SeekTo(internal_key); it.Valid(); it.Next()) {
    if (!callback(arg, it.key())) return;
  }
}

ROCKSDB_NAMESPACE::Status MemTableRepAdapter::CheckRow(const char* row, const Slice& target,
                                                       const char* last,
                                                       const RowChecks& checks) const {
  if (checks.check_order && (last == nullptr ? cmp_(row, target) < 0 : cmp_(row, last) <= 0)) {
    return OrderViolation(
        checks.step, last == nullptr ? target : ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(last),
        row, checks.allow_data_in_errors);
  }
  // A row of the looked-up user key is checked by RocksDB itself when it is
  // handed on (SaveValue, the callback of every checked Get and MultiGet,
  // verifies the per-key checksum of a row whose user key matches before it
  // reads it; check_key is given only where those checksums exist); a row of
  // another key, which SaveValue rejects unchecked, is checked here.
  if (checks.check_key == nullptr || SameUserKey(row, target))
    return ROCKSDB_NAMESPACE::Status::OK();
  return (*checks.check_key)(row, checks.allow_data_in_errors);
}

ROCKSDB_NAMESPACE::Status MemTableRepAdapter::CheckProbedRows(const Slice& internal_key,
                                                              const RowChecks& checks) const {
  if (checks.check_key == nullptr) return ROCKSDB_NAMESPACE::Status::OK();
  struct Probe {
    const RowChecks* checks;
    ROCKSDB_NAMESPACE::Status status;
  } probe{&checks, {}};
  rep_->ProbedRows(View(internal_key), &probe, [](void* p, const char* row) {
    auto& c = *static_cast<Probe*>(p);
    c.status = (*c.checks->check_key)(row, c.checks->allow_data_in_errors);
    return c.status.ok();
  });
  return probe.status;
}

ROCKSDB_NAMESPACE::Status MemTableRepAdapter::GetChecked(const Slice& internal_key, void* arg,
                                                         bool (*callback)(void*, const char*),
                                                         const RowChecks& checks) {
  if (ROCKSDB_NAMESPACE::Status s = CheckProbedRows(internal_key, checks); !s.ok()) return s;
  // GetRows, with each row checked (CheckRow) before it is handed on.
  struct Checked {
    const MemTableRepAdapter* owner;
    Slice target;
    void* arg;
    bool (*callback)(void*, const char*);
    const RowChecks* checks;
    const char* last = nullptr;
    ROCKSDB_NAMESPACE::Status status;
  } checked{this, internal_key, arg, callback, &checks, nullptr, {}};
  GetRows(internal_key, &checked, [](void* p, const char* row) {
    auto& c = *static_cast<Checked*>(p);
    c.status = c.owner->CheckRow(row, c.target, c.last, *c.checks);
    if (!c.status.ok()) return false;
    c.last = row;
    return c.callback(c.arg, row);
  });
  return checked.status;
}

#if MEMREP_ROCKSDB_HAS_KEY_VALIDATION
ROCKSDB_NAMESPACE::Status MemTableRepAdapter::GetAndValidate(
    const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
    bool (*callback)(void* arg, const char* entry), bool allow_data_in_errors, bool check_order,
    const KeyCheck& check_key) {
  return GetChecked(InternalKeyOf(key), arg, callback,
                    {"Get", allow_data_in_errors, check_order, check_key ? &check_key : nullptr});
}
#elif MEMREP_ROCKSDB_HAS_VALIDATION
ROCKSDB_NAMESPACE::Status MemTableRepAdapter::GetAndValidate(
    const ROCKSDB_NAMESPACE::LookupKey& key, void* arg,
    bool (*callback)(void* arg, const char* entry), bool allow_data_in_errors) {
  return GetChecked(InternalKeyOf(key), arg, callback,
                    {"Get", allow_data_in_errors, true, nullptr});
}
#endif

#if MEMREP_ROCKSDB_HAS_REP_MULTIGET
ROCKSDB_NAMESPACE::Status MemTableRepAdapter::MultiGet(
    size_t num_keys, const char* const* keys, void** callback_args,
    bool (*callback)(void* arg, const char* entry), bool allow_data_in_errors, bool check_order,
    const KeyCheck& check_key) {
  const RowChecks checks{"MultiGet", allow_data_in_errors, check_order,
                         check_key ? &check_key : nullptr};
  const bool checked = check_order || check_key;
  OverflowRows* overflow = OverflowIfUsed();
  if (overflow != nullptr && overflow->count() != 0) {
    // Rare: rows in both places. A merged Get per key.
    for (size_t i = 0; i < num_keys; ++i) {
      const Slice internal_key = ROCKSDB_NAMESPACE::GetLengthPrefixedSlice(keys[i]);
      if (!checked) {
        GetRows(internal_key, callback_args[i], callback);
        continue;
      }
      ROCKSDB_NAMESPACE::Status s = GetChecked(internal_key, callback_args[i], callback, checks);
      if (!s.ok()) return s;
    }
    return ROCKSDB_NAMESPACE::Status::OK();
  }
  // The rep's own batch lookup (Rep::MultiGetRows: the sorted hash's and the
  // columnar rep's pipelined probes, the trie's interleaved descents), in
  // slices of RocksDB's own batch size. Rows are checked as GetChecked
  // checks them; after a failure every later row is refused, and the failure
  // is returned.
  constexpr size_t kSlice = 32;
  struct Batch {
    const MemTableRepAdapter* owner;
    void* const* args;
    bool (*callback)(void*, const char*);
    const RowChecks* checks;  // nullptr: unchecked
    const std::string_view* keys;
    size_t index = SIZE_MAX;  // the key the last row answered
    const char* last = nullptr;
    ROCKSDB_NAMESPACE::Status status;
  } batch{this,    callback_args, callback, checked ? &checks : nullptr,
          nullptr, SIZE_MAX,      nullptr,  {}};
  std::string_view slice[kSlice];
  for (size_t first = 0; first < num_keys && batch.status.ok(); first += kSlice) {
    const size_t n = std::min(kSlice, num_keys - first);
    for (size_t j = 0; j < n; ++j) slice[j] = InternalKeyOfRow(keys[first + j]);
    // The probed rows of each key first (CheckProbedRows); a failure at key
    // j answers the keys before it, then is returned.
    size_t answered = n;
    ROCKSDB_NAMESPACE::Status probed;
    for (size_t j = 0; checked && j < n && probed.ok(); ++j) {
      probed = CheckProbedRows(Slice(slice[j].data(), slice[j].size()), checks);
      if (!probed.ok()) answered = j;
    }
    batch.args = callback_args + first;
    batch.keys = slice;
    batch.index = SIZE_MAX;
    rep_->MultiGetRows(std::span<const std::string_view>(slice, answered), &batch,
                       [](void* p, size_t i, const char* row) {
                         auto& b = *static_cast<Batch*>(p);
                         if (!b.status.ok()) return false;
                         if (b.checks != nullptr) {
                           if (i != b.index) b.last = nullptr;
                           b.index = i;
                           const Slice target(b.keys[i].data(), b.keys[i].size());
                           b.status = b.owner->CheckRow(row, target, b.last, *b.checks);
                           if (!b.status.ok()) return false;
                           b.last = row;
                         }
                         return b.callback(b.args[i], row);
                       });
    if (batch.status.ok() && !probed.ok()) batch.status = probed;
  }
  return batch.status;
}
#endif

uint64_t MemTableRepAdapter::ApproximateNumEntries(const Slice& start_ikey, const Slice& end_ikey) {
  uint64_t n = rep_->ApproximateNumEntries(View(start_ikey), View(end_ikey));
  if (OverflowRows* overflow = OverflowIfUsed()) {
    try {
      for (const char* row : overflow->Snapshot()) {
        if (cmp_(row, start_ikey) >= 0 && cmp_(row, end_ikey) < 0) ++n;
      }
    } catch (const std::bad_alloc&) {
      // An estimate: the overflow's rows are left out.
    }
  }
  return n;
}

void MemTableRepAdapter::UniqueRandomSample(const uint64_t /*num_entries*/,
                                            const uint64_t target_sample_size,
                                            std::unordered_set<const char*>* entries) {
  // A sample feeds a heuristic (mempurge): a smaller one is still an answer.
  std::vector<const char*> sample;
  if (!rep_->RandomSample(target_sample_size, std::random_device{}(), &sample).ok()) return;
  try {
    entries->insert(sample.begin(), sample.end());
    if (OverflowRows* overflow = OverflowIfUsed()) {
      for (const char* row : overflow->Snapshot()) {
        if (entries->size() >= target_sample_size) break;
        entries->insert(row);
      }
    }
  } catch (const std::bad_alloc&) {
  }
}

size_t MemTableRepAdapter::ApproximateMemoryUsage() {
  size_t usage = rep_->MemoryUsage();
  OverflowRows* overflow = OverflowIfUsed();
  if (overflow != nullptr) usage += overflow->bytes();
  // Full: say so in the only way RocksDB listens (see the header). Both
  // conditions only turn true with inserts, so the figure never grows once
  // the memtable is read-only.
  if (overflow != nullptr || rep_->NearlyFull()) usage += kFullSignalBytes;
  return usage;
}

ROCKSDB_NAMESPACE::MemTableRep::Iterator* MemTableRepAdapter::GetIterator(
    ROCKSDB_NAMESPACE::Arena* arena) {
  std::unique_ptr<RepIterator> rep;
  try {
    rep = rep_->NewIterator();
  } catch (const std::bad_alloc&) {
    ReadFailed();
  }
  if (arena == nullptr) return new MergedIterator(*this, std::move(rep));
  // The caller only runs the destructor: the object must live in its arena.
  void* memory = AsAllocator(arena)->AllocateAligned(sizeof(MergedIterator));
  return new (memory) MergedIterator(*this, std::move(rep));
}

size_t MemTableRepAdapter::OverflowCount() const {
  OverflowRows* overflow = OverflowIfUsed();
  return overflow == nullptr ? 0 : overflow->count();
}

}  // namespace memrep::rocksdb_plugin
