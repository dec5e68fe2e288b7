# matrix.py, the rep x workload x threads matrix (bench/README.md, "Matrix"):
# matrix_smoke runs it at tiny sizes (2000 entries, a few seconds) with the
# same binaries as its second build, and checks its JSON, Markdown, redraw
# and exit statuses (matrix_test.py). The db_bench face joins when Debian's
# db_bench is installed. Only where python3 is found; the python with
# matplotlib (bench/report/python.cmake) when there is one, so that the
# heat map is drawn and checked too. Included by bench/CMakeLists.txt with
# MEMREP_BUILD_BENCH and MEMREP_BUILD_TESTS.
include(${CMAKE_CURRENT_LIST_DIR}/../report/python.cmake)
if(Python3_Interpreter_FOUND)
  find_program(MEMREP_DB_BENCH db_bench)
  set(matrix_db_bench "")
  if(MEMREP_DB_BENCH)
    set(matrix_db_bench --db-bench=${MEMREP_DB_BENCH})
    if(TARGET memrep_ceiling)
      list(APPEND matrix_db_bench --ceiling=$<TARGET_FILE:memrep_ceiling>)
    endif()
  endif()
  add_test(NAME matrix_smoke
    COMMAND ${bench_python} -B ${CMAKE_CURRENT_LIST_DIR}/matrix_test.py
            --bench=$<TARGET_FILE:memrep_bench> --plugin=$<TARGET_FILE:memrep_rocksdb>
            ${matrix_db_bench} --out=${CMAKE_CURRENT_BINARY_DIR}/matrix-smoke)
  set_tests_properties(matrix_smoke PROPERTIES TIMEOUT 300)
endif()
