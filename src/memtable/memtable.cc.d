plugin/memrep/src/memtable/memtable.cc.d \
 plugin/memrep/src/memtable/memtable.o \
 plugin/memrep/src/memtable/memtable.o: \
 plugin/memrep/src/memtable/memtable.cc \
 plugin/memrep/include/memrep/memtable.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/src/concurrency/write_gate.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/src/format/coding.h plugin/memrep/src/format/key_order.h \
 plugin/memrep/src/memory/sharded_arena.h \
 plugin/memrep/include/memrep/registry.h
