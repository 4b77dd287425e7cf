# Checks that the files of one area include only what the area may include: its own
# internal headers (src/<area>/...), its own public headers and the public headers of the
# areas it declares. Run by the build before the area compiles (see MemplanAreas.cmake):
#   cmake -DARGS=area_offsets.cmake -P check_area_includes.cmake
# where the ARGS file sets AREA, ALLOWED (declared areas), OWNERS (HEADER=AREA for every
# public header), FILES (what to check) and STAMP (written when all is well).
# Fails naming the file and the include, and what the area may include.
cmake_minimum_required(VERSION 3.25)
if(DEFINED ARGS)
  include("${ARGS}")
endif()
foreach(required AREA ALLOWED OWNERS FILES STAMP)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "check_area_includes: ${required} is not set")
  endif()
endforeach()

list(APPEND ALLOWED ${AREA})

# The area of each public header: OWNERS is a list of HEADER=AREA.
foreach(pair IN LISTS OWNERS)
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 header)
  list(GET parts 1 owner)
  set(owner_of_${header} ${owner})
endforeach()

set(problems "")
foreach(file IN LISTS FILES)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"(memplan|src)/")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "\"(memplan|src)/([^\"]*)\"" include "${line}")
    set(root ${CMAKE_MATCH_1})
    set(rest ${CMAKE_MATCH_2})
    if(root STREQUAL "memplan")
      if(NOT DEFINED owner_of_${rest})
        list(APPEND problems "${file}: includes \"memplan/${rest}\", a header no area declares")
        continue()
      endif()
      set(target_area ${owner_of_${rest}})
      if(NOT target_area IN_LIST ALLOWED)
        list(APPEND problems
             "${file}: includes \"memplan/${rest}\" of area ${target_area}, which area ${AREA} does not declare")
      endif()
    else()
      # Another area's internal headers are never included; nested folders (formats/tflite)
      # belong to the area of their first folder.
      string(REGEX MATCH "^[^/]+" target_area "${rest}")
      if(NOT target_area STREQUAL AREA)
        list(APPEND problems
             "${file}: includes \"src/${rest}\", an internal header of area ${target_area}")
      endif()
    endif()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " listed)
  string(REPLACE ";" " " allowed_text "${ALLOWED}")
  message(FATAL_ERROR
          "area ${AREA} includes what it does not declare:\n  ${listed}\n"
          "area ${AREA} may include the headers of: ${allowed_text} "
          "(declare a dependency in src/CMakeLists.txt, or move the code)")
endif()
file(WRITE "${STAMP}" "area ${AREA}: includes checked\n")
