# `cmake --install` gives a package that find_package(pplab) finds: pplab::pplab.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS pplab EXPORT pplabTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/pplab DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pplabTargets NAMESPACE pplab:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pplab)
configure_package_config_file(cmake/pplabConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/pplabConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pplab)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/pplabConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pplabConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/pplabConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pplab)
if(TARGET pplab_cli)
  install(TARGETS pplab_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
