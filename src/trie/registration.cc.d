plugin/memrep/src/trie/registration.cc.d \
 plugin/memrep/src/trie/registration.o \
 plugin/memrep/src/trie/registration.o: \
 plugin/memrep/src/trie/registration.cc \
 plugin/memrep/src/trie/registration.h \
 plugin/memrep/include/memrep/trie.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/registry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/src/registry/option_table.h plugin/memrep/src/trie/node.h \
 plugin/memrep/src/trie/trie_rep.h plugin/memrep/src/memory/vm_region.h \
 plugin/memrep/src/trie/trie.h plugin/memrep/src/concurrency/epoch.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/src/format/coding.h plugin/memrep/src/format/key_order.h
