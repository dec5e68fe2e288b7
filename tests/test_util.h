// Helpers shared by memrep's tests: a reference model of a rep's contents,
// entry construction, and the process's resident memory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "memrep/comparator.h"
#include "memrep/entry.h"
#include "memrep/rep.h"

namespace memrep::testing {

// Whether this build runs under ThreadSanitizer (GCC defines the macro;
// clang answers __has_feature): tests that would take minutes there size
// themselves down.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// The process's resident memory, from /proc/self/statm (0 if unreadable).
inline size_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return read == 2 ? resident * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// Waits until pred() holds, looking again every millisecond, for at most
// `limit`; whether it holds. For what a working build does soon (a
// background merge, a queued task): the limit only bounds the time a broken
// build takes to fail, so it is far above what a loaded machine needs.
template <typename Pred>
bool WaitUntil(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A user key and a sequence, ordered as a rep must order them.
struct ModelKey {
  std::string user_key;
  SequenceNumber seq = 0;
};

struct ModelOrder {
  const UserKeyComparator* cmp;
  bool operator()(const ModelKey& a, const ModelKey& b) const {
    int c = cmp->Compare(a.user_key, b.user_key);
    if (c != 0) return c < 0;
    return a.seq > b.seq;
  }
};

// The reference: an ordered map from (user key, sequence) to what the test
// knows of the entry (the row pointer, or its type and value).
template <typename T = const char*>
using Model = std::map<ModelKey, T, ModelOrder>;

// Allocates and writes a row in `rep` (built with rows); returns its handle.
// A failed allocation fails the test and returns nullptr.
inline KeyHandle MakeEntry(Rep* rep, std::string_view key, SequenceNumber seq, uint8_t type,
                           std::string_view value, const char** row_out = nullptr) {
  char* buf;
  KeyHandle h;
  Status s = rep->Allocate(RowSize(key.size(), value.size()), &h, &buf);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return nullptr;
  EncodeRow(buf, EntryView{key, PackTag(seq, type), value});
  if (row_out != nullptr) *row_out = buf;
  return h;
}

inline std::string InternalKey(std::string_view key, SequenceNumber seq,
                               uint8_t type = static_cast<uint8_t>(ValueType::kForSeek)) {
  std::string out;
  AppendInternalKey(&out, key, seq, type);
  return out;
}

inline ModelKey KeyOf(const char* row) {
  EntryView v = DecodeRow(row);
  return ModelKey{std::string(v.user_key), v.sequence()};
}

// R::Make(options, context) as an R; the test fails where it makes none.
template <typename R, typename Options>
std::unique_ptr<R> MakeRepAs(const Options& options, const RepContext& context) {
  std::unique_ptr<Rep> rep;
  Status s = R::Make(options, context, &rep);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::unique_ptr<R>(static_cast<R*>(rep.release()));
}

// "k" followed by `n` as fixed-width decimal: sorts as numbers do.
inline std::string NumberKey(uint64_t n, int width = 8) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%0*llu", width, static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace memrep::testing
