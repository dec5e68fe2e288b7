# memrep_rocksdb_version(<rocksdb/version.h> <var>): sets <var> to the
# version that header declares, as MAJOR.MINOR.PATCH.
function(memrep_rocksdb_version header var)
  file(STRINGS "${header}" lines REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) [0-9]+")
  foreach(line ${lines})
    if(line MATCHES "ROCKSDB_(MAJOR|MINOR|PATCH) ([0-9]+)")
      set(${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    endif()
  endforeach()
  set(${var} "${MAJOR}.${MINOR}.${PATCH}" PARENT_SCOPE)
endfunction()
