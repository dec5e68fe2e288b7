plugin/memrep/src/util/status.cc.d plugin/memrep/src/util/status.o \
 plugin/memrep/src/util/status.o: plugin/memrep/src/util/status.cc \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/include/memrep/export.h
