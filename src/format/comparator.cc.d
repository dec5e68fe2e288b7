plugin/memrep/src/format/comparator.cc.d \
 plugin/memrep/src/format/comparator.o \
 plugin/memrep/src/format/comparator.o: \
 plugin/memrep/src/format/comparator.cc \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/include/memrep/entry.h
