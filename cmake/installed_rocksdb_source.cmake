# What a build of RocksDB's own programs from the installed librocksdb's
# source needs (tests/stress: db_stress; tests/rocksdb_tests: RocksDB's gtest
# DB tests), against that shared library.
#
# Debian's librocksdb is built without NDEBUG and exports its internal names,
# so these programs are built without NDEBUG too, with the library's platform
# defines, or the internal classes they reach into (DBImpl, MemTable, ...)
# would have another layout.
#
# installed_rocksdb_source(MARKER <path under the source> BUILD_TYPE <name> FLAGS <flags>)
# checks ROCKSDB_SOURCE_DIR (a cache path) for MARKER, and sets:
#   ROCKSDB_LIBRARY, compression_libraries  the libraries to link (and Threads::Threads)
#   rocksdb_defines                          what Debian's build of the library defined
#   CMAKE_BUILD_TYPE                         BUILD_TYPE (none of CMake's own: no -DNDEBUG)
#                                            with FLAGS, unless the caller set one
macro(installed_rocksdb_source)
  cmake_parse_arguments(_irs "" "MARKER;BUILD_TYPE;FLAGS" "" ${ARGN})
  set(ROCKSDB_SOURCE_DIR "" CACHE PATH "The unpacked, patched RocksDB source")
  if(NOT EXISTS "${ROCKSDB_SOURCE_DIR}/${_irs_MARKER}")
    message(FATAL_ERROR "ROCKSDB_SOURCE_DIR='${ROCKSDB_SOURCE_DIR}' has no ${_irs_MARKER}")
  endif()
  find_library(ROCKSDB_LIBRARY NAMES rocksdb REQUIRED)
  # The programs call the compression libraries themselves.
  set(compression_libraries)
  foreach(name zstd lz4 snappy z bz2)
    find_library(lib_${name} NAMES ${name} REQUIRED)
    list(APPEND compression_libraries "${lib_${name}}")
  endforeach()
  find_package(Threads REQUIRED)

  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_CXX_STANDARD_REQUIRED ON)
  if(NOT CMAKE_BUILD_TYPE)
    set(CMAKE_BUILD_TYPE ${_irs_BUILD_TYPE})
  endif()
  string(TOUPPER "${_irs_BUILD_TYPE}" _irs_upper)
  set(CMAKE_CXX_FLAGS_${_irs_upper} "${_irs_FLAGS}")

  # Debian's CMakeLists.txt on Linux x86-64, PORTABLE=ON.
  set(rocksdb_defines
    ROCKSDB_PLATFORM_POSIX ROCKSDB_LIB_IO_POSIX OS_LINUX PORTABLE
    SNAPPY ZLIB BZIP2 LZ4 ZSTD
    ROCKSDB_FALLOCATE_PRESENT ROCKSDB_RANGESYNC_PRESENT ROCKSDB_PTHREAD_ADAPTIVE_MUTEX
    ROCKSDB_MALLOC_USABLE_SIZE ROCKSDB_SCHED_GETCPU_PRESENT ROCKSDB_AUXV_GETAUXVAL_PRESENT)
endmacro()
