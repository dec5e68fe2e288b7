#include <new>

#include "format/coding.h"
#include "memrep/memtable.h"

namespace memrep {

Status WriteBatch::Append(ValueType type, std::string_view key, std::string_view value) {
  if (key.size() > kMaxUserKeySize || value.size() > kMaxValueSize) {
    return Status::InvalidArgument(
        "a write batch record's key or value is over the size limit "
        "(kMaxUserKeySize, kMaxValueSize)");
  }
  const size_t before = rep_.size();
  try {
    char header[1 + 5];
    header[0] = static_cast<char>(type);
    char* p = format::EncodeVarint32(header + 1, static_cast<uint32_t>(key.size()));
    rep_.append(header, p);
    rep_.append(key);
    p = format::EncodeVarint32(header, static_cast<uint32_t>(value.size()));
    rep_.append(header, p);
    rep_.append(value);
  } catch (const std::bad_alloc&) {
    rep_.resize(before);  // shrinking allocates nothing
    return Status::OutOfMemory("no memory for a write batch record");
  }
  ++count_;
  return Status::OK();
}

}  // namespace memrep
