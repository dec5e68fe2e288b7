# Peers (peers/peers.h): other projects' memtables, built into memrep_bench
# only when their source is given. Included by bench/CMakeLists.txt after
# memrep_bench_lib is defined.
set(MEMREP_PEER_ROCKSDB_SOURCE "" CACHE PATH
    "RocksDB's source of the installed librocksdb's version: builds the skip_list_ndebug peer")
set(MEMREP_PEER_TOPLING_ZIP "" CACHE PATH
    "A checkout of ToplingDB's topling-zip: builds the topling_cspp peer")
set(MEMREP_PEER_COLUMNAR_MEMTABLE "" CACHE PATH
    "A checkout of conanhujinming/columnar_memtable: builds the columnar_memtable peer")

target_sources(memrep_bench_lib PRIVATE peers/peers.cc)

if(MEMREP_PEER_ROCKSDB_SOURCE)
  set(peer_src ${MEMREP_PEER_ROCKSDB_SOURCE})
  if(NOT EXISTS ${peer_src}/memtable/skiplistrep.cc OR NOT EXISTS ${peer_src}/include/rocksdb/version.h)
    message(FATAL_ERROR "MEMREP_PEER_ROCKSDB_SOURCE=${peer_src} holds no RocksDB source "
                        "(no memtable/skiplistrep.cc): give the directory that "
                        "`bash scripts/rocksdb-source.sh` prints")
  endif()
  file(STRINGS ${peer_src}/include/rocksdb/version.h peer_version_lines
       REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) ")
  set(peer_version "")
  foreach(line ${peer_version_lines})
    string(REGEX REPLACE "^#define ROCKSDB_[A-Z]+ ([0-9]+).*" "\\1" part "${line}")
    list(APPEND peer_version ${part})
  endforeach()
  list(JOIN peer_version "." peer_version)
  if(NOT peer_version STREQUAL ROCKSDB_VERSION)
    message(FATAL_ERROR "MEMREP_PEER_ROCKSDB_SOURCE=${peer_src} is RocksDB ${peer_version}, "
                        "but the installed librocksdb is ${ROCKSDB_VERSION}: give the source of "
                        "the installed version (bash scripts/rocksdb-source.sh)")
  endif()
  # The source's skip-list rep, without assertions. Its classes are renamed so
  # that the copy sits beside librocksdb's (which keeps its assertions) with
  # no clash of symbols or of inline template instances.
  # How both copies below compile the source's skip list.
  function(memrep_skip_list_ndebug_build target)
    target_include_directories(${target} BEFORE PRIVATE ${peer_src} ${peer_src}/include)
    target_compile_definitions(${target} PRIVATE
      NDEBUG ROCKSDB_PLATFORM_POSIX ROCKSDB_LIB_IO_POSIX
      SkipListFactory=MemrepPeerSkipListFactory InlineSkipList=MemrepPeerInlineSkipList)
    target_compile_options(${target} PRIVATE -w)
  endfunction()
  add_library(memrep_peer_skip_list_ndebug STATIC
    ${peer_src}/memtable/skiplistrep.cc peers/skip_list_ndebug.cc)
  memrep_skip_list_ndebug_build(memrep_peer_skip_list_ndebug)
  target_link_libraries(memrep_peer_skip_list_ndebug PUBLIC ${ROCKSDB_LIBRARY})
  target_link_libraries(memrep_bench_lib PUBLIC memrep_peer_skip_list_ndebug)
  target_compile_definitions(memrep_bench_lib PRIVATE MEMREP_PEER_SKIP_LIST_NDEBUG
    MEMREP_PEER_ROCKSDB_VERSION="${peer_version}")
  message(STATUS "memrep_bench peer skip_list_ndebug: RocksDB ${peer_version} from ${peer_src}")
  # The same skip list as a plugin for Debian's db_bench, bench.SkipListNDebug
  # (skip_list_ndebug_plugin.cc): libmemrep_skip_list_ndebug.so beside
  # memrep_bench. Every symbol hidden, so that the preloaded copy never
  # interposes on librocksdb's skip list.
  add_library(memrep_skip_list_ndebug_plugin SHARED
    ${peer_src}/memtable/skiplistrep.cc peers/skip_list_ndebug_plugin.cc)
  set_target_properties(memrep_skip_list_ndebug_plugin PROPERTIES
    OUTPUT_NAME memrep_skip_list_ndebug CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  memrep_skip_list_ndebug_build(memrep_skip_list_ndebug_plugin)
  target_link_libraries(memrep_skip_list_ndebug_plugin PRIVATE ${ROCKSDB_LIBRARY})
  if(MEMREP_BUILD_TESTS)
    # It loads into Debian's db_bench (when installed), and a fill reads
    # back: 1000 random keys of 1000, 617 distinct with --seed=1, as Debian's
    # skip_list finds (a rep that lost entries would find fewer).
    find_program(MEMREP_DB_BENCH db_bench)
    if(MEMREP_DB_BENCH)
      add_test(NAME memrep_skip_list_ndebug_db_bench
        COMMAND sh -c "d=$1/skip_list_ndebug_db && rm -rf $d && LD_PRELOAD=$2 \"$0\" \
                --memtablerep=bench.SkipListNDebug --benchmarks=fillrandom,readrandom --num=1000 \
                --seed=1 --disable_wal=1 --db=$d"
                ${MEMREP_DB_BENCH} ${CMAKE_CURRENT_BINARY_DIR}
                $<TARGET_FILE:memrep_skip_list_ndebug_plugin>)
      set_tests_properties(memrep_skip_list_ndebug_db_bench PROPERTIES TIMEOUT 60
        PASS_REGULAR_EXPRESSION "Memtablerep: bench.SkipListNDebug.*fillrandom .*readrandom .*\\(617 of 1000 found\\)")
    endif()
  endif()
endif()

if(MEMREP_PEER_TOPLING_ZIP)
  include(${CMAKE_CURRENT_LIST_DIR}/topling_cspp.cmake)
endif()

if(MEMREP_PEER_COLUMNAR_MEMTABLE)
  include(${CMAKE_CURRENT_LIST_DIR}/columnar_memtable.cmake)
endif()
