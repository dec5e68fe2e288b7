#include "memory/row_region.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <string>

#include "concurrency/shared_writes.h"
#include "util/assert.h"

namespace memrep::memory {

RowRegion::RowRegion(Allocator* allocator, size_t chunk_bytes, size_t header_bytes,
                     uint64_t max_bytes, size_t unit)
    : allocator_(allocator),
      header_bytes_(header_bytes),
      unit_shift_(static_cast<uint32_t>(std::countr_zero(unit))),
      shift_(static_cast<uint32_t>(std::countr_zero(chunk_bytes / unit))),
      chunk_units_(chunk_bytes / unit),
      mask_(chunk_units_ - 1),
      first_chunk_units_(chunk_units_),
      // Invariant 3: the last chunk's end is below 2^32 units.
      max_chunks_(std::min(std::min(max_bytes, MaxBytes(unit)) / chunk_bytes,
                           (uint64_t{1} << 32) / chunk_units_ - 1)) {
  MEMREP_ASSERT(std::has_single_bit(chunk_bytes) && chunk_bytes >= 4096);
  MEMREP_ASSERT(header_bytes % 4 == 0);
  MEMREP_ASSERT(unit == 4 || unit == 8);
}

Status RowRegion::Init() {
  // A fresh anonymous mapping: its zero pages take memory only as chunks
  // are added (8 bytes per chunk), so creating a region touches none.
  void* p = ::mmap(nullptr, max_chunks_ * sizeof(char*), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return Status::OutOfMemory("could not map the chunk table of a row region (" +
                               std::to_string(max_chunks_ * sizeof(char*)) + " bytes)");
  }
  table_ = static_cast<char**>(p);
  return Status::OK();
}

RowRegion::~RowRegion() {
  if (table_ != nullptr) ::munmap(table_, max_chunks_ * sizeof(char*));
}

size_t RowRegion::ChunkBytesFor(uint64_t write_buffer_size) {
  const uint64_t wanted = std::clamp<uint64_t>(write_buffer_size / 1024, 4096, 65536);
  return std::bit_floor(wanted);
}

bool RowRegion::NearlyFull() const {
  // relaxed: a hint for when to switch memtables.
  return next_chunk_.load(std::memory_order_relaxed) > max_chunks_ / 2;
}

size_t RowRegion::TableBytes() const {
  // relaxed: a statistic. Slot 0 stays unused.
  return (next_chunk_.load(std::memory_order_relaxed) - 1) * sizeof(char*);
}

Status RowRegion::Grab(size_t bytes, uint64_t* ref) {
  // relaxed: only hands out indexes; the slot is written below, before any
  // ref into it leaves this thread (invariant 2).
  uint64_t slot = next_chunk_.load(std::memory_order_relaxed);
  do {
    if (slot >= max_chunks_) {
      return Status::Full("the memtable's row region (" +
                          std::to_string((max_chunks_ * chunk_units_) << unit_shift_) +
                          " bytes of address space) is exhausted: switch to a new memtable");
    }
    MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRowRegionChunk);
  } while (!next_chunk_.compare_exchange_weak(slot, slot + 1, std::memory_order_relaxed));
  char* memory = allocator_->AllocateAligned(bytes);
  if (memory == nullptr) {
    // The slot stays unused: no ref names it. A fixed message: building one
    // would need the memory that just ran out.
    return Status::OutOfMemory("could not allocate memory for the memtable's rows");
  }
  MEMREP_COUNT_SHARED_WRITE(concurrency::SharedWrite::kRowRegionChunk);
  chunk_memory_.fetch_add(bytes, std::memory_order_relaxed);  // relaxed: a statistic
  table_[slot] = memory;
  *ref = slot << shift_;
  return Status::OK();
}

Status RowRegion::Allocate(size_t row_bytes, RowRef* ref) {
  const uint64_t units = Units(row_bytes);
  uint64_t start;
  // A big node takes a chunk slot of its own (see the header).
  Status s = Big(units) ? Grab(units << unit_shift_, &start) : Bump(units, &start);
  if (s.ok()) *ref = static_cast<RowRef>(start);
  return s;
}

Status RowRegion::AllocateMany(const size_t* row_bytes, size_t n, RowRef* refs, size_t* allocated) {
  size_t i = 0;
  Status s;
  while (i < n && s.ok()) {
    const uint64_t first = Units(row_bytes[i]);
    uint64_t start;
    if (Big(first)) {
      s = Grab(first << unit_shift_, &start);
      if (s.ok()) refs[i++] = static_cast<RowRef>(start);
      continue;
    }
    // As many small nodes as fit in the room the thread's chunk seems to
    // have, or in a whole new chunk if not even the first does. Bump checks
    // again: if another thread of the slot took the room meanwhile, the
    // stretch (never more than a chunk) starts a new chunk.
    const uint64_t room = chunks_.Room();
    const uint64_t limit = first <= room ? room : chunk_units_;
    uint64_t total = first;
    size_t end = i + 1;
    for (; end < n; ++end) {
      const uint64_t units = Units(row_bytes[end]);
      if (Big(units) || total + units > limit) break;
      total += units;
    }
    s = Bump(total, &start);
    if (!s.ok()) break;
    for (; i < end; ++i) {
      refs[i] = static_cast<RowRef>(start);
      start += Units(row_bytes[i]);
    }
  }
  *allocated = i;
  return s;
}

void RowRegion::GrowChunks() { first_chunk_units_ = kMinChunkBytes >> unit_shift_; }

uint64_t RowRegion::NextChunkUnits(uint64_t need) const {
  if (first_chunk_units_ >= chunk_units_) return chunk_units_;
  // relaxed: a size to choose, nothing to order.
  const uint64_t held = chunk_memory_.load(std::memory_order_relaxed) >> unit_shift_;
  const uint64_t grown = std::bit_floor(std::max(held / kChunkGrowth, first_chunk_units_));
  return std::clamp(grown, need, chunk_units_);
}

Status RowRegion::Bump(uint64_t units, uint64_t* start) {
  // A new chunk starts a table slot; the rest of the old one stays unused
  // (never touched, so its pages are not made resident).
  return chunks_.Carve(
      units,
      [this](uint64_t need, uint64_t* chunk, uint64_t* chunk_units) {
        const uint64_t take = NextChunkUnits(need);
        Status s = Grab(take << unit_shift_, chunk);
        if (s.ok()) *chunk_units = take;
        return s;
      },
      start);
}

}  // namespace memrep::memory
