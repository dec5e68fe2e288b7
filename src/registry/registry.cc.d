plugin/memrep/src/registry/registry.cc.d \
 plugin/memrep/src/registry/registry.o \
 plugin/memrep/src/registry/registry.o: \
 plugin/memrep/src/registry/registry.cc \
 plugin/memrep/src/registry/registry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/option_table.h \
 plugin/memrep/src/concurrency/mutex.h
