plugin/memrep/src/trie/trie_iterator.cc.d \
 plugin/memrep/src/trie/trie_iterator.o \
 plugin/memrep/src/trie/trie_iterator.o: \
 plugin/memrep/src/trie/trie_iterator.cc \
 plugin/memrep/src/trie/trie_iterator.h \
 plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h plugin/memrep/src/trie/trie.h \
 plugin/memrep/src/concurrency/epoch.h \
 plugin/memrep/src/concurrency/thread_slot.h \
 plugin/memrep/src/format/coding.h plugin/memrep/src/format/key_order.h \
 plugin/memrep/src/memory/vm_region.h plugin/memrep/src/trie/node.h
