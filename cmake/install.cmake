# cmake --install: the libraries, the public headers, a CMake package
# (find_package(memrep) gives memrep::memrep, memrep::memrep_static and, with
# the plugin, memrep::rocksdb and memrep::rocksdb_static) and pkg-config files.
include(CMakePackageConfigHelpers)

set(MEMREP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/memrep)
set(install_targets memrep_static memrep_shared)
if(MEMREP_WITH_ROCKSDB)
  list(APPEND install_targets memrep_rocksdb memrep_rocksdb_static)
endif()
install(TARGETS ${install_targets} EXPORT memrepTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/memrep DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN "rocksdb.h" EXCLUDE)
if(MEMREP_WITH_ROCKSDB)
  install(FILES include/memrep/rocksdb.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memrep)
endif()
install(FILES ${PROJECT_BINARY_DIR}/include/memrep/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memrep)
install(EXPORT memrepTargets NAMESPACE memrep:: DESTINATION ${MEMREP_CMAKE_DIR})

set(MEMREP_HAS_ROCKSDB ${MEMREP_WITH_ROCKSDB})
configure_package_config_file(cmake/memrepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/memrepConfig.cmake INSTALL_DESTINATION ${MEMREP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memrepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/memrepConfig.cmake ${PROJECT_BINARY_DIR}/memrepConfigVersion.cmake
  DESTINATION ${MEMREP_CMAKE_DIR})

configure_file(cmake/memrep.pc.in ${PROJECT_BINARY_DIR}/memrep.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/memrep.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(MEMREP_WITH_ROCKSDB)
  configure_file(cmake/memrep-rocksdb.pc.in ${PROJECT_BINARY_DIR}/memrep-rocksdb.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/memrep-rocksdb.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
