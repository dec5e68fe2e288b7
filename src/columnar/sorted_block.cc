#include "columnar/sorted_block.h"

#include <algorithm>

#include "util/radix_sort.h"

namespace memrep::columnar {

namespace {

// Below this many items a comparison sort beats eight counting passes.
constexpr size_t kRadixMin = 256;

void SortTies(const BlockTable& table, const format::KeyOrder& order, SortItem* first,
              SortItem* last) {
  std::sort(first, last, [&](const SortItem& a, const SortItem& b) {
    return CompareEntries(table, order, a.ref, a.prefix, b.ref, b.prefix) < 0;
  });
}

}  // namespace

namespace {

// Sorts v[0, n), whose keys agree on their first `offset` bytes and whose
// sort_key holds bytes [offset, offset + 8): radix passes on those, then the
// items that still tie either again on the next 8 bytes (a big group: keys
// that share a long prefix, as numbered keys do) or by comparison.
void SortFrom(const BlockTable& table, const format::KeyOrder& order, SortItem* v, SortItem* buffer,
              size_t n, size_t offset) {
  if (n < kRadixMin) {
    SortTies(table, order, v, v + n);
    return;
  }
  util::RadixSortBy(v, buffer, n, [](const SortItem& item) { return item.sort_key; });
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && v[j].sort_key == v[i].sort_key) ++j;
    if (j - i >= kRadixMin) {
      // Bytes past every key's end say nothing more: compare instead.
      size_t longest = 0;
      for (size_t k = i; k < j; ++k)
        longest = std::max<size_t>(longest, table.MetaOf(v[k].ref).key_len);
      if (longest > offset + 8) {
        for (size_t k = i; k < j; ++k) {
          const Meta& m = table.MetaOf(v[k].ref);
          const std::string_view key(m.key, m.key_len);
          v[k].sort_key = order.Prefix(key.substr(std::min(key.size(), offset + 8)));
        }
        SortFrom(table, order, v + i, buffer, j - i, offset + 8);
        i = j;
        continue;
      }
    }
    if (j - i > 1) SortTies(table, order, v + i, v + j);
    i = j;
  }
}

}  // namespace

void SortItems(const BlockTable& table, const format::KeyOrder& order,
               std::vector<SortItem>* items) {
  std::vector<SortItem>& v = *items;
  for (SortItem& item : v) item.sort_key = item.prefix;
  std::vector<SortItem> buffer(v.size() < kRadixMin ? 0 : v.size());
  SortFrom(table, order, v.data(), buffer.data(), v.size(), 0);
}

SortedBlock::SortedBlock(const std::vector<SortItem>& sorted) {
  refs_.reserve(sorted.size());
  fences_.reserve((sorted.size() + kFenceStride - 1) / kFenceStride);
  for (const SortItem& item : sorted) Add(item.ref, item.prefix);
}

std::shared_ptr<const SortedBlock> SortedBlock::Merge(const BlockTable& table,
                                                      const format::KeyOrder& order,
                                                      const SortedBlock& a, const SortedBlock& b,
                                                      const std::atomic<bool>* cancel) {
  std::shared_ptr<SortedBlock> out(new SortedBlock());
  const size_t n = a.size() + b.size();
  out->refs_.reserve(n);
  out->fences_.reserve((n + kFenceStride - 1) / kFenceStride);
  size_t i = 0, j = 0;
  uint64_t pa = i < a.size() ? table.PrefixOf(a.refs_[0]) : 0;
  uint64_t pb = j < b.size() ? table.PrefixOf(b.refs_[0]) : 0;
  size_t until_check = kCancelCheck;
  // Entries of a sorted block are scattered over the blocks they were
  // written to: every prefix read is a cache miss. Each side's prefix
  // kAhead entries on is requested early, so the misses overlap.
  constexpr size_t kAhead = 16;
  const auto prefetch = [&](const SortedBlock& side, size_t k) {
    if (k < side.size()) {
      const EntryRef r = side.refs_[k];
      __builtin_prefetch(&table.BlockOf(r)->prefix[table.IndexOf(r)]);
    }
  };
  for (size_t k = 1; k < kAhead; ++k) {
    prefetch(a, k);
    prefetch(b, k);
  }
  while (i < a.size() && j < b.size()) {
    if (--until_check == 0) {
      until_check = kCancelCheck;
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return nullptr;
    }
    if (CompareEntries(table, order, a.refs_[i], pa, b.refs_[j], pb) < 0) {
      out->Add(a.refs_[i], pa);
      prefetch(a, i + kAhead);
      if (++i < a.size()) pa = table.PrefixOf(a.refs_[i]);
    } else {
      out->Add(b.refs_[j], pb);
      prefetch(b, j + kAhead);
      if (++j < b.size()) pb = table.PrefixOf(b.refs_[j]);
    }
  }
  for (; i < a.size(); ++i) {
    prefetch(a, i + kAhead);
    out->Add(a.refs_[i], table.PrefixOf(a.refs_[i]));
  }
  for (; j < b.size(); ++j) {
    prefetch(b, j + kAhead);
    out->Add(b.refs_[j], table.PrefixOf(b.refs_[j]));
  }
  return out;
}

size_t SortedBlock::Bound(const BlockTable& table, const format::KeyOrder& order,
                          const Target& target, bool upper) const {
  // Fences are the prefixes of entries 0, 16, 32, ...: every entry before
  // the last fence below the target's prefix is smaller than the target, and
  // the first fence above it is larger.
  const auto below = std::lower_bound(fences_.begin(), fences_.end(), target.prefix);
  const auto above = std::upper_bound(below, fences_.end(), target.prefix);
  size_t lo = below == fences_.begin() ? 0 : (below - fences_.begin() - 1) * kFenceStride;
  size_t hi = std::min(refs_.size(), size_t(above - fences_.begin()) * kFenceStride);
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int c = CompareToTarget(table, order, refs_[mid], target);
    if (c < 0 || (upper && c == 0)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace memrep::columnar
