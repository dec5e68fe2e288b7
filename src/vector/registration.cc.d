plugin/memrep/src/vector/registration.cc.d \
 plugin/memrep/src/vector/registration.o \
 plugin/memrep/src/vector/registration.o: \
 plugin/memrep/src/vector/registration.cc \
 plugin/memrep/src/vector/registration.h \
 plugin/memrep/src/registry/registry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/option_table.h \
 plugin/memrep/include/memrep/vector.h \
 plugin/memrep/src/registry/run_option_rows.h \
 plugin/memrep/src/vector/vector_rep.h \
 plugin/memrep/src/format/key_order.h plugin/memrep/src/format/coding.h \
 plugin/memrep/src/memory/row_region.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/src/runs/run_index.h \
 plugin/memrep/src/concurrency/background_pool.h \
 plugin/memrep/src/concurrency/mutex.h \
 plugin/memrep/src/concurrency/quiet_detector.h \
 plugin/memrep/src/runs/run_set.h plugin/memrep/src/runs/sorted_run.h \
 plugin/memrep/src/memory/page_allocator.h \
 plugin/memrep/src/runs/write_list.h
