// Whether a memtable's key comparator orders internal keys bytewise by user
// key. RocksDB hands a rep only an opaque MemTableRep::KeyComparator, so the
// plugin asks it about crafted keys. Every probe key is at least 16 bytes
// long, so a comparator with a user-defined timestamp (which reads the last
// bytes of a key as the timestamp) can be asked safely, and answers
// differently from bytewise on the pair that differs only in those bytes.
#pragma once

#include <rocksdb/memtablerep.h>

namespace memrep::rocksdb_plugin {

bool IsBytewiseOrder(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp);

}  // namespace memrep::rocksdb_plugin
