# memrep's source files, read from memrep.mk: the one list, which RocksDB's
# in-tree build reads too (make includes the file; RocksDB's CMake reads it
# by regular expression). Sets, as absolute paths:
#   MEMREP_LIBRARY_SOURCES   src/: the standalone library and every rep
#   MEMREP_ROCKSDB_SOURCES   rocksdb/: the RocksDB face
set(memrep_mk "${CMAKE_CURRENT_LIST_DIR}/../memrep.mk")
file(STRINGS "${memrep_mk}" memrep_sources_line REGEX "^memrep_SOURCES = ")
list(LENGTH memrep_sources_line memrep_sources_lines)
if(NOT memrep_sources_lines EQUAL 1)
  message(FATAL_ERROR "memrep.mk must have exactly one line 'memrep_SOURCES = ...' "
                      "(RocksDB's CMake reads it by regular expression); it has ${memrep_sources_lines}")
endif()
string(REPLACE "memrep_SOURCES = " "" memrep_sources_line "${memrep_sources_line}")
separate_arguments(memrep_sources UNIX_COMMAND "${memrep_sources_line}")
get_filename_component(memrep_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(MEMREP_LIBRARY_SOURCES)
set(MEMREP_ROCKSDB_SOURCES)
foreach(source ${memrep_sources})
  if(NOT EXISTS "${memrep_root}/${source}")
    message(FATAL_ERROR "memrep.mk names ${source}, which does not exist")
  endif()
  if(source MATCHES "^src/")
    list(APPEND MEMREP_LIBRARY_SOURCES "${memrep_root}/${source}")
  elseif(source MATCHES "^rocksdb/")
    list(APPEND MEMREP_ROCKSDB_SOURCES "${memrep_root}/${source}")
  else()
    message(FATAL_ERROR "memrep.mk names ${source}, outside src/ and rocksdb/")
  endif()
endforeach()
# A .cc file that the list forgot would be left out of every build but
# this check.
file(GLOB_RECURSE memrep_found RELATIVE "${memrep_root}" "${memrep_root}/src/*.cc" "${memrep_root}/rocksdb/*.cc")
foreach(source ${memrep_found})
  if(NOT source IN_LIST memrep_sources)
    message(FATAL_ERROR "${source} is not in memrep.mk's memrep_SOURCES: add it there")
  endif()
endforeach()
# Reconfigure when the list changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${memrep_mk}")
