// Blocks of columns: where the columnar rep keeps its entries.
//
//   block = [ header | prefix column (8 B x capacity) | meta column (32 B x capacity) ]
//   meta  = { key pointer | tag (sequence << 8 | type) | key length | value length
//             | older version | state }
//   bytes : the writer region's byte chunk: key bytes then value bytes
//           (standalone face), or the row RocksDB wrote (RocksDB face)
//
// An entry is named by a 32-bit EntryRef: its block's number (from 1, so 0 is
// "none") shifted left by log2(capacity), or'ed with its index in the block.
// The BlockTable maps numbers to blocks: a fixed array of pointers in an
// anonymous mapping, touched one page at a time as blocks are made.
//
// The prefix column (the key's first 8 bytes, order-preserving) is what
// sorts and searches read; the meta column is what a point read reads (one
// 32-byte record, half a cache line). The two are split so that a radix sort
// streams through 8 bytes per entry, not 40.
//
// Thread safety: entries are reserved (`reserved`) by the writer region that
// holds the block, one thread at a time; a reserved entry is then filled and
// resolved by the thread that reserved it, possibly after it left the region
// (the RocksDB face reserves in Allocate and fills in Insert). Invariants:
//  1. An entry's fields are written before the release store of its `state`
//     (kReady or kRefused) and, for a ready entry, before the index's release
//     CAS that links it; they are never written again, except `older` (an
//     atomic: the index's version links).
//  2. Readers that walk a block (iterators, sorts) load `reserved` and each
//     entry's `state` with acquire and read only ready entries; point reads
//     reach entries only through the acquire loads of the index and of the
//     writers' link queues (link_queue.h).
//  3. `resolved` counts entries whose state is set; it is incremented (release)
//     after the state is stored. A sealed block whose `resolved` equals its
//     `reserved` never changes again.
// Blocks are never freed before the rep (their memory is the Allocator's).
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>

#include "format/coding.h"
#include "memrep/entry.h"
#include "memrep/status.h"

namespace memrep::columnar {

using EntryRef = uint32_t;

struct Meta {
  const char* key;  // user key bytes; the value follows (see Block::value)
  uint64_t tag;
  uint32_t key_len;
  uint32_t value_len;
  std::atomic<EntryRef> older;  // the next older version of the same user key, or 0
  std::atomic<uint32_t> state;  // kPending, then kReady or kRefused
  static constexpr uint32_t kPending = 0, kReady = 1, kRefused = 2;
};
static_assert(sizeof(Meta) == 32, "two entries' metadata per cache line");

struct Block {
  uint32_t number = 0;
  uint32_t capacity = 0;
  bool rows = false;  // keys point into RocksDB rows (the value follows the tag)
  // Entries [0, reserved) have been handed out; only ready ones are stored.
  // Stored (release) by the region that holds the block; read with acquire.
  std::atomic<uint32_t> reserved{0};
  // Entries whose state is set (invariant 3).
  std::atomic<uint32_t> resolved{0};
  // Set (release) when the writer region has moved on to a new block:
  // `reserved` is final; once `resolved` reaches it, the background may sort
  // the block.
  std::atomic<bool> sealed{false};
  uint64_t* prefix = nullptr;
  Meta* meta = nullptr;

  // Bytes a block of `capacity` entries takes, header included.
  static size_t BytesFor(uint32_t capacity) {
    return RoundUp(sizeof(Block)) + size_t{capacity} * (sizeof(uint64_t) + sizeof(Meta));
  }
  // Lays a block out in `memory` (BytesFor(capacity) bytes, pointer-aligned).
  static Block* Create(char* memory, uint32_t number, uint32_t capacity, bool rows) {
    auto* block = new (memory) Block();
    block->number = number;
    block->capacity = capacity;
    block->rows = rows;
    block->prefix = reinterpret_cast<uint64_t*>(memory + RoundUp(sizeof(Block)));
    block->meta = reinterpret_cast<Meta*>(block->prefix + capacity);
    return block;
  }

