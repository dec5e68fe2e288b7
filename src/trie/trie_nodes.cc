// The trie's node kinds: finding, listing and appending children (trie.h,
// node.h; the node lock is the Protocol's).
#include <emmintrin.h>

#include "trie/trie.h"
#include "util/assert.h"

#if defined(__SANITIZE_THREAD__)
#define MEMREP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MEMREP_TSAN 1
#endif
#endif
#ifndef MEMREP_TSAN
#define MEMREP_TSAN 0
#endif
namespace memrep::trie {

using concurrency::SharedWrite;

Ref Trie::FindChild(const NodeHeader* n, uint8_t label) {
  switch (n->kind) {
    case Kind::kK2:
    case Kind::kK4: {
      const uint32_t c = n->count.load(std::memory_order_acquire);
      const uint8_t* labels = Labels(n);
      for (uint32_t i = 0; i < c; ++i) {
        if (labels[i] == label) return Children(n)[i].load(std::memory_order_acquire);
      }
      return 0;
    }
    case Kind::kK16: {
      const uint32_t c = n->count.load(std::memory_order_acquire);
#if MEMREP_TSAN
      // The vector load below also reads the labels past `count`, which a
      // writer may be writing; harmless (masked off), but a race to TSan.
      for (uint32_t i = 0; i < c; ++i) {
        if (Labels(n)[i] == label) return Children(n)[i].load(std::memory_order_acquire);
      }
      return 0;
#endif
      const __m128i labels = _mm_loadu_si128(reinterpret_cast<const __m128i*>(Labels(n)));
      const uint32_t hits = static_cast<uint32_t>(_mm_movemask_epi8(
                                _mm_cmpeq_epi8(labels, _mm_set1_epi8(static_cast<char>(label))))) &
                            ((uint32_t{1} << c) - 1);
      if (hits == 0) return 0;
      return Children(n)[__builtin_ctz(hits)].load(std::memory_order_acquire);
    }
    case Kind::kK48: {
      const uint8_t i = Index48(n)[label].load(std::memory_order_acquire);
      return i == 0 ? 0 : Children(n)[i - 1].load(std::memory_order_acquire);
    }
    case Kind::kK256:
      return Children(n)[label].load(std::memory_order_acquire);
  }
  return 0;
}

int Trie::FirstChild(const NodeHeader* n, int from, Ref* child) {
  if (IsSmall(n->kind)) {
    const uint32_t c = n->count.load(std::memory_order_acquire);
    const uint8_t* labels = Labels(n);
    int best = 256;
    uint32_t at = 0;
    for (uint32_t i = 0; i < c; ++i) {
      if (labels[i] >= from && labels[i] < best) best = labels[i], at = i;
    }
    if (best == 256) return -1;
    *child = Children(n)[at].load(std::memory_order_acquire);
    return best;
  }
  const bool k48 = n->kind == Kind::kK48;
  for (int l = from; l < 256; ++l) {
    const uint32_t slot = k48 ? Index48(n)[l].load(std::memory_order_acquire) : uint32_t(l) + 1;
    if (slot == 0) continue;
    const Ref r = Children(n)[slot - 1].load(std::memory_order_acquire);
    if (r != 0) {
      *child = r;
      return l;
    }
  }
  return -1;
}

int Trie::LastChild(const NodeHeader* n, int to, Ref* child) {
  if (IsSmall(n->kind)) {
    const uint32_t c = n->count.load(std::memory_order_acquire);
    const uint8_t* labels = Labels(n);
    int best = -1;
    uint32_t at = 0;
    for (uint32_t i = 0; i < c; ++i) {
      if (labels[i] <= to && labels[i] > best) best = labels[i], at = i;
    }
    if (best < 0) return -1;
    *child = Children(n)[at].load(std::memory_order_acquire);
    return best;
  }
  const bool k48 = n->kind == Kind::kK48;
  for (int l = to; l >= 0; --l) {
    const uint32_t slot = k48 ? Index48(n)[l].load(std::memory_order_acquire) : uint32_t(l) + 1;
    if (slot == 0) continue;
    const Ref r = Children(n)[slot - 1].load(std::memory_order_acquire);
    if (r != 0) {
      *child = r;
      return l;
    }
  }
  return -1;
}

bool Trie::Full(const NodeHeader* n) {
  return n->kind != Kind::kK256 &&
         n->count.load(std::memory_order_relaxed) == kCapacity[static_cast<int>(n->kind)];
}

// REQUIRES: n locked, not Full, no child at `label`. The child is written
// first and published by the release store of the count (small kinds), of
// the index byte (K48) or of the slot (K256).
void Trie::AppendChild(NodeHeader* n, uint8_t label, Ref child) {
  const uint8_t c = n->count.load(std::memory_order_relaxed);
  if (IsSmall(n->kind)) {
    Labels(n)[c] = label;
    Children(n)[c].store(child, std::memory_order_relaxed);
    n->count.store(c + 1, std::memory_order_release);
  } else if (n->kind == Kind::kK48) {
    Children(n)[c].store(child, std::memory_order_relaxed);
    n->count.store(c + 1, std::memory_order_relaxed);
    Index48(n)[label].store(c + 1, std::memory_order_release);
  } else {
    Children(n)[label].store(child, std::memory_order_release);
  }
}

// The slot of `label` (a child there), or of the value (label < 0).
std::atomic<Ref>* Trie::Slot(NodeHeader* n, int label) {
  if (label < 0) return &n->value;
  if (IsSmall(n->kind)) {
    const uint32_t c = n->count.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < c; ++i) {
      if (Labels(n)[i] == label) return &Children(n)[i];
    }
    return nullptr;
  }
  if (n->kind == Kind::kK48) {
    const uint8_t i = Index48(n)[label].load(std::memory_order_relaxed);
    return i == 0 ? nullptr : &Children(n)[i - 1];
  }
  return &Children(n)[label];
}

// REQUIRES: n locked, a child at `label`.
void Trie::SetChild(NodeHeader* n, uint8_t label, Ref child) {
  std::atomic<Ref>* slot = Slot(n, label);
  MEMREP_ASSERT(slot != nullptr);
  MEMREP_COUNT_SHARED_WRITE(SharedWrite::kNodeWrite);
  slot->store(child, std::memory_order_release);
}

}  // namespace memrep::trie
