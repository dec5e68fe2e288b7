plugin/memrep/src/builtin_reps.cc.d plugin/memrep/src/builtin_reps.o \
 plugin/memrep/src/builtin_reps.o: plugin/memrep/src/builtin_reps.cc \
 plugin/memrep/src/registry/registry.h plugin/memrep/include/memrep/rep.h \
 plugin/memrep/include/memrep/comparator.h \
 plugin/memrep/include/memrep/export.h \
 plugin/memrep/include/memrep/entry.h \
 plugin/memrep/include/memrep/status.h \
 plugin/memrep/src/registry/option_table.h \
 plugin/memrep/src/sorted_hash/registration.h \
 plugin/memrep/src/trie/registration.h \
 plugin/memrep/include/memrep/trie.h \
 plugin/memrep/src/vector/registration.h
