# Runs the build's include check (cmake/check_area_includes.cmake) on one file as area
# offsets, which declares core only, and checks its verdict: tests/CMakeLists.txt's
# area_includes_* tests.
#   cmake -DSCRIPT=check_area_includes.cmake -DFILE=x.cc -DWORK=dir -DEXPECT=pass|fail
#         [-DMESSAGE=regex] -P check.cmake
set(arguments ${WORK}/area_check_arguments.cmake)
set(stamp ${WORK}/area_check.stamp)
file(REMOVE ${stamp})
file(WRITE ${arguments}
     "set(AREA offsets)\nset(ALLOWED core)\n"
     "set(OWNERS offsets.h=offsets problem.h=core tflite.h=formats)\n"
     "set(FILES [[${FILE}]])\nset(STAMP [[${stamp}]])\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DARGS=${arguments} -P ${SCRIPT}
                RESULT_VARIABLE result ERROR_VARIABLE errors OUTPUT_VARIABLE output)
if(EXPECT STREQUAL "pass")
  if(NOT result EQUAL 0 OR NOT EXISTS ${stamp})
    message(FATAL_ERROR "the check rejected ${FILE}:\n${errors}")
  endif()
else()
  if(result EQUAL 0 OR EXISTS ${stamp})
    message(FATAL_ERROR "the check passed ${FILE}, which includes what offsets does not declare")
  endif()
  if(NOT errors MATCHES "${MESSAGE}")
    message(FATAL_ERROR "the check's message does not match '${MESSAGE}':\n${errors}")
  endif()
endif()
