#include "trie/trie_rep.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <random>
#include <tuple>
#include <utility>

#include "format/coding.h"
#include "format/key_order.h"
#include "trie/trie_file.h"
#include "trie/trie_iterator.h"
#include "trie/trie_options_check.h"

namespace memrep::trie {

namespace {

// One node per insert in flight at most (a split's K2 or a growth's copy, up
// to a K256): a megabyte covers a thousand writer threads at once.
constexpr uint64_t kReserve = uint64_t{1} << 20;

std::string UniqueFileIn(const std::string& dir) {
  static std::atomic<uint64_t> counter{0};
  return dir + "/memrep-trie-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1, std::memory_order_relaxed)) + ".region";
}

memory::VmRegionOptions::HugePages HugePagesOf(const std::string& v) {
  if (v == "transparent") return memory::VmRegionOptions::HugePages::kTransparent;
  if (v == "true" || v == "explicit") return memory::VmRegionOptions::HugePages::kExplicit;
  return memory::VmRegionOptions::HugePages::kNone;
}

}  // namespace

uint64_t ReserveFor(uint64_t mem_cap) { return std::min(kReserve, mem_cap / 16); }

// A writer's chunk: 1/1024 of the memtable, within [4 KiB, 64 KiB], so the
// partly filled chunks of a few writers are a small part of any memtable.
uint64_t ChunkBytesFor(uint64_t write_buffer_size) {
  if (write_buffer_size == 0) write_buffer_size = uint64_t{64} << 20;
  return std::clamp<uint64_t>(write_buffer_size / 1024, 4096, 65536);
}

TrieRep::TrieRep(std::unique_ptr<memory::VmRegion> region, std::unique_ptr<Trie> trie, bool rows,
                 std::string remove_on_close, Conversion conversion)
    : region_(std::move(region)),
      trie_(std::move(trie)),
      rows_(rows),
      nearly_full_((region_->capacity() - ReserveFor(region_->capacity())) / 8 * 7),
      remove_on_close_(std::move(remove_on_close)),
      conversion_(std::move(conversion)) {}

TrieRep::~TrieRep() {
  trie_.reset();
  region_.reset();
  if (!remove_on_close_.empty()) ::unlink(remove_on_close_.c_str());
}

Status TrieRep::Make(const TrieOptions& options, const RepContext& context,
                     std::unique_ptr<Rep>* out, uint64_t row_bytes) {
  const format::KeyOrder order(context.comparator);
  if (order.kind() == format::KeyOrder::Kind::kCustom) {
    return Status::InvalidArgument(
        std::string(TrieOptions::kName) +
        " orders keys by their bytes: it serves the bytewise comparator and its reverse, not " +
        context.comparator->Name());
  }
  if (context.rows) {
    Status face = CheckRowsFace(options);  // also refused when a DB opens
    if (!face.ok()) return face;
  }
  memory::VmRegionOptions ro;
  ro.capacity = options.mem_cap;
  ro.use_vm = options.use_vm;
  ro.huge_pages = HugePagesOf(options.use_hugepage);
  ro.explicit_commit = options.vm_explicit_commit;
  std::string remove_on_close;
  if (!options.dir.empty()) {
    ro.path = UniqueFileIn(options.dir);
    remove_on_close = ro.path;
  } else if (!options.file.empty() && options.convert_to_sst != "kDumpMem") {
    ro.path = options.file;
    if (options.convert_to_sst == "kDontConvert") remove_on_close = ro.path;
  }
  std::unique_ptr<memory::VmRegion> region;
  Status s = memory::VmRegion::Open(ro, &region);
  if (!s.ok()) return s;
  std::unique_ptr<Trie> trie;
  s = Trie::Create(region.get(), context.rows ? Trie::Mode::kRows : Trie::Mode::kViews,
                   order.kind() == format::KeyOrder::Kind::kReverseBytewise,
                   ReserveFor(options.mem_cap), ChunkBytesFor(context.write_buffer_size), &trie,
                   context.rows ? context.allocator : nullptr, row_bytes);
  if (!s.ok()) {
    region.reset();
    if (!remove_on_close.empty()) ::unlink(remove_on_close.c_str());
    return s;
  }
  // Rows never convert (refused above).
  Conversion conversion;
  if (options.convert_to_sst == "kFileMmap") conversion.kind = Conversion::Kind::kFileMmap;
  if (options.convert_to_sst == "kDumpMem") conversion.kind = Conversion::Kind::kDumpMem;
  conversion.file = options.file;
  conversion.sync = options.sync_sst_file;
  out->reset(new (std::nothrow) TrieRep(std::move(region), std::move(trie), context.rows,
                                        remove_on_close, std::move(conversion)));
  if (*out == nullptr) return Status::OutOfMemory("a trie rep could not be allocated");
  return Status::OK();
}

Status TrieRep::Allocate(size_t len, KeyHandle* handle, char** row) {
  Ref cell = 0;
  Status s = trie_->AllocateCell(len, &cell, row);
  if (!s.ok()) return s;
  // The handle is the cell's Ref (never 0, below 2^31): a pointer into the
  // row region's chunks cannot be turned back into one.
  *handle = reinterpret_cast<KeyHandle>(static_cast<uintptr_t>(cell));
  return Status::OK();
}

bool TrieRep::InsertRow(KeyHandle handle) {
  const auto cell = static_cast<Ref>(reinterpret_cast<uintptr_t>(handle));
  return trie_->InsertCell(cell).ok();
}

Status TrieRep::Add(const EntryView& entry, bool /*concurrent*/) {
  if (rows_) return Rep::Add(entry, false);
  return trie_->InsertView(entry);
}

void TrieRep::GetRows(std::string_view internal_key, void* arg, RowCallback callback) const {
  const auto split = Trie::Split(internal_key);
  const std::string_view user = split.first;
  const SequenceNumber seq = split.second;
  trie_->VisitVersions(user, seq, [&](Ref v) { return callback(arg, trie_->Row(v)); });
}

void TrieRep::Get(std::string_view internal_key, void* arg, EntryCallback callback) const {
  if (rows_) return Rep::Get(internal_key, arg, callback);
  const auto split = Trie::Split(internal_key);
  const std::string_view user = split.first;
  const SequenceNumber seq = split.second;
  trie_->VisitVersions(user, seq, [&](Ref v) {
    return callback(arg, EntryView{user, trie_->Tag(v), trie_->Value(v)});
  });
}

template <class OnVersion>
void TrieRep::VisitVersionsOfMany(std::span<const std::string_view> internal_keys,
                                  OnVersion&& on_version) const {
  constexpr size_t kChunk = 64;
  std::string_view users[kChunk];
  SequenceNumber seqs[kChunk];
  for (size_t first = 0; first < internal_keys.size(); first += kChunk) {
    const size_t count = std::min(kChunk, internal_keys.size() - first);
    for (size_t j = 0; j < count; ++j) {
      std::tie(users[j], seqs[j]) = Trie::Split(internal_keys[first + j]);
    }
    trie_->VisitVersionsOfMany(std::span<const std::string_view>(users, count),
                               std::span<const SequenceNumber>(seqs, count),
                               [&](size_t j, Ref v) { return on_version(first + j, users[j], v); });
  }
}

void TrieRep::MultiGet(std::span<const std::string_view> internal_keys, void* arg,
                       MultiEntryCallback callback) const {
  VisitVersionsOfMany(internal_keys, [&](size_t i, std::string_view user, Ref v) {
    return callback(
        arg, i, rows_ ? DecodeRow(trie_->Row(v)) : EntryView{user, trie_->Tag(v), trie_->Value(v)});
  });
}

void TrieRep::MultiGetRows(std::span<const std::string_view> internal_keys, void* arg,
                           MultiRowCallback callback) const {
  VisitVersionsOfMany(internal_keys, [&](size_t i, std::string_view, Ref v) {
    return callback(arg, i, trie_->Row(v));
  });
}

bool TrieRep::Contains(std::string_view internal_key) const {
  const auto split = Trie::Split(internal_key);
  const std::string_view user = split.first;
  const SequenceNumber seq = split.second;
  bool found = false;
  trie_->VisitVersions(user, seq, [&](Ref v) {
    found = TagSequence(trie_->Tag(v)) == seq;
    return false;  // the first at or below seq is the only candidate
  });
  return found;
}

Status TrieRep::RandomSample(size_t target, uint64_t seed, std::vector<const char*>* out) const {
  // A reservoir over one ordered pass: every row has the same chance.
  std::vector<const char*> picked;
  std::mt19937_64 rng(seed);
  uint64_t seen = 0;
  try {
    picked.reserve(std::min<uint64_t>(target, NumEntries()));
    TrieIterator it(*trie_);
    for (it.SeekToFirst(); it.Valid(); it.Next(), ++seen) {
      if (picked.size() < target) {
        picked.push_back(it.row());
      } else {
        const uint64_t j = std::uniform_int_distribution<uint64_t>(0, seen)(rng);
        if (j < target) picked[j] = it.row();
      }
    }
    out->insert(out->end(), picked.begin(), picked.end());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("a random sample of the trie's rows could not be kept");
  }
  return Status::OK();
}

std::unique_ptr<RepIterator> TrieRep::NewIterator() const {
  return std::unique_ptr<RepIterator>(new (std::nothrow) TrieIterator(*trie_));
}

void TrieRep::Freeze() {
  trie_->Freeze();
  size_t none = 0;
  frozen_usage_.compare_exchange_strong(none, OwnBytes(), std::memory_order_acq_rel);
  std::call_once(convert_once_, [this] { freeze_result_ = Convert(); });
}

// REQUIRES: frozen (no insert runs or follows, so nothing else bumps the region).
Status TrieRep::Convert() {
  switch (conversion_.kind) {
    case Conversion::Kind::kNone:
      return Status::OK();
    case Conversion::Kind::kFileMmap:
      return WriteTableFromRegion(*trie_, *region_, conversion_.sync);
    case Conversion::Kind::kDumpMem:
      return DumpTable(*trie_, *region_, conversion_.file, conversion_.sync);
  }
  return Status::OK();
}

uint64_t TrieRep::ApproximateNumEntries(std::string_view start, std::string_view end) const {
  // Counted exactly up to a bound; past it, the share of the key space the
  // range covers (by 8-byte prefixes), times the entries.
  constexpr uint64_t kCounted = 256;
  TrieIterator it(*trie_);
  uint64_t n = 0;
  const format::KeyOrder order(trie_->reverse() ? ReverseBytewiseComparator() : nullptr);
  const auto [end_user, end_seq] = Trie::Split(end);
  for (it.Seek(start); it.Valid() && n < kCounted; it.Next(), ++n) {
    const EntryView e = it.entry();
    if (order.Compare(e.user_key, e.tag, end_user, PackTag(end_seq, 0)) >= 0) return n;
  }
  if (n < kCounted) return n;
  TrieIterator first(*trie_), last(*trie_);
  first.SeekToFirst();
  last.SeekToLast();
  if (!first.Valid() || !last.Valid()) return n;
  const double lo = double(order.Prefix(first.entry().user_key));
  const double hi = double(order.Prefix(last.entry().user_key));
  const double a = double(order.Prefix(Trie::Split(start).first));
  const double b = double(order.Prefix(end_user));
  if (hi <= lo || b <= a) return n;
  const double share = std::clamp((std::min(b, hi) - std::max(a, lo)) / (hi - lo), 0.0, 1.0);
  return std::max<uint64_t>(n, static_cast<uint64_t>(share * double(NumEntries())));
}

}  // namespace memrep::trie
