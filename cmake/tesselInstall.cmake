# `cmake --install`: the libraries and their headers, and the CMake package that lets another
# project write find_package(tessel CONFIG) and link tessel::tessel (and tessel::cli for the command
# line over its own kernels).
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
