#include "columnar/writer_region.h"

#include "memory/populate.h"

namespace memrep::columnar {

WriterRegions::WriterRegions(uint32_t count, Allocator* allocator, size_t chunk_bytes)
    : allocator_(allocator),
      count_(count),
      chunk_bytes_(chunk_bytes),
      regions_(new WriterRegion[count]) {}

char* WriterRegions::TakeNewChunk(WriterRegion& region, size_t n) {
  // A big entry gets its own allocation; the chunk stays for small ones.
  if (n > chunk_bytes_ / 4) return allocator_->AllocateAligned(n);
  char* chunk = allocator_->AllocateAligned(chunk_bytes_);
  if (chunk == nullptr) return nullptr;
  memory::PrefaultWholePages(chunk, chunk_bytes_);
  region.bytes = chunk + n;
  region.left = chunk_bytes_ - n;
  return chunk;
}

uint64_t WriterRegions::NumEntries() const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < count_; ++i) n += regions_[i].count.load(std::memory_order_relaxed);
  return n;
}

}  // namespace memrep::columnar
