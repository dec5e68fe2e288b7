# The columnar_memtable peer (peers/peers.h, peers/columnar_memtable.cc):
# conanhujinming/columnar_memtable's ColumnarMemTable, a header-only C++17
# memtable, as a standalone peer: a memrep::Rep of the view functions that
# memrep_bench runs through memrep::MemTable (--face=standalone). Included by
# peers.cmake when MEMREP_PEER_COLUMNAR_MEMTABLE names a checkout of it.
#
# What of the checkout is compiled: its header columnar_memtable.h, with the
# thread_pool.h and xxhash.h beside it (XXH_INLINE_ALL: its own copy of
# xxHash, inlined, whatever the system has). Its main.cpp (a benchmark over
# Google Benchmark and mimalloc, its submodule) and skiplist_memtable.h are
# not, nor is its CMakeLists.txt run; nothing is fetched.
#
# Two parts, in two object libraries, meeting at columnar_memtable_seed.h:
#   - memrep_peer_columnar_memtable_seed (columnar_memtable_seed.cc): the
#     part that includes the seed's header, with the seed's own release flags (its CMakeLists.txt:
#     -std=c++17, CMake's Release -O3 -DNDEBUG, -pthread, -march=native) and
#     -w: its warnings are not memrep's to fix. -O3 and NDEBUG whatever
#     CMAKE_BUILD_TYPE; MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS overrides
#     -march=native (e.g. for a binary run on another machine);
#   - memrep_peer_columnar_memtable (columnar_memtable.cc): the adapter,
#     memrep's code, with memrep's flags and warnings, which calls the seed
#     part through two small classes.
# Both are linked into memrep_bench only (and into this peer's own test), not
# into memrep_bench_lib: the rep registers itself in memrep's registry at
# static initialization, and memrep_bench_tests, which treats every registered
# rep as memrep's own, never sees it. The link is deferred to the end of
# bench/ (bench/CMakeLists.txt), when memrep_bench is made whatever the order.

set(peer_cm ${MEMREP_PEER_COLUMNAR_MEMTABLE})
get_filename_component(peer_cm ${peer_cm} ABSOLUTE BASE_DIR ${PROJECT_BINARY_DIR})
foreach(header columnar_memtable.h thread_pool.h xxhash.h)
  if(NOT EXISTS ${peer_cm}/${header})
    message(FATAL_ERROR "MEMREP_PEER_COLUMNAR_MEMTABLE=${MEMREP_PEER_COLUMNAR_MEMTABLE} is not a "
                        "checkout of conanhujinming/columnar_memtable (no ${header}): give the "
                        "directory of `git clone https://github.com/conanhujinming/columnar_memtable` "
                        "(submodules not needed)")
  endif()
endforeach()

# The commit the peer was built from, for its summary: the checkout's own
# HEAD when it is a repository of its own, else MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT
# (e.g. for a tree exported with git archive), else "unknown".
set(MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT "" CACHE STRING
    "The commit of the columnar_memtable checkout, when it is not a git repository of its own")
set(peer_cm_commit unknown)
if(MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT)
  set(peer_cm_commit ${MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT})
else()
  find_package(Git QUIET)
  if(GIT_EXECUTABLE)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${peer_cm} rev-parse --short=8 HEAD
                    OUTPUT_VARIABLE peer_cm_rev OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE peer_cm_rev_result ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${peer_cm} rev-parse --show-toplevel
                    OUTPUT_VARIABLE peer_cm_top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(peer_cm_rev_result EQUAL 0 AND peer_cm_rev AND peer_cm_top)
      get_filename_component(peer_cm_top ${peer_cm_top} REALPATH)
      get_filename_component(peer_cm_real ${peer_cm} REALPATH)
      if(peer_cm_top STREQUAL peer_cm_real)
        set(peer_cm_commit ${peer_cm_rev})
      endif()
    endif()
  endif()
endif()

set(MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS "-march=native" CACHE STRING
    "CPU flags of the columnar_memtable peer's seed part (default: the seed's own, -march=native)")
separate_arguments(peer_cm_cpu_flags UNIX_COMMAND "${MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS}")

# The seed part: the seed's header with the seed's flags.
add_library(memrep_peer_columnar_memtable_seed OBJECT
  ${CMAKE_CURRENT_LIST_DIR}/columnar_memtable_seed.cc)
set_target_properties(memrep_peer_columnar_memtable_seed PROPERTIES
  CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_compile_definitions(memrep_peer_columnar_memtable_seed PRIVATE NDEBUG)
target_include_directories(memrep_peer_columnar_memtable_seed PRIVATE ${peer_cm})
# After CMAKE_CXX_FLAGS_<CONFIG> on the command line, so -O3 wins; -w after
# memrep's -Wall -Wextra [-Werror].
target_compile_options(memrep_peer_columnar_memtable_seed PRIVATE
  -O3 ${peer_cm_cpu_flags} -pthread -w)
target_link_libraries(memrep_peer_columnar_memtable_seed PUBLIC Threads::Threads)

# The adapter: memrep's code (src/ for the registry's internal header).
add_library(memrep_peer_columnar_memtable OBJECT ${CMAKE_CURRENT_LIST_DIR}/columnar_memtable.cc)
target_include_directories(memrep_peer_columnar_memtable PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(memrep_peer_columnar_memtable PRIVATE
  MEMREP_PEER_COLUMNAR_MEMTABLE_COMMIT="${peer_cm_commit}")
target_link_libraries(memrep_peer_columnar_memtable PUBLIC memrep_bench_lib)

# Objects of an object library reach only the targets that link it directly.
set(MEMREP_PEER_COLUMNAR_MEMTABLE_OBJECTS
  memrep_peer_columnar_memtable memrep_peer_columnar_memtable_seed)
function(memrep_peer_columnar_memtable_link_bench)
  if(TARGET memrep_bench)
    target_link_libraries(memrep_bench PRIVATE ${MEMREP_PEER_COLUMNAR_MEMTABLE_OBJECTS})
  endif()
endfunction()
cmake_language(DEFER CALL memrep_peer_columnar_memtable_link_bench)

message(STATUS "memrep_bench peer columnar_memtable: conanhujinming/columnar_memtable "
               "${peer_cm_commit} from ${peer_cm}, CPU flags "
               "'${MEMREP_PEER_COLUMNAR_MEMTABLE_CPU_FLAGS}' (a standalone peer: --face=standalone)")

# The adapter's own test: the rep through memrep::MemTable against a model,
# from one and from several threads, and the bench's handling of the peer.
if(MEMREP_BUILD_TESTS AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/columnar_memtable_test.cc)
  find_package(GTest REQUIRED)
  add_executable(memrep_peer_columnar_memtable_test ${CMAKE_CURRENT_LIST_DIR}/columnar_memtable_test.cc)
  target_include_directories(memrep_peer_columnar_memtable_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(memrep_peer_columnar_memtable_test PRIVATE
    ${MEMREP_PEER_COLUMNAR_MEMTABLE_OBJECTS} memrep_bench_lib GTest::gtest GTest::gtest_main)
  add_test(NAME memrep_peer_columnar_memtable_test
           COMMAND memrep_peer_columnar_memtable_test --gtest_brief=1)
  set_tests_properties(memrep_peer_columnar_memtable_test PROPERTIES TIMEOUT 300)
endif()
