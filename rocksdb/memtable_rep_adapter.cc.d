plugin/memrep/rocksdb/memtable_rep_adapter.cc.d \
 plugin/memrep/rocksdb/memtable_rep_adapter.o \
 plugin/memrep/rocksdb/memtable_rep_adapter.o: \
 plugin/memrep/rocksdb/memtable_rep_adapter.cc \
 plugin/memrep/rocksdb/memtable_rep_adapter.h \
 include/rocksdb/memtablerep.h include/rocksdb/customizable.h \
 include/rocksdb/configurable.h include/rocksdb/rocksdb_namespace.h \
 include/rocksdb/status.h include/rocksdb/slice.h \
 include/rocksdb/cleanable.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/rocksdb/overflow_rows.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/rocksdb/rocksdb_compat.h include/rocksdb/version.h \
 db/lookup_key.h include/rocksdb/types.h memory/arena.h \
 memory/allocator.h include/rocksdb/write_buffer_manager.h \
 include/rocksdb/cache.h include/rocksdb/compression_type.h \
 include/rocksdb/data_structure.h include/rocksdb/memory_allocator.h \
 port/mmap.h include/rocksdb/env.h include/rocksdb/functor_wrapper.h \
 include/rocksdb/port_defs.h include/rocksdb/thread_status.h \
 plugin/memrep/src/util/assert.h
