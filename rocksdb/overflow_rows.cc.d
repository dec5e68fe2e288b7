plugin/memrep/rocksdb/overflow_rows.cc.d \
 plugin/memrep/rocksdb/overflow_rows.o \
 plugin/memrep/rocksdb/overflow_rows.o: \
 plugin/memrep/rocksdb/overflow_rows.cc \
 plugin/memrep/rocksdb/overflow_rows.h include/rocksdb/memtablerep.h \
 include/rocksdb/customizable.h include/rocksdb/configurable.h \
 include/rocksdb/rocksdb_namespace.h include/rocksdb/status.h \
 include/rocksdb/slice.h include/rocksdb/cleanable.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/rocksdb/rocksdb_compat.h include/rocksdb/version.h \
 db/lookup_key.h include/rocksdb/types.h memory/arena.h \
 memory/allocator.h include/rocksdb/write_buffer_manager.h \
 include/rocksdb/cache.h include/rocksdb/compression_type.h \
 include/rocksdb/data_structure.h include/rocksdb/memory_allocator.h \
 port/mmap.h include/rocksdb/env.h include/rocksdb/functor_wrapper.h \
 include/rocksdb/port_defs.h include/rocksdb/thread_status.h
