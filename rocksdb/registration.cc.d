plugin/memrep/rocksdb/registration.cc.d \
 plugin/memrep/rocksdb/registration.o \
 plugin/memrep/rocksdb/registration.o: \
 plugin/memrep/rocksdb/registration.cc \
 plugin/memrep/include/memrep/rocksdb.h include/rocksdb/memtablerep.h \
 include/rocksdb/customizable.h include/rocksdb/configurable.h \
 include/rocksdb/rocksdb_namespace.h include/rocksdb/status.h \
 include/rocksdb/slice.h include/rocksdb/cleanable.h \
 include/rocksdb/utilities/object_registry.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/src/registry/registry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/option_table.h \
 plugin/memrep/rocksdb/rep_factory.h \
 plugin/memrep/include/memrep/registry.h
