# The python3 that the report's and the matrix's tests run (report.cmake,
# matrix.cmake): the first of the one CMake finds and /usr/bin/python3 that
# imports matplotlib (Debian's is installed for /usr/bin/python3, which may
# not be the python3 found first), else the one found. Sets bench_python and
# bench_python_has_matplotlib, where python3 is found (Python3_Interpreter_FOUND).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(bench_python ${Python3_EXECUTABLE})
  set(bench_python_has_matplotlib FALSE)
  foreach(candidate ${Python3_EXECUTABLE} /usr/bin/python3)
    if(EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import matplotlib"
                      RESULT_VARIABLE has_matplotlib OUTPUT_QUIET ERROR_QUIET)
      if(has_matplotlib EQUAL 0)
        set(bench_python ${candidate})
        set(bench_python_has_matplotlib TRUE)
        break()
      endif()
    endif()
  endforeach()
endif()
