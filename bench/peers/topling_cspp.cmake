# The topling_cspp peer (peers/peers.h): ToplingDB's CSPP trie, the
# concurrent Patricia trie of topling-zip (src/terark/fsa/cspptrie.*), behind
# rocksdb::MemTableRep (peers/topling_cspp.cc). Included by peers.cmake when
# MEMREP_PEER_TOPLING_ZIP names a topling-zip checkout.
#
# CMake compiles the part of topling-zip that the trie needs straight from the
# checkout's sources into one static library; topling-zip's own Makefile is
# not run. That part is the trie, its base classes (fsa.cpp), its memory pool
# and the utilities they call: the closure of what a program using the trie
# links, found at topling-zip 60d2c9a3. The headers come from the checkout
# (src/) and Boost's header-only libraries from the system (Debian's
# libboost-dev); the checkout's boost-include submodule is not needed, nor
# are its compiled Boost libraries (fiber, context: only its pipeline and
# asynchronous I/O, which the trie does not use, need them).
#
# Flags: those of topling-zip's own release build for this code: -O3 -DNDEBUG,
# -std=gnu++17, -mcx16 on x86-64, -fno-stack-protector,
# -ftls-model=initial-exec, jemalloc and io_uring off; and, where the build
# machine has BMI2 (the test of its cpu_has_bmi2.sh), -march=haswell -mbmi
# -mbmi2 as its Makefile sets then. MEMREP_PEER_TOPLING_CSPP_CPU_FLAGS
# overrides that choice. The peer is always built optimised, whatever
# CMAKE_BUILD_TYPE, and topling-zip's sources with -w: their warnings are not
# memrep's to fix. The adapter is compiled with memrep's warnings, topling-zip's
# headers included as system headers.

set(peer_zip ${MEMREP_PEER_TOPLING_ZIP})
get_filename_component(peer_zip ${peer_zip} ABSOLUTE BASE_DIR ${PROJECT_BINARY_DIR})

# What the trie needs of topling-zip, below src/terark.
set(peer_zip_sources
  fsa/cspptrie.cpp
  fsa/fsa.cpp
  fsa/tmplinst.cpp
  bitmap.cpp
  fstring.cpp
  hash_common.cpp
  int_vector.cpp
  mempool_thread_cache.cpp
  num_to_str.cpp
  radix_sort.cpp
  str_lex_iter.cpp
  io/FileStream.cpp
  io/IOException.cpp
  io/IStream.cpp
  io/StreamBuffer.cpp
  util/checksum_exception.cpp
  util/crc.cpp
  util/function.cpp
  util/mmap.cpp
  util/nolocks_localtime.cpp
  util/profiling.cpp
  util/sortable_strvec.cpp
  util/throw.cpp
)

if(NOT EXISTS ${peer_zip}/src/terark/fsa/cspptrie.inl OR
   NOT EXISTS ${peer_zip}/src/terark/fsa/cspptrie.hpp OR
   NOT EXISTS ${peer_zip}/src/terark/fsa/cspptrie.cpp)
  message(FATAL_ERROR "MEMREP_PEER_TOPLING_ZIP=${MEMREP_PEER_TOPLING_ZIP} is not a topling-zip "
                      "checkout (no src/terark/fsa/cspptrie.{hpp,inl,cpp}): give the directory of "
                      "`git clone https://github.com/topling/topling-zip` (submodules not needed)")
endif()
set(peer_zip_files "")
foreach(source ${peer_zip_sources})
  if(NOT EXISTS ${peer_zip}/src/terark/${source})
    message(FATAL_ERROR "MEMREP_PEER_TOPLING_ZIP=${peer_zip} has no src/terark/${source}, which "
                        "the topling_cspp peer compiles (its list in bench/peers/topling_cspp.cmake "
                        "was made at topling-zip 60d2c9a3; this checkout is laid out otherwise)")
  endif()
  list(APPEND peer_zip_files ${peer_zip}/src/terark/${source})
endforeach()

# Boost's header-only libraries (Boost.Predef, Container, MPL, Integer,
# Algorithm, ...). The checkout's own copy (its boost-include submodule) is
# used only if the system has none.
find_path(MEMREP_PEER_BOOST_INCLUDE_DIR boost/container/deque.hpp
  HINTS ${peer_zip}/boost-include
  DOC "Boost headers for the topling_cspp peer (Debian: libboost-dev)")
if(NOT MEMREP_PEER_BOOST_INCLUDE_DIR
   OR NOT EXISTS ${MEMREP_PEER_BOOST_INCLUDE_DIR}/boost/predef.h
   OR NOT EXISTS ${MEMREP_PEER_BOOST_INCLUDE_DIR}/boost/algorithm/searching/boyer_moore_horspool.hpp)
  message(FATAL_ERROR "The topling_cspp peer needs Boost's headers (boost/container/deque.hpp, "
                      "boost/predef.h, boost/algorithm/...), not found: install Debian's "
                      "libboost-dev (apt-get install libboost-dev), or give their directory "
                      "with -DMEMREP_PEER_BOOST_INCLUDE_DIR=<dir holding boost/>")
endif()

