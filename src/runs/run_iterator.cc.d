plugin/memrep/src/runs/run_iterator.cc.d \
 plugin/memrep/src/runs/run_iterator.o \
 plugin/memrep/src/runs/run_iterator.o: \
 plugin/memrep/src/runs/run_iterator.cc \
 plugin/memrep/src/runs/run_iterator.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/runs/merging_cursor.h \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/src/runs/sorted_run.h \
 plugin/memrep/src/memory/page_allocator.h \
 plugin/memrep/src/memory/row_region.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/src/util/assert.h plugin/memrep/src/runs/run_index.h \
 plugin/memrep/src/concurrency/background_pool.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/src/concurrency/quiet_detector.h \
 plugin/memrep/src/runs/run_set.h plugin/memrep/src/runs/write_list.h
