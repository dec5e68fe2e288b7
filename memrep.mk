# memrep as an in-tree RocksDB plugin. With this repository at
# plugin/memrep in a RocksDB source tree (7.8 or newer):
#
#   make ROCKSDB_PLUGINS=memrep DEBUG_LEVEL=0 static_lib db_bench     # make
#   cmake -DROCKSDB_PLUGINS=memrep ..                                  # CMake
#
# RocksDB compiles the files below into librocksdb and calls the registrar
# named below when its object registry starts, so every memrep rep is known
# by name (docs/rocksdb.md, "In-tree").
#
# RocksDB's CMake reads this file too, by regular expression: each variable
# stays on one line, and the list has every .cc file of the library
# (src/) and of its RocksDB face (rocksdb/). CMakeLists.txt builds memrep's
# own libraries from the same list, so the two cannot drift apart.

memrep_SOURCES = src/util/status.cc src/format/row.cc src/format/comparator.cc src/memory/row_region.cc src/memory/vm_region.cc src/concurrency/background_pool.cc src/runs/sorted_run.cc src/runs/run_set.cc src/runs/merging_cursor.cc src/runs/run_index.cc src/runs/run_index_work.cc src/runs/run_index_queries.cc src/runs/sort_many.cc src/runs/run_iterator.cc src/registry/option_table.cc src/registry/registry.cc src/registry/rep_spec.cc src/sorted_hash/sorted_hash_rep.cc src/sorted_hash/hash_index.cc src/sorted_hash/registration.cc src/trie/trie.cc src/trie/trie_alloc.cc src/trie/trie_insert.cc src/trie/trie_nodes.cc src/trie/protocol.cc src/trie/trie_read.cc src/trie/trie_check.cc src/trie/trie_iterator.cc src/trie/trie_rep.cc src/trie/registration.cc src/trie/trie_options_check.cc src/trie/trie_file.cc src/trie/trie_table.cc src/vector/vector_rep.cc src/vector/registration.cc src/columnar/columnar_rep.cc src/columnar/column_index.cc src/columnar/registration.cc src/auto/auto_rep.cc src/auto/policy.cc src/auto/registration.cc src/builtin_reps.cc src/memtable/memtable.cc src/memtable/write_batch.cc rocksdb/memtable_rep_adapter.cc rocksdb/overflow_rows.cc rocksdb/rep_factory.cc rocksdb/comparator_probe.cc rocksdb/user_comparator.cc rocksdb/registration.cc src/auto/lineage.cc src/auto/candidates.cc src/auto/make_rep.cc src/auto/clock.cc src/auto/cost_book.cc src/auto/learned_file.cc src/rep/rep_views.cc src/rep/batch_duplicates.cc src/memory/arena.cc src/rep/memtable_iterator.cc src/runs/run_rep.cc
memrep_FUNC = memrep_RegisterFactories

# RocksDB 7.8 is the oldest memrep serves: refuse older trees before
# compiling anything. Versions newer than those verified (docs/rocksdb.md)
# build against RocksDB's own headers, so an interface that changed fails to
# compile rather than misbehave; say so.
memrep_rocksdb_version := $(shell awk '/^\#define ROCKSDB_(MAJOR|MINOR|PATCH) / {v = v (v == "" ? "" : ".") $$3} END {print v}' include/rocksdb/version.h)
memrep_rocksdb_too_old := $(shell echo '$(memrep_rocksdb_version)' | awk -F. '{print ($$1 < 7 || ($$1 == 7 && $$2 < 8)) ? "yes" : ""}')
ifneq ($(memrep_rocksdb_too_old),)
$(error memrep as a RocksDB plugin needs RocksDB 7.8 or newer; this source tree is RocksDB $(memrep_rocksdb_version))
endif
ifeq ($(filter 7.8.% 9.10.% 10.4.% 11.8.%,$(memrep_rocksdb_version)),)
$(info memrep: RocksDB $(memrep_rocksdb_version) is not among the versions memrep was verified with (7.8, 9.10, 10.4, 11.8; docs/rocksdb.md): run memrep's RocksDB-level tests against this build: from memrep's checkout, bash scripts/rocksdb-intree.sh $(memrep_rocksdb_version) --source $(CURDIR))
endif

# memrep is C++20; RocksDB compiles with C++17 (and, in make's release
# builds, without RTTI, which memrep does not use). These flags reach
# memrep's own files only (and their dependency files), never RocksDB's:
# -std=c++20 after RocksDB's -std=c++17 wins, and -iquote puts memrep's
# private headers first for its own quoted includes, while RocksDB's
# internal headers, which the RocksDB face includes with angle brackets,
# come from RocksDB's root.
memrep_intree_flags := -std=c++20 -DMEMREP_ROCKSDB_INTREE -DXXH_INLINE_ALL \
  -iquote plugin/memrep/src -iquote plugin/memrep/rocksdb -Iplugin/memrep/include
plugin/memrep/%: CXXFLAGS += $(memrep_intree_flags)
ifneq ($(OBJ_DIR),.)
$(OBJ_DIR)/plugin/memrep/%: CXXFLAGS += $(memrep_intree_flags)
endif