  std::string_view user_key(uint32_t i) const { return {meta[i].key, meta[i].key_len}; }
  std::string_view value(uint32_t i) const {
    const Meta& m = meta[i];
    const char* v = m.key + m.key_len;
    if (rows) v += 8 + format::VarintLength(m.value_len);
    return {v, m.value_len};
  }
  EntryView entry(uint32_t i) const { return EntryView{user_key(i), meta[i].tag, value(i)}; }
  bool ready(uint32_t i) const {
    return meta[i].state.load(std::memory_order_acquire) == Meta::kReady;  // invariant 2
  }
  // Sets entry i's state (invariants 1 and 3). exclusive: the caller holds
  // the block's region, and entries of this block are only resolved under
  // it (the standalone face), so a plain increment is enough.
  void Resolve(uint32_t i, uint32_t state, bool exclusive) {
    meta[i].state.store(state, std::memory_order_release);
    if (exclusive) {
      resolved.store(resolved.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    } else {
      resolved.fetch_add(1, std::memory_order_release);
    }
  }
  // Whether the block is sealed and every entry resolved: it never changes again.
  bool Final() const {
    return sealed.load(std::memory_order_acquire) &&
           resolved.load(std::memory_order_acquire) == reserved.load(std::memory_order_acquire);
  }
  // The row of entry i; only for a block of rows.
  const char* row(uint32_t i) const {
    return meta[i].key - format::VarintLength(uint64_t{meta[i].key_len} + 8);
  }

 private:
  static size_t RoundUp(size_t n) { return (n + 63) & ~size_t{63}; }
};

class BlockTable {
 public:
  // shift: log2 of every block's capacity.
  explicit BlockTable(int shift)
      : shift_(shift),
        mask_((uint32_t{1} << shift) - 1),
        max_blocks_(uint32_t(1) << (32 - shift)) {}
  ~BlockTable() {
    if (blocks_ != nullptr) ::munmap(blocks_, bytes());
  }
  BlockTable(const BlockTable&) = delete;
  BlockTable& operator=(const BlockTable&) = delete;

  // Maps room for `blocks` pointers (at most max_blocks()).
  Status Init(uint32_t blocks) {
    mapped_ = blocks;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      return Status::OutOfMemory("could not map the columnar rep's block table of " +
                                 std::to_string(bytes()) + " bytes; use a larger block_size");
    }
    blocks_ = static_cast<std::atomic<Block*>*>(p);
    return Status::OK();
  }

  int shift() const { return shift_; }
  uint32_t capacity() const { return mask_ + 1; }
  // Block numbers a reference can hold.
  uint32_t max_blocks() const { return max_blocks_; }
  // Numbers 1 .. mapped_blocks() - 1 can be given out.
  uint32_t mapped_blocks() const { return mapped_; }

  // REQUIRES: number < mapped_blocks(), not set before.
  void Set(uint32_t number, Block* block) {
    // release: whoever loads the pointer sees the block's header.
    blocks_[number].store(block, std::memory_order_release);
  }
  // The block `number` names, or nullptr before Set (acquire: pairs with Set).
  Block* Get(uint32_t number) const { return blocks_[number].load(std::memory_order_acquire); }

  EntryRef Ref(uint32_t number, uint32_t index) const { return (number << shift_) | index; }
  Block* BlockOf(EntryRef ref) const { return Get(ref >> shift_); }
  uint32_t IndexOf(EntryRef ref) const { return ref & mask_; }
  const Meta& MetaOf(EntryRef ref) const { return BlockOf(ref)->meta[ref & mask_]; }
  uint64_t PrefixOf(EntryRef ref) const { return BlockOf(ref)->prefix[ref & mask_]; }
  EntryView EntryOf(EntryRef ref) const { return BlockOf(ref)->entry(ref & mask_); }

  // Bytes of table touched by `blocks` blocks (pages of the mapping).
  static size_t TouchedBytes(uint64_t blocks) {
    return ((blocks * sizeof(Block*)) + 4095) & ~size_t{4095};
  }

 private:
  size_t bytes() const { return size_t{mapped_} * sizeof(std::atomic<Block*>); }

  const int shift_;
  const uint32_t mask_;
  const uint32_t max_blocks_;
  uint32_t mapped_ = 0;
  std::atomic<Block*>* blocks_ = nullptr;
};

}  // namespace memrep::columnar
