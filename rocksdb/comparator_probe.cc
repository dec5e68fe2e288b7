#include "comparator_probe.h"

#include <string>
#include <utility>
#include <vector>

#include "format/coding.h"
#include "format/key_order.h"
#include "memrep/entry.h"

namespace memrep::rocksdb_plugin {
namespace {

std::string MemtableKey(const std::string& user_key, SequenceNumber seq) {
  std::string out(5, '\0');
  out.resize(format::EncodeVarint32(out.data(), static_cast<uint32_t>(user_key.size() + 8)) -
             out.data());
  AppendInternalKey(&out, user_key, seq, static_cast<uint8_t>(ValueType::kValue));
  return out;
}

int Sign(int v) { return (v > 0) - (v < 0); }

// Whether `cmp` agrees with memrep's `order` on every probe.
bool Agrees(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
            const format::KeyOrder& order) {
  const std::string base = "memrep-probe-key";  // 16 bytes
  std::string ts1 = base, ts2 = base;
  ts1 += std::string("\x01\0\0\0\0\0\0\0", 8);  // "timestamps" 1 and 2, little-endian
  ts2 += std::string("\x02\0\0\0\0\0\0\0", 8);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {base, "memrep-probe-kez"},                   // last byte
      {"Memrep-probe-key", base},                   // first byte, case
      {base, base + "a"},                           // a prefix orders first
      {base + std::string(1, '\xff'), base + "a"},  // unsigned bytes
      {base + std::string(1, '\0'), base},          // a trailing zero byte
      {ts1, ts2},                                   // differ only in the last 8 bytes
      {std::string(24, 'z'), std::string(24, 'a')},
  };
  for (const auto& [a, b] : pairs) {
    for (SequenceNumber sa : {1, 2}) {
      const std::string ka = MemtableKey(a, sa), kb = MemtableKey(b, 1);
      const int expected = Sign(order.Compare(a, PackTag(sa, 1), b, PackTag(1, 1)));
      if (Sign(cmp(ka.data(), kb.data())) != expected) return false;
      if (Sign(cmp(kb.data(), ka.data())) != -expected) return false;
    }
  }
  // Versions of one key: the newer sequence orders first.
  const std::string newer = MemtableKey(base, 9), older = MemtableKey(base, 3);
  return cmp(newer.data(), older.data()) < 0 && cmp(older.data(), newer.data()) > 0;
}

}  // namespace

const UserKeyComparator* ProbeOrder(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp) {
  for (const UserKeyComparator* candidate : {BytewiseComparator(), ReverseBytewiseComparator()}) {
    if (Agrees(cmp, format::KeyOrder(candidate))) return candidate;
  }
  return nullptr;
}

}  // namespace memrep::rocksdb_plugin
