# `cmake --install` gives a package that find_package(pplab) finds: pplab::pplab, pplab::io and
# pplab::lab, and as components the backend modules: pplab::cuda, pplab::nccl and pplab::mpi
# (libpplab loads them itself; a program links one only to call its own functions, such as
# pplab::use_mpi_communicator).
include(CMakePackageConfigHelpers)
# Installed, the libraries find each other beside themselves (libpplab_lab.so needs libpplab.so:
# an executable's run path does not reach its libraries' own needs) and the tool finds them in
# the prefix's lib folder.
# The backend modules (cmake/modules.cmake) are installed beside libpplab, which loads them from
# its own folder.
set(PPLAB_INSTALLED_MODULES "")
foreach(b IN LISTS PPLAB_MODULE_BACKENDS ITEMS vendors)
  if(TARGET pplab_${b})
    list(APPEND PPLAB_INSTALLED_MODULES pplab_${b})
  endif()
endforeach()
set_target_properties(pplab pplab_io pplab_lab ${PPLAB_INSTALLED_MODULES} PROPERTIES
                      INSTALL_RPATH "$ORIGIN")
if(TARGET pplab_cli)
  set_target_properties(pplab_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()
install(TARGETS pplab pplab_io pplab_lab ${PPLAB_INSTALLED_MODULES} EXPORT pplabTargets
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
# For builds without CMake: pkg-config --cflags --libs pplab (the patterns' library).
configure_file(cmake/pplab.pc.in ${CMAKE_CURRENT_BINARY_DIR}/pplab.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pplab.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
