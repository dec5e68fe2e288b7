plugin/memrep/src/memory/vm_region.cc.d \
 plugin/memrep/src/memory/vm_region.o \
 plugin/memrep/src/memory/vm_region.o: \
 plugin/memrep/src/memory/vm_region.cc \
 plugin/memrep/src/memory/vm_region.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/include/memrep/export.h
