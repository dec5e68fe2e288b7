plugin/memrep/src/format/row.cc.d plugin/memrep/src/format/row.o \
 plugin/memrep/src/format/row.o: plugin/memrep/src/format/row.cc \
 plugin/memrep/src/format/coding.h plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/export.h plugin/memrep/src/util/assert.h
