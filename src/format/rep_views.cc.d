plugin/memrep/src/format/rep_views.cc.d \
 plugin/memrep/src/format/rep_views.o \
 plugin/memrep/src/format/rep_views.o: \
 plugin/memrep/src/format/rep_views.cc \
 plugin/memrep/src/format/batch_status.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/include/memrep/export.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/entry.h
