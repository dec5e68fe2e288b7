plugin/memrep/src/vector/batch_duplicates.cc.d \
 plugin/memrep/src/vector/batch_duplicates.o \
 plugin/memrep/src/vector/batch_duplicates.o: \
 plugin/memrep/src/vector/batch_duplicates.cc \
 plugin/memrep/src/vector/batch_duplicates.h \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h
