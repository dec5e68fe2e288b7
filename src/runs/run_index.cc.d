plugin/memrep/src/runs/run_index.cc.d plugin/memrep/src/runs/run_index.o \
 plugin/memrep/src/runs/run_index.o: plugin/memrep/src/runs/run_index.cc \
 plugin/memrep/src/runs/run_index.h \
 plugin/memrep/src/concurrency/background_pool.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/src/concurrency/quiet_detector.h \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h plugin/memrep/src/runs/run_set.h \
 plugin/memrep/src/runs/sorted_run.h \
 plugin/memrep/src/memory/page_allocator.h \
 plugin/memrep/src/memory/row_region.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/include/memrep/rep.h plugin/memrep/src/runs/write_list.h
