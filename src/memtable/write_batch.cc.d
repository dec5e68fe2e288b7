plugin/memrep/src/memtable/write_batch.cc.d \
 plugin/memrep/src/memtable/write_batch.o \
 plugin/memrep/src/memtable/write_batch.o: \
 plugin/memrep/src/memtable/write_batch.cc \
 plugin/memrep/src/format/coding.h \
 plugin/memrep/include/memrep/memtable.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/status.h
