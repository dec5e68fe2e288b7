# The preload and link build against an installed RocksDB (CMakeLists.txt).
#
# The plugin needs the layouts of two classes that RocksDB's public headers
# only forward-declare, the memtable Allocator and LookupKey
# (rocksdb/rocksdb_compat.h). For RocksDB 7.8 memrep declares them itself.
# For any other version they come from that version's own source tree,
# -DMEMREP_ROCKSDB_SOURCE=DIR (its memory/arena.h and db/lookup_key.h), which
# must be the version of the library's headers: a tree of another version
# would compile and be silently wrong, so it is refused.
#
# Sets MEMREP_ROCKSDB_SOURCE_FLAGS (compile definitions and options for the
# plugin's objects and whatever includes rocksdb_compat.h) and
# MEMREP_ROCKSDB_SOURCE_INCLUDE (the tree's root, for the plugin's targets).
include(${CMAKE_CURRENT_LIST_DIR}/rocksdb_version.cmake)
memrep_rocksdb_version(${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h ROCKSDB_VERSION)
set(MEMREP_ROCKSDB_SOURCE_FLAGS "")
set(MEMREP_ROCKSDB_SOURCE_INCLUDE "")

if(MEMREP_ROCKSDB_SOURCE)
  get_filename_component(source "${MEMREP_ROCKSDB_SOURCE}" ABSOLUTE)
  foreach(header include/rocksdb/version.h memory/arena.h db/lookup_key.h)
    if(NOT EXISTS "${source}/${header}")
      message(FATAL_ERROR "MEMREP_ROCKSDB_SOURCE=${source} is not a RocksDB source tree (it has no "
                          "${header}): pass the source tree of RocksDB ${ROCKSDB_VERSION}, the "
                          "version of ${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h")
    endif()
  endforeach()
  memrep_rocksdb_version("${source}/include/rocksdb/version.h" source_version)
  if(NOT source_version STREQUAL ROCKSDB_VERSION)
    message(FATAL_ERROR "MEMREP_ROCKSDB_SOURCE=${source} is RocksDB ${source_version}, but the "
                        "library's headers (${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h) are RocksDB "
                        "${ROCKSDB_VERSION}: pass -DMEMREP_ROCKSDB_SOURCE=<the source tree of "
                        "RocksDB ${ROCKSDB_VERSION}> (its release tarball, or the rocksdb/ folder "
                        "of the librocksdb-sys crate that bundles it; bash "
                        "scripts/rocksdb-intree.sh fetches 7.8, 9.10, 9.11, 10.4 and 11.8 into "
                        "build/intree/rocksdb-<version>)")
  endif()
  if(ROCKSDB_VERSION VERSION_LESS 7.8)
    message(FATAL_ERROR "memrep's RocksDB plugin needs RocksDB 7.8 or newer; "
                        "${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h is RocksDB ${ROCKSDB_VERSION}")
  endif()
  # RocksDB's internal headers want its platform macros.
  set(MEMREP_ROCKSDB_SOURCE_FLAGS MEMREP_ROCKSDB_SOURCE_HEADERS ROCKSDB_PLATFORM_POSIX
      ROCKSDB_LIB_IO_POSIX OS_LINUX)
  set(MEMREP_ROCKSDB_SOURCE_INCLUDE "${source}")
  # A librocksdb built without RTTI (RocksDB's CMake in a Release build, its
  # make's release builds) has no typeinfo for its classes, and a plugin
  # whose classes derive from them must then be compiled without RTTI too,
  # or it cannot be loaded (memrep itself uses none).
  find_program(MEMREP_NM nm)
  set(MEMREP_ROCKSDB_NO_RTTI OFF)
  if(MEMREP_NM)
    execute_process(COMMAND ${MEMREP_NM} -D --defined-only "${ROCKSDB_LIBRARY}"
                    OUTPUT_VARIABLE symbols ERROR_QUIET RESULT_VARIABLE nm_status)
    if(nm_status EQUAL 0 AND NOT symbols MATCHES "_ZTIN7rocksdb18MemTableRepFactoryE")
      set(MEMREP_ROCKSDB_NO_RTTI ON)
    endif()
  endif()
  message(STATUS "memrep: RocksDB ${ROCKSDB_VERSION} at ${ROCKSDB_LIBRARY}, internal headers from "
                 "${source}")
  if(MEMREP_ROCKSDB_NO_RTTI)
    message(STATUS "memrep: ${ROCKSDB_LIBRARY} was built without RTTI: so is the plugin")
  endif()
elseif(NOT ROCKSDB_VERSION MATCHES "^7\\.8\\.")
  message(FATAL_ERROR "memrep's preload plugin declares RocksDB 7.8's internal memtable layouts "
                      "itself (Debian 12's librocksdb-dev), but "
                      "${ROCKSDB_INCLUDE_DIR}/rocksdb/version.h is RocksDB ${ROCKSDB_VERSION}. "
                      "For this RocksDB pass its source tree, whose internal headers have them: "
                      "-DMEMREP_ROCKSDB_SOURCE=<RocksDB ${ROCKSDB_VERSION}'s source tree> "
                      "(docs/rocksdb.md). Or build memrep inside that source tree: put this "
                      "repository at plugin/memrep and build RocksDB with ROCKSDB_PLUGINS=memrep "
                      "(scripts/rocksdb-intree.sh does it for the versions it fetches). "
                      "-DMEMREP_WITH_ROCKSDB=OFF builds the standalone library alone.")
else()
  message(STATUS "memrep: RocksDB ${ROCKSDB_VERSION} at ${ROCKSDB_LIBRARY}")
endif()
