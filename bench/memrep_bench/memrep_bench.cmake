# memrep_bench: memtable reps side by side at the rep level (bench/README.md).
# memrep_bench_lib is everything but main(), so the tests can drive it.
# Included by bench/CMakeLists.txt.
set(memrep_bench_dir ${CMAKE_CURRENT_LIST_DIR})
add_library(memrep_bench_lib STATIC
  ${memrep_bench_dir}/flags.cc
  ${memrep_bench_dir}/shim_arena.cc
  ${memrep_bench_dir}/entry_codec.cc
  ${memrep_bench_dir}/key_comparator.cc
  ${memrep_bench_dir}/key_generator.cc
  ${memrep_bench_dir}/latency.cc
  ${memrep_bench_dir}/thread_runner.cc
  ${memrep_bench_dir}/progress.cc
  ${memrep_bench_dir}/reps.cc
  ${memrep_bench_dir}/workload_ops.cc
  ${memrep_bench_dir}/workload_common.cc
  ${memrep_bench_dir}/workloads.cc
  ${memrep_bench_dir}/workloads_write.cc
  ${memrep_bench_dir}/workloads_read.cc
  ${memrep_bench_dir}/workloads_mixed.cc
  ${memrep_bench_dir}/standalone_face.cc
  ${memrep_bench_dir}/trie_table_face.cc
  ${memrep_bench_dir}/report.cc
  ${memrep_bench_dir}/calibrate.cc
)
# The harness's headers by name ("reps.h"), the peers' as "peers/peers.h".
# rocksdb/ is public: the bench's headers use RocksDB's ABI declarations
# (rocksdb_compat.h); so is src/: shim_arena.h holds a concurrency::PerThread.
# The static plugin: the bench reaches into its factory and adapter to check
# that a memrep factory built memrep's rep (not its skip-list fallback) with
# the options it was given.
target_include_directories(memrep_bench_lib
  PUBLIC ${memrep_bench_dir} ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/rocksdb
         ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(memrep_bench_lib PUBLIC memrep_rocksdb_static Threads::Threads)

if(MEMREP_BUILD_BENCH)
  add_executable(memrep_bench ${memrep_bench_dir}/main.cc)
  target_link_libraries(memrep_bench PRIVATE memrep_bench_lib)
  if(MEMREP_BUILD_TESTS)
    # Every workload on every rep, tiny: passes if every check passes (exit 0).
    # No timing is asserted.
    add_test(NAME memrep_bench_smoke
      COMMAND memrep_bench --benchmarks=all --memtablerep=all --num_operations=2000
              --repeats=1 --num_threads=2 --bucket_count=4096 --progress=false
              --json=${CMAKE_CURRENT_BINARY_DIR}/smoke.json
              --csv=${CMAKE_CURRENT_BINARY_DIR}/smoke.csv)
    set_tests_properties(memrep_bench_smoke PROPERTIES TIMEOUT 300)
    # The same through the standalone face (memrep's reps through
    # memrep::MemTable, RocksDB's at the rep level), on 32-byte keys sharing a
    # 24-byte prefix. Under a second; passes if every check passes.
    add_test(NAME memrep_bench_standalone_smoke
      COMMAND memrep_bench --face=standalone --benchmarks=all --memtablerep=all
              --num_operations=2000 --repeats=1 --num_threads=2 --bucket_count=4096
              --key_size=32 --shared_prefix=24 --prefix_length=32 --batch_size=64
              --progress=false --json=${CMAKE_CURRENT_BINARY_DIR}/standalone_smoke.json)
    set_tests_properties(memrep_bench_standalone_smoke PROPERTIES TIMEOUT 120)
    # The read workloads on trie tables (--face=trie_table): every check
    # passes (exit 0), and every table file made is removed afterwards.
    add_test(NAME memrep_bench_trie_table_smoke
      COMMAND sh -c "d=$1/trie_table_smoke && rm -rf $d && mkdir -p $d && \"$0\" --face=trie_table \
              --benchmarks=all --memtablerep=all --num_operations=2000 --repeats=1 --num_threads=2 \
              --bucket_count=4096 --progress=false --table_dir=$d && test -z \"$(ls -A $d)\""
              $<TARGET_FILE:memrep_bench> ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(memrep_bench_trie_table_smoke PROPERTIES TIMEOUT 120)
    # A bad flag is exit status 2 with a message, not a crash.
    add_test(NAME memrep_bench_bad_flag
      COMMAND sh -c "\"$0\" --num_operations=lots; test $? -eq 2" $<TARGET_FILE:memrep_bench>)
    add_test(NAME memrep_bench_bad_shared_prefix
      COMMAND sh -c "\"$0\" --key_size=16 --shared_prefix=13; test $? -eq 2" $<TARGET_FILE:memrep_bench>)
    add_test(NAME memrep_bench_bad_face
      COMMAND sh -c "\"$0\" --face=library; test $? -eq 2" $<TARGET_FILE:memrep_bench>)
    add_test(NAME memrep_bench_unknown_rep
      COMMAND sh -c "\"$0\" --memtablerep=skip_list,btree; test $? -eq 2" $<TARGET_FILE:memrep_bench>)
    # --calibrate_auto: a tiny calibration prints a prior= line for every
    # memrep rep (bench_calibrate_test checks that Auto accepts what it prints).
    add_test(NAME memrep_bench_calibrate_auto
      COMMAND memrep_bench --calibrate_auto --num_operations=2000 --repeats=1 --progress=false)
    set_tests_properties(memrep_bench_calibrate_auto PROPERTIES TIMEOUT 120
      PASS_REGULAR_EXPRESSION "prior=memrep[.]SortedHash:[0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9]+,memrep[.]Vector:.*memrep[.]Trie:.*memrep[.]Columnar:")
    # --list_reps: JSON with every rep, memrep's among them; exit 0.
    add_test(NAME memrep_bench_list_reps
      COMMAND sh -c "\"$0\" --list_reps | grep -q '\"memrep\": true'" $<TARGET_FILE:memrep_bench>)
  endif()
endif()
