# `cmake --install`: the libraries and their headers, and the CMake package that lets another
# project write find_package(tessel CONFIG) and link tessel::tessel (and tessel::cli for the command
# line over its own kernels); and the same package in the build folder.
include(CMakePackageConfigHelpers)

set(TESSEL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tessel)
set(TESSEL_INSTALLED_LIBRARIES tessel)
if(TARGET tessel_cli_library)
  list(APPEND TESSEL_INSTALLED_LIBRARIES tessel_cli_library)
endif()
install(TARGETS ${TESSEL_INSTALLED_LIBRARIES} EXPORT tesselTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/tessel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tesselTargets NAMESPACE tessel:: DESTINATION ${TESSEL_PACKAGE_DIR})

configure_package_config_file(cmake/tesselConfig.cmake.in ${PROJECT_BINARY_DIR}/tesselConfig.cmake
                              INSTALL_DESTINATION ${TESSEL_PACKAGE_DIR})
# tessel is young: only the same minor version is taken to be compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tesselConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tesselConfig.cmake ${PROJECT_BINARY_DIR}/tesselConfigVersion.cmake
              cmake/tesselNvrtc.cmake
        DESTINATION ${TESSEL_PACKAGE_DIR})

# The build folder is a package as well: find_package(tessel CONFIG) with CMAKE_PREFIX_PATH (or
# tessel_DIR) at it takes the libraries where they were built and the headers from the sources.
export(EXPORT tesselTargets NAMESPACE tessel:: FILE ${PROJECT_BINARY_DIR}/tesselTargets.cmake)
configure_file(cmake/tesselNvrtc.cmake ${PROJECT_BINARY_DIR}/tesselNvrtc.cmake COPYONLY)
