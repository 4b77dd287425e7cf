# memplan's areas: one static library per folder of src/, each with the areas it may use.
#
#   memplan_area(NAME [DEPENDS AREA...] [HEADERS HEADER...])
#
# makes the target memplan_NAME (sources are added by src/NAME/CMakeLists.txt), links it to
# the areas it DEPENDS on, and records which public headers (include/memplan/HEADER) are
# the area's. memplan_check_area_includes(), called once every area is declared, adds a
# build step per area that fails when one of its files (src/NAME/**, its public headers)
# includes a header of an area it does not declare, or another area's internal header.

set(MEMPLAN_AREA_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/check_area_includes.cmake)

function(memplan_area name)
  cmake_parse_arguments(PARSE_ARGV 1 area "" "" "DEPENDS;HEADERS")
  set(target memplan_${name})
  add_library(${target} STATIC)
  # Build and install interfaces: installed, the headers are under the include directory
  # (cmake/install.cmake exports every area).
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                             PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC fmt::fmt PRIVATE $<BUILD_INTERFACE:memplan_warnings>
                        nlohmann_json::nlohmann_json Threads::Threads)
  foreach(dependency IN LISTS area_DEPENDS)
    target_link_libraries(${target} PUBLIC memplan_${dependency})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY MEMPLAN_AREAS ${name})
  set_property(GLOBAL PROPERTY MEMPLAN_AREA_${name}_DEPENDS ${area_DEPENDS})
  set_property(GLOBAL PROPERTY MEMPLAN_AREA_${name}_HEADERS ${area_HEADERS})
  foreach(header IN LISTS area_HEADERS)
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/include/memplan/${header})
      message(FATAL_ERROR "area ${name} declares include/memplan/${header}, which does not exist")
    endif()
    set_property(GLOBAL APPEND PROPERTY MEMPLAN_HEADER_OWNERS ${header}=${name})
  endforeach()
endfunction()

function(memplan_check_area_includes)
  get_property(areas GLOBAL PROPERTY MEMPLAN_AREAS)
  get_property(owners GLOBAL PROPERTY MEMPLAN_HEADER_OWNERS)
  # Every public header belongs to exactly one area.
  file(GLOB public_headers RELATIVE ${PROJECT_SOURCE_DIR}/include/memplan
       CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/memplan/*.h)
  foreach(header IN LISTS public_headers)
    if(NOT "${owners}" MATCHES "(^|;)${header}=")
      message(FATAL_ERROR "include/memplan/${header} belongs to no area: add it to the "
                          "HEADERS of its area in src/CMakeLists.txt")
    endif()
  endforeach()
  foreach(name IN LISTS areas)
    get_property(depends GLOBAL PROPERTY MEMPLAN_AREA_${name}_DEPENDS)
    get_property(headers GLOBAL PROPERTY MEMPLAN_AREA_${name}_HEADERS)
    file(GLOB_RECURSE files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc
         ${PROJECT_SOURCE_DIR}/src/${name}/*.h)
    foreach(header IN LISTS headers)
      list(APPEND files ${PROJECT_SOURCE_DIR}/include/memplan/${header})
    endforeach()
    set(arguments ${CMAKE_CURRENT_BINARY_DIR}/area_${name}_includes.cmake)
    set(stamp ${CMAKE_CURRENT_BINARY_DIR}/area_${name}_includes.stamp)
    file(CONFIGURE OUTPUT ${arguments} CONTENT
         "set(AREA [[${name}]])\nset(ALLOWED [[${depends}]])\nset(OWNERS [[${owners}]])\n\
set(FILES [[${files}]])\nset(STAMP [[${stamp}]])\n")
    add_custom_command(
      OUTPUT ${stamp}
      COMMAND ${CMAKE_COMMAND} -DARGS=${arguments} -P ${MEMPLAN_AREA_CHECK_SCRIPT}
      DEPENDS ${files} ${arguments} ${MEMPLAN_AREA_CHECK_SCRIPT}
      COMMENT "Checking the includes of area ${name}"
      VERBATIM)
    add_custom_target(memplan_${name}_includes DEPENDS ${stamp})
    add_dependencies(memplan_${name} memplan_${name}_includes)
  endforeach()
endfunction()
