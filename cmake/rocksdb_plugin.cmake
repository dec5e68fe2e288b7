# memrep inside a RocksDB source tree, as plugin/memrep, built by RocksDB's
# CMake with -DROCKSDB_PLUGINS=memrep (make's side: memrep.mk). RocksDB adds
# this directory, then compiles ${memrep_SOURCES} into librocksdb with
# ${memrep_COMPILE_FLAGS}, and calls the registrar that memrep.mk names when
# its object registry starts. Nothing else of memrep's build runs here: no
# tests, benchmarks or install rules (scripts/rocksdb-intree.sh runs those
# against the finished build).
set(rocksdb_version_h "${CMAKE_SOURCE_DIR}/include/rocksdb/version.h")
include(${CMAKE_CURRENT_LIST_DIR}/rocksdb_version.cmake)
memrep_rocksdb_version("${rocksdb_version_h}" rocksdb_version)
if(rocksdb_version VERSION_LESS 7.8)
  message(FATAL_ERROR "memrep as a RocksDB plugin needs RocksDB 7.8 or newer; this source tree "
                      "(${rocksdb_version_h}) is RocksDB ${rocksdb_version}")
endif()

# As memrep.mk says: newer versions than those verified build against
# RocksDB's own headers; say so.
if(NOT rocksdb_version MATCHES "^(7\\.8|9\\.10|10\\.4|11\\.8)\\.")
  message(WARNING "memrep: RocksDB ${rocksdb_version} is not among the versions memrep was verified "
                  "with (7.8, 9.10, 10.4, 11.8; docs/rocksdb.md): run memrep's RocksDB-level tests against this "
                  "build: from memrep's checkout, bash scripts/rocksdb-intree.sh ${rocksdb_version} "
                  "--source ${CMAKE_SOURCE_DIR}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
set(dir "${CMAKE_CURRENT_SOURCE_DIR}")
# As memrep.mk explains: C++20 and memrep's headers for memrep's files only.
set(memrep_SOURCES)
foreach(source ${MEMREP_LIBRARY_SOURCES} ${MEMREP_ROCKSDB_SOURCES})
  file(RELATIVE_PATH relative "${dir}" "${source}")
  list(APPEND memrep_SOURCES "${relative}")
endforeach()
set(memrep_SOURCES "${memrep_SOURCES}" PARENT_SCOPE)
set(memrep_COMPILE_FLAGS
    "-std=c++20 -DMEMREP_ROCKSDB_INTREE -DXXH_INLINE_ALL -iquote ${dir}/src -iquote ${dir}/rocksdb -I${dir}/include"
    PARENT_SCOPE)
message(STATUS "memrep: in-tree plugin of RocksDB ${rocksdb_version} (${CMAKE_SOURCE_DIR})")
