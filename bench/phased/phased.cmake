# memrep_phased: one database through workload phases (the main scenario:
# bulk, readwrite, scanwrite, readers; loadserve: bulk, serve), per rep; memrep.Auto's choices per phase
# (bench/README.md, "The phased benchmark"). Included by bench/CMakeLists.txt
# with MEMREP_BUILD_BENCH.
add_executable(memrep_phased
  ${CMAKE_CURRENT_LIST_DIR}/main.cc
  ${CMAKE_CURRENT_LIST_DIR}/flags.cc
  ${CMAKE_CURRENT_LIST_DIR}/reps.cc
  ${CMAKE_CURRENT_LIST_DIR}/phases.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
)
target_include_directories(memrep_phased PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(memrep_phased PRIVATE memrep_rocksdb_static Threads::Threads)
if(MEMREP_BUILD_TESTS)
  # The phased benchmark, tiny (256 KiB memtables, 3 switches a phase):
  # passes when every Get and scan check passes (exit 0). No timing is asserted.
  add_test(NAME memrep_phased_smoke
    COMMAND memrep_phased --reps=skip_list,memrep.Auto --rounds=1 --write_buffer_size=262144
            --switches_per_phase=3)
  set_tests_properties(memrep_phased_smoke PROPERTIES TIMEOUT 120)
  # The serve phase's readers scan too: every scan is checked in key order.
  add_test(NAME memrep_phased_loadserve_smoke
    COMMAND memrep_phased --scenario=loadserve --reps=memrep.Vector,memrep.Auto --rounds=1
            --write_buffer_size=262144 --switches_per_phase=3)
  set_tests_properties(memrep_phased_loadserve_smoke PROPERTIES TIMEOUT 120)
  add_test(NAME memrep_phased_bad_scenario
    COMMAND sh -c "\"$0\" --scenario=nightly 2>&1 | grep -q 'must be main or loadserve' && { \"$0\" --scenario=nightly; test $? -eq 2; }" $<TARGET_FILE:memrep_phased>)
  add_test(NAME memrep_phased_bad_flag
    COMMAND sh -c "\"$0\" --rounds=lots; test $? -eq 2" $<TARGET_FILE:memrep_phased>)
endif()
