// Which order a memtable's key comparator gives internal keys. RocksDB hands
// a rep only an opaque MemTableRep::KeyComparator, so the plugin asks it
// about crafted keys. Every probe key is at least 16 bytes long, so a
// comparator with a user-defined timestamp (which reads the last bytes of a
// key as the timestamp) can be asked safely, and answers differently from
// either bytewise order on the pair that differs only in those bytes.
#pragma once

#include <rocksdb/memtablerep.h>

#include "memrep/comparator.h"

namespace memrep::rocksdb_plugin {

// BytewiseComparator() or ReverseBytewiseComparator() when the comparator
// orders user keys that way (then sequence descending); nullptr otherwise.
const UserKeyComparator* ProbeOrder(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp);

}  // namespace memrep::rocksdb_plugin