# The commit the peer was built from, for its description.
set(peer_zip_commit unknown)
find_package(Git QUIET)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${peer_zip} rev-parse --short=8 HEAD
                  OUTPUT_VARIABLE peer_zip_rev OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE peer_zip_rev_result ERROR_QUIET)
  # Only if the checkout is a repository of its own, not a directory inside
  # another one (a git archive unpacked under some work tree).
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${peer_zip} rev-parse --show-toplevel
                  OUTPUT_VARIABLE peer_zip_top OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(peer_zip_rev_result EQUAL 0 AND peer_zip_rev AND peer_zip_top)
    get_filename_component(peer_zip_top ${peer_zip_top} REALPATH)
    get_filename_component(peer_zip_real ${peer_zip} REALPATH)
    if(peer_zip_top STREQUAL peer_zip_real)
      set(peer_zip_commit ${peer_zip_rev})
    endif()
  endif()
endif()

# The CPU flags of topling-zip's release build (see above).
if(NOT DEFINED MEMREP_PEER_TOPLING_CSPP_CPU_FLAGS)
  set(peer_cpu_flags "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    include(CheckCXXSourceCompiles)
    include(CMakePushCheckState)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS "-march=native")
    check_cxx_source_compiles("
      #ifndef __BMI2__
      #error no BMI2
      #endif
      int main() { return 0; }" MEMREP_PEER_HOST_HAS_BMI2)
    cmake_pop_check_state()
    if(MEMREP_PEER_HOST_HAS_BMI2)
      set(peer_cpu_flags "-march=haswell -mbmi -mbmi2 -mcx16")
    else()
      set(peer_cpu_flags "-mno-bmi -mno-bmi2 -mcx16")
    endif()
  endif()
  set(MEMREP_PEER_TOPLING_CSPP_CPU_FLAGS "${peer_cpu_flags}" CACHE STRING
      "CPU flags of the topling_cspp peer (default: topling-zip's release choice for this machine)")
endif()
separate_arguments(peer_cpu_flags UNIX_COMMAND "${MEMREP_PEER_TOPLING_CSPP_CPU_FLAGS}")

add_library(memrep_peer_topling_cspp STATIC ${peer_zip_files} ${CMAKE_CURRENT_LIST_DIR}/topling_cspp.cc)
# topling-zip's code is C++14/17 with GNU extensions; the adapter is compiled
# the same way, so that both see one layout of the trie's classes.
set_target_properties(memrep_peer_topling_cspp PROPERTIES
  CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS ON)
target_include_directories(memrep_peer_topling_cspp SYSTEM PRIVATE
  ${peer_zip}/src ${MEMREP_PEER_BOOST_INCLUDE_DIR})
# rocksdb_compat.h: RocksDB 7.8's LookupKey and memtable Allocator layouts.
target_include_directories(memrep_peer_topling_cspp PRIVATE ${PROJECT_SOURCE_DIR}/rocksdb)
target_compile_definitions(memrep_peer_topling_cspp PRIVATE
  NDEBUG TOPLING_DISABLE_JEMALLOC TOPLING_IO_WITH_URING=0 DIVSUFSORT_API=)
# After CMAKE_CXX_FLAGS_<CONFIG> on the command line, so -O3 wins.
target_compile_options(memrep_peer_topling_cspp PRIVATE
  -O3 ${peer_cpu_flags} -fno-stack-protector -ftls-model=initial-exec)
set_source_files_properties(${peer_zip_files} PROPERTIES COMPILE_OPTIONS "-w")
target_link_libraries(memrep_peer_topling_cspp PUBLIC ${ROCKSDB_LIBRARY} Threads::Threads)
target_link_libraries(memrep_bench_lib PUBLIC memrep_peer_topling_cspp)
target_compile_definitions(memrep_bench_lib PRIVATE MEMREP_PEER_TOPLING_CSPP
  MEMREP_PEER_TOPLING_ZIP_COMMIT="${peer_zip_commit}")
message(STATUS "memrep_bench peer topling_cspp: topling-zip ${peer_zip_commit} from ${peer_zip}, "
               "CPU flags '${MEMREP_PEER_TOPLING_CSPP_CPU_FLAGS}', Boost headers from "
               "${MEMREP_PEER_BOOST_INCLUDE_DIR}")

# The adapter's own test: the rep against a std::set model, from one and from
# several threads, through every call memrep_bench makes and a few it does not.
if(MEMREP_BUILD_TESTS AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/topling_cspp_test.cc)
  find_package(GTest REQUIRED)
  add_executable(memrep_peer_topling_cspp_test ${CMAKE_CURRENT_LIST_DIR}/topling_cspp_test.cc)
  target_include_directories(memrep_peer_topling_cspp_test PRIVATE ${PROJECT_SOURCE_DIR}/rocksdb)
  target_link_libraries(memrep_peer_topling_cspp_test PRIVATE memrep_bench_lib
                        GTest::gtest GTest::gtest_main)
  add_test(NAME memrep_peer_topling_cspp_test
           COMMAND memrep_peer_topling_cspp_test --gtest_brief=1)
  set_tests_properties(memrep_peer_topling_cspp_test PROPERTIES TIMEOUT 300)
endif()
