# memrep's RocksDB-level tests against a RocksDB built from source with memrep
# inside (ROCKSDB_PLUGINS=memrep; scripts/rocksdb-intree.sh configures this):
#   MEMREP_ROCKSDB_INTREE_LIBRARY  that build's librocksdb.a, memrep included
#   MEMREP_ROCKSDB_INTREE_SOURCE   its source tree (headers, internal ones too)
#   MEMREP_ROCKSDB_INTREE_LDFLAGS  the libraries it needs (compression, ...)
# memrep_rocksdb_static then stands for that library, so the tests exercise
# the memrep that RocksDB compiled, with RocksDB's flags: no plugin of
# memrep's own is built, nor the benchmarks and examples (which preload).
set(dir "${MEMREP_ROCKSDB_INTREE_SOURCE}")
if(NOT EXISTS "${MEMREP_ROCKSDB_INTREE_LIBRARY}" OR NOT EXISTS "${dir}/include/rocksdb/version.h")
  message(FATAL_ERROR "MEMREP_ROCKSDB_INTREE_LIBRARY (${MEMREP_ROCKSDB_INTREE_LIBRARY}) and "
                      "MEMREP_ROCKSDB_INTREE_SOURCE (${dir}) must name a RocksDB build with memrep "
                      "inside and its source tree: bash scripts/rocksdb-intree.sh makes both")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/rocksdb_version.cmake)
memrep_rocksdb_version("${dir}/include/rocksdb/version.h" ROCKSDB_VERSION)
set(ROCKSDB_INCLUDE_DIR "${dir}/include")
separate_arguments(ldflags UNIX_COMMAND "${MEMREP_ROCKSDB_INTREE_LDFLAGS}")

add_library(memrep_rocksdb_static INTERFACE)
target_include_directories(memrep_rocksdb_static INTERFACE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include "${dir}/include" "${dir}")
# RocksDB's internal headers (rocksdb/rocksdb_compat.h includes two) want
# its platform macros; and RocksDB's release builds have no RTTI, so neither
# may code that derives from its classes.
target_compile_definitions(memrep_rocksdb_static INTERFACE
  MEMREP_ROCKSDB_INTREE ROCKSDB_PLATFORM_POSIX ROCKSDB_LIB_IO_POSIX OS_LINUX)
target_compile_options(memrep_rocksdb_static INTERFACE -fno-rtti)
target_link_libraries(memrep_rocksdb_static INTERFACE
  "${MEMREP_ROCKSDB_INTREE_LIBRARY}" ${ldflags} Threads::Threads)
message(STATUS "memrep: RocksDB-level tests against RocksDB ${ROCKSDB_VERSION} built with memrep "
               "inside (${MEMREP_ROCKSDB_INTREE_LIBRARY})")
