plugin/memrep/rocksdb/rep_factory.cc.d \
 plugin/memrep/rocksdb/rep_factory.o plugin/memrep/rocksdb/rep_factory.o: \
 plugin/memrep/rocksdb/rep_factory.cc plugin/memrep/rocksdb/rep_factory.h \
 include/rocksdb/memtablerep.h include/rocksdb/customizable.h \
 include/rocksdb/configurable.h include/rocksdb/rocksdb_namespace.h \
 include/rocksdb/status.h include/rocksdb/slice.h \
 include/rocksdb/cleanable.h plugin/memrep/include/memrep/registry.h \
 plugin/memrep/include/memrep/export.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h include/rocksdb/comparator.h \
 include/rocksdb/convenience.h include/rocksdb/compression_type.h \
 include/rocksdb/types.h include/rocksdb/db.h \
 include/rocksdb/attribute_groups.h include/rocksdb/iterator_base.h \
 include/rocksdb/wide_columns.h \
 include/rocksdb/block_cache_trace_writer.h include/rocksdb/options.h \
 include/rocksdb/advanced_options.h include/rocksdb/cache.h \
 include/rocksdb/data_structure.h include/rocksdb/memory_allocator.h \
 include/rocksdb/universal_compaction.h include/rocksdb/env.h \
 include/rocksdb/functor_wrapper.h include/rocksdb/port_defs.h \
 include/rocksdb/thread_status.h include/rocksdb/file_checksum.h \
 include/rocksdb/listener.h include/rocksdb/compaction_job_stats.h \
 include/rocksdb/io_status.h include/rocksdb/table_properties.h \
 include/rocksdb/sst_partitioner.h include/rocksdb/version.h \
 include/rocksdb/write_buffer_manager.h include/rocksdb/system_clock.h \
 include/rocksdb/table_reader_caller.h \
 include/rocksdb/trace_reader_writer.h include/rocksdb/trace_record.h \
 include/rocksdb/iterator.h include/rocksdb/metadata.h \
 include/rocksdb/snapshot.h include/rocksdb/sst_file_writer.h \
 include/rocksdb/transaction_log.h include/rocksdb/write_batch.h \
 include/rocksdb/write_batch_base.h include/rocksdb/user_write_callback.h \
 include/rocksdb/utilities/table_properties_collectors.h \
 include/rocksdb/table.h include/rocksdb/utilities/options_type.h \
 plugin/memrep/rocksdb/comparator_probe.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/include/memrep/rocksdb.h \
 include/rocksdb/utilities/object_registry.h \
 plugin/memrep/rocksdb/memtable_rep_adapter.h \
 plugin/memrep/rocksdb/overflow_rows.h \
 plugin/memrep/rocksdb/rocksdb_compat.h db/lookup_key.h memory/arena.h \
 memory/allocator.h port/mmap.h
