// The memrep RocksDB plugin: memrep's reps as rocksdb::MemTableRepFactory.
//
// Loading libmemrep_rocksdb.so (linking it, or LD_PRELOAD) registers the
// factories in ObjectLibrary::Default(), so these strings work anywhere
// RocksDB builds a memtable factory from a string (an OPTIONS file,
// MemTableRepFactory::CreateFromString, db_bench --memtablerep=...):
//
//   memrep.SortedHash                     (nickname: sorted_hash)
//   memrep.SortedHash:<bucket_count>
//   id=memrep.SortedHash; bucket_count=...; write_buffer_size=...; ...
//   speedb.HashSpdRepFactory[:<bucket_count>]   (the same rep, by its seed's name)
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/utilities/object_registry.h>

#include <memory>
#include <string>

#include "memrep/sorted_hash.h"

namespace memrep::rocksdb_plugin {

// The factory of the sorted hash rep, for C++ users who build Options directly.
std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> NewSortedHashRepFactory(
    const SortedHashOptions& options = SortedHashOptions());

}  // namespace memrep::rocksdb_plugin

// Registers memrep's factories in `library`; returns how many. RocksDB's
// plugin convention (a RegistrarFunc); loading the library already calls it
// for ObjectLibrary::Default().
extern "C" int memrep_RegisterFactories(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                        const std::string& arg);
