plugin/memrep/rocksdb/comparator_probe.cc.d \
 plugin/memrep/rocksdb/comparator_probe.o \
 plugin/memrep/rocksdb/comparator_probe.o: \
 plugin/memrep/rocksdb/comparator_probe.cc \
 plugin/memrep/rocksdb/comparator_probe.h include/rocksdb/memtablerep.h \
 include/rocksdb/customizable.h include/rocksdb/configurable.h \
 include/rocksdb/rocksdb_namespace.h include/rocksdb/status.h \
 include/rocksdb/slice.h include/rocksdb/cleanable.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h plugin/memrep/src/format/coding.h \
 plugin/memrep/src/format/key_order.h \
 plugin/memrep/include/memrep/entry.h
