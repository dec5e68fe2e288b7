#include "key_comparator.h"

#include <string_view>

#include "format/key_order.h"

namespace memrep::bench {
namespace {

const format::KeyOrder kBytewise(nullptr);

}  // namespace

int InternalKeyOrder::operator()(const char* prefix_len_key1, const char* prefix_len_key2) const {
  return kBytewise.CompareRows(prefix_len_key1, prefix_len_key2);
}

int InternalKeyOrder::operator()(const char* prefix_len_key,
                                 const ROCKSDB_NAMESPACE::Slice& internal_key) const {
  return kBytewise.CompareRowToKey(prefix_len_key,
                                   std::string_view(internal_key.data(), internal_key.size()));
}

}  // namespace memrep::bench
