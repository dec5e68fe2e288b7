# memrep_nimbus_import: big WriteBatches from one writer into a real RocksDB
# database, per rep (bench/README.md, "The Nimbus scenario"). Included by
# bench/CMakeLists.txt with MEMREP_BUILD_BENCH.
add_executable(memrep_nimbus_import
  ${CMAKE_CURRENT_LIST_DIR}/main.cc
  ${CMAKE_CURRENT_LIST_DIR}/flags.cc
  ${CMAKE_CURRENT_LIST_DIR}/import.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
)
target_include_directories(memrep_nimbus_import PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(memrep_nimbus_import PRIVATE memrep_rocksdb_static Threads::Threads)
if(MEMREP_BUILD_TESTS)
  # The Nimbus scenario, tiny, with the four default reps: passes when every
  # read of a just-written key finds its value (exit 0). No timing is asserted.
  add_test(NAME memrep_nimbus_import_smoke
    COMMAND memrep_nimbus_import --records=20000 --batch=1000 --runs=1 --reads=100
            --db=${CMAKE_CURRENT_BINARY_DIR}/nimbus_smoke)
  set_tests_properties(memrep_nimbus_import_smoke PROPERTIES TIMEOUT 120)
  add_test(NAME memrep_nimbus_import_bad_flag
    COMMAND sh -c "\"$0\" --records=lots; test $? -eq 2" $<TARGET_FILE:memrep_nimbus_import>)
  add_test(NAME memrep_nimbus_import_unknown_rep
    COMMAND sh -c "\"$0\" --reps=skip_list,btree; test $? -eq 2" $<TARGET_FILE:memrep_nimbus_import>)
endif()
