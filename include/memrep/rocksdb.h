// The memrep RocksDB plugin: every memrep rep as a rocksdb::MemTableRepFactory.
//
// Loading libmemrep_rocksdb (linking it, shared or static, or LD_PRELOAD)
// registers a factory for every rep of memrep's registry in
// rocksdb::ObjectLibrary::Default(), under its name and aliases, so these
// strings work anywhere RocksDB builds a memtable factory from a string (an
// OPTIONS file, MemTableRepFactory::CreateFromString, db_bench
// --memtablerep=...):
//
//   memrep.SortedHash                        (or an alias: sorted_hash)
//   memrep.SortedHash:<positional option>    (bucket_count for this rep)
//   id=memrep.SortedHash; max_runs=4; ...
//
// memrep::ListReps() (memrep/registry.h) lists the reps and their options.
#pragma once

#include <rocksdb/memtablerep.h>
#include <rocksdb/status.h>
#include <rocksdb/utilities/object_registry.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "memrep/export.h"

namespace memrep {
struct AutoCounters;  // memrep/auto.h: include it to call GetAutoCounters
}  // namespace memrep

namespace memrep::rocksdb_plugin {

// The factory an options string names (memrep/registry.h gives the forms),
// for C++ users who build Options directly. InvalidArgument for an unknown
// rep or option, or a value out of range.
MEMREP_EXPORT ROCKSDB_NAMESPACE::Status NewRepFactory(
    std::string_view spec, std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory>* out);

// What a memrep.Auto factory has decided so far: memtables made, switches,
// memtables per rep and the recent decisions with their reasons (the caller
// includes memrep/auto.h, which declares AutoCounters). Each decision is
// also logged to the DB's LOG ("memrep.Auto: memtable N uses ..."). A
// factory of another memrep rep answers empty counters; NotFound if
// `factory` is not one of memrep's.
// A factory keeps one history per column family: this overload answers the
// default column family's (id 0); the next, that of any column family by id
// (ColumnFamilyHandle::GetID; empty counters if it made no memtable).
MEMREP_EXPORT ROCKSDB_NAMESPACE::Status GetAutoCounters(
    const ROCKSDB_NAMESPACE::MemTableRepFactory& factory, AutoCounters* out);
MEMREP_EXPORT ROCKSDB_NAMESPACE::Status GetAutoCounters(
    const ROCKSDB_NAMESPACE::MemTableRepFactory& factory, uint32_t column_family_id,
    AutoCounters* out);

}  // namespace memrep::rocksdb_plugin

// Registers a factory for every memrep rep in `library`; returns how many.
// RocksDB's plugin convention (a RegistrarFunc); loading the library already
// calls it for ObjectLibrary::Default().
extern "C" MEMREP_EXPORT int memrep_RegisterFactories(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                                      const std::string& arg);
