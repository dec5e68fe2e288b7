plugin/memrep/src/registry/option_table.cc.d \
 plugin/memrep/src/registry/option_table.o \
 plugin/memrep/src/registry/option_table.o: \
 plugin/memrep/src/registry/option_table.cc \
 plugin/memrep/src/registry/option_table.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/include/memrep/export.h
