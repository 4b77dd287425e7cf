# Install rules and the package other projects use: find_package(memplan) (memplan::memplan,
# memplan::command, memplan_tflm_model) and pkg-config (memplan.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The library's targets, in link order: the one place to extend when the library becomes
# several targets (each must then be listed here, memplan, the one consumers link, first).
set(MEMPLAN_LIBRARY_TARGETS memplan ${MEMPLAN_AREA_TARGETS})
set(memplan_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/memplan)

# Two export sets: the library (component `library`), and the command alone (component
# `command`), which a firmware build cross-compiling for another machine can use without the
# library's dependencies.
install(TARGETS ${MEMPLAN_LIBRARY_TARGETS} EXPORT memplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/memplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT memplanTargets NAMESPACE memplan:: DESTINATION ${memplan_package_dir})
set_target_properties(memplan_cli PROPERTIES EXPORT_NAME command)
install(TARGETS memplan_cli EXPORT memplanCommandTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT memplanCommandTargets NAMESPACE memplan:: DESTINATION ${memplan_package_dir})

configure_package_config_file(cmake/memplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/memplanConfig.cmake
                              INSTALL_DESTINATION ${memplan_package_dir})
# Before 1.0 a new minor version may change the API: only the same minor version matches.
# Any pointer size: a firmware build for a 32-bit target uses the command (memplanConfig.cmake
# refuses the library itself to a project built for another pointer size).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/memplanConfig.cmake
              ${PROJECT_BINARY_DIR}/memplanConfigVersion.cmake cmake/memplanTflmModel.cmake
        DESTINATION ${memplan_package_dir})

# pkg-config: the static libraries, then what they link.
set(MEMPLAN_PC_LIBS "")
foreach(library IN LISTS MEMPLAN_LIBRARY_TARGETS)
  get_target_property(output_name ${library} OUTPUT_NAME)
  if(NOT output_name)
    set(output_name ${library})
  endif()
  string(APPEND MEMPLAN_PC_LIBS " -l${output_name}")
endforeach()
string(STRIP "${MEMPLAN_PC_LIBS}" MEMPLAN_PC_LIBS)
# The prefix from the file's own place, so the file is right wherever --prefix puts it.
file(RELATIVE_PATH MEMPLAN_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/memplan.pc.in ${PROJECT_BINARY_DIR}/memplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/memplan.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
