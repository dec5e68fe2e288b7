plugin/memrep/src/memory/sharded_arena.cc.d \
 plugin/memrep/src/memory/sharded_arena.o \
 plugin/memrep/src/memory/sharded_arena.o: \
 plugin/memrep/src/memory/sharded_arena.cc \
 plugin/memrep/src/memory/sharded_arena.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h
