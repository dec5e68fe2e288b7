# report.py, the benchmark report (bench/README.md, "Report"): its unit tests
# on canned documents and stand-in programs (db_bench_compare.py's too), and
# a tiny end-to-end run of --short (about 2000 entries). compare.py, the main
# job (scripts/compare.sh): its test on canned documents and a tiny
# end-to-end run (2000 entries, a few seconds). Only where python3 is found;
# the one with matplotlib (python.cmake) when there is one, else the plots
# are left out (--no-plots) and their unit test skips.
# Included by bench/CMakeLists.txt with MEMREP_BUILD_BENCH and MEMREP_BUILD_TESTS.
include(${CMAKE_CURRENT_LIST_DIR}/python.cmake)
if(Python3_Interpreter_FOUND)
  set(report_no_plots --no-plots)
  if(bench_python_has_matplotlib)
    set(report_no_plots "")
  endif()
  add_test(NAME report_test
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/report_test.py)
  add_test(NAME report_run_test
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/report_run_test.py)
  add_test(NAME report_db_bench_compare_test
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/db_bench_compare_test.py)
  # db_bench (Debian's rocksdb-tools) joins the end-to-end run when installed.
  find_program(MEMREP_DB_BENCH db_bench)
  set(report_parts rep,scaling)
  if(MEMREP_DB_BENCH)
    set(report_parts rep,scaling,db_bench)
  endif()
  add_test(NAME report_e2e
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/report.py --short
            --num-override=2000 --parts=${report_parts} ${report_no_plots}
            --out=${CMAKE_CURRENT_BINARY_DIR}/report-e2e --build-dir=${PROJECT_BINARY_DIR}
            --memrep-bench=$<TARGET_FILE:memrep_bench>
            --plugin=$<TARGET_FILE:memrep_rocksdb>
            "--db-bench-args=--db-bench ${MEMREP_DB_BENCH}")
  set_tests_properties(report_e2e PROPERTIES TIMEOUT 120)
  set(compare_db_bench "")
  if(MEMREP_DB_BENCH)
    set(compare_db_bench --db-bench=${MEMREP_DB_BENCH} --ceiling=$<TARGET_FILE:memrep_ceiling>)
  endif()
  add_test(NAME compare_test
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/compare_test.py
            --bench=$<TARGET_FILE:memrep_bench> --plugin=$<TARGET_FILE:memrep_rocksdb>
            --phased=$<TARGET_FILE:memrep_phased> ${compare_db_bench}
            --out=${CMAKE_CURRENT_BINARY_DIR}/compare-test)
  set_tests_properties(compare_test PROPERTIES TIMEOUT 300)
endif()
