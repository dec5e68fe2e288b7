// The sorted hash rep's point operations take no heap memory: a Get and a
// Contains none at all; an insert (Allocate and Insert, as RocksDB makes
// them) none of its own, only, now and then, an entry in the background
// pool's queue when it asks an idle strand to sort (at most once per
// background_cut inserts). A replaced global operator new counts the
// allocations of the thread under test.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "sorted_hash/sorted_hash_rep.h"
#include "test_util.h"

// GCC sees the replacement's free() of memory that its new came from, and
// warns that they do not match: here they do (both are malloc's).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {

thread_local bool counting = false;
thread_local size_t allocations = 0;

}  // namespace

void* operator new(size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace memrep::sorted_hash {
namespace {

using testing::InternalKey;
using testing::MakeEntry;
using testing::NumberKey;

// Memory taken before the test counts: the rep's allocator takes none from
// the heap while it runs (RocksDB's arena grows in blocks; that is its cost).
class Preallocated final : public Allocator {
 public:
  explicit Preallocated(size_t bytes) : memory_(bytes) {}
  char* AllocateAligned(size_t bytes) noexcept override {
    const size_t start = (used_.fetch_add((bytes + 15) / 16 * 16) + 0);
    return start + bytes <= memory_.size() ? memory_.data() + start : nullptr;
  }

 private:
  std::vector<char> memory_;
  std::atomic<size_t> used_{0};
};

class Counting {
 public:
  Counting() {
    allocations = 0;
    counting = true;
  }
  ~Counting() { counting = false; }
  size_t count() const { return allocations; }
};

TEST(AllocationFree, SortedHashInsertsAndPointReadsTakeNoHeapMemory) {
  Preallocated allocator(size_t{64} << 20);
  RepContext context;
  context.allocator = &allocator;
  context.rows = true;
  context.write_buffer_size = size_t{16} << 20;
  std::unique_ptr<Rep> rep;
  ASSERT_TRUE(SortedHashRep::Make(SortedHashOptions{}, context, &rep).ok());
  constexpr int kKeys = 20000;  // several background cuts' worth
  // Keys and rows prepared first: their strings are the test's, not the rep's.
  std::vector<std::string> keys, lookups, exact;
  for (int i = 0; i < kKeys; ++i) {
    keys.push_back(NumberKey(i * 7919 % kKeys));
    lookups.push_back(InternalKey(keys.back(), kMaxSequenceNumber));
    exact.push_back(InternalKey(keys.back(), i + 1));
  }
  size_t inserts_allocated;
  {
    Counting counter;
    for (int i = 0; i < kKeys; ++i) {
      KeyHandle handle;
      char* row;
      const size_t len = RowSize(keys[i].size(), 8);
      ASSERT_TRUE(rep->Allocate(len, &handle, &row).ok());
      EncodeRow(row, EntryView::Of(keys[i], i + 1, ValueType::kValue, "01234567"));
      ASSERT_TRUE(rep->Insert(handle));
    }
    inserts_allocated = counter.count();
  }
  EXPECT_LE(inserts_allocated, 2 * (kKeys / SortedHashOptions{}.background_cut + 1))
      << "an insert must not allocate; only a request for background work may";
  size_t reads_allocated;
  size_t found = 0;
  {
    Counting counter;
    for (int i = 0; i < kKeys; ++i) {
      rep->GetRows(lookups[i], &found, [](void* arg, const char*) {
        ++*static_cast<size_t*>(arg);
        return false;
      });
      if (!rep->Contains(exact[i])) ++found;  // never: counted as wrong
    }
    reads_allocated = counter.count();
  }
  EXPECT_EQ(reads_allocated, 0u);
  EXPECT_EQ(found, size_t{kKeys});
  // The counter counts: a heap allocation under it is seen.
  {
    Counting counter;
    // volatile: the compiler may not drop a new/delete pair it can see.
    static std::string* volatile sink;
    sink = new std::string(100, 'x');
    delete sink;
    EXPECT_GE(counter.count(), 1u);
  }
}

}  // namespace
}  // namespace memrep::sorted_hash
