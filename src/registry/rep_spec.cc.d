plugin/memrep/src/registry/rep_spec.cc.d \
 plugin/memrep/src/registry/rep_spec.o \
 plugin/memrep/src/registry/rep_spec.o: \
 plugin/memrep/src/registry/rep_spec.cc \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/registry.h \
 plugin/memrep/include/memrep/rep.h plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/registry.h \
 plugin/memrep/src/registry/option_table.h
