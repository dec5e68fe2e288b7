# bench.Ceiling (ceiling_plugin.cc): a rep that stores nothing, in a plugin of
# its own for db_bench, never in libmemrep_rocksdb. Included by
# bench/CMakeLists.txt with MEMREP_BUILD_BENCH.
add_library(memrep_ceiling SHARED ${CMAKE_CURRENT_LIST_DIR}/ceiling_plugin.cc)
target_include_directories(memrep_ceiling PRIVATE ${PROJECT_SOURCE_DIR}/rocksdb)
target_link_libraries(memrep_ceiling PRIVATE ${ROCKSDB_LIBRARY})
if(MEMREP_BUILD_TESTS)
  # bench.Ceiling loads into Debian's db_bench (when installed), takes a
  # fill and finds nothing.
  find_program(MEMREP_DB_BENCH db_bench)
  if(MEMREP_DB_BENCH)
    add_test(NAME memrep_ceiling_db_bench
      COMMAND sh -c "d=$1/ceiling_db && rm -rf $d && LD_PRELOAD=$2 \"$0\" --memtablerep=bench.Ceiling \
              --benchmarks=fillrandom,readrandom --num=1000 --disable_wal=1 --db=$d"
              ${MEMREP_DB_BENCH} ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:memrep_ceiling>)
    set_tests_properties(memrep_ceiling_db_bench PROPERTIES TIMEOUT 60
      PASS_REGULAR_EXPRESSION "Memtablerep: bench.Ceiling.*fillrandom .*readrandom .*\\(0 of 1000 found\\)")
  endif()
endif()
