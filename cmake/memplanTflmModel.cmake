# memplan_tflm_model(<target> MODEL model.tflite [TARGET host64|arm32|...] [KERNELS reference|...]
#                    [NAME identifier] [OPTIONS embed-flags...])
#
# Plans the model with `memplan embed` at build time and adds the C++ source it writes to
# <target>: NAME.h (the namespace NAME with kModel, kModelSize, kTensorArenaSize,
# kPersistentArenaSize and kNonPersistentArenaSize) and NAME.cc, in
# ${CMAKE_CURRENT_BINARY_DIR}/memplan_models, which becomes an include directory of <target>.
# NAME defaults to the model's file name without its extension, made an identifier
# (mobilenet_v1_0.25_128_quant.tflite: mobilenet_v1_0_25_128_quant), as memplan embed does.
# The sources are made again when the model or the command changes. OPTIONS go to memplan embed as they are (e.g. --dim batch=1, --reorder).
function(memplan_tflm_model target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MODEL;TARGET;KERNELS;NAME" "OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "memplan_tflm_model: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_MODEL)
    message(FATAL_ERROR "memplan_tflm_model(${target}): MODEL model.tflite is required")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "memplan_tflm_model: no target named '${target}'")
  endif()
  get_filename_component(model "${arg_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(arg_NAME)
    set(name "${arg_NAME}")
  else()
    # The model's file name made an identifier as memplan embed makes it: other characters
    # become one '_', none leads or ends, and "model_" goes before a leading digit.
    get_filename_component(name "${model}" NAME_WLE)
    string(REGEX REPLACE "[^A-Za-z0-9_]+" "_" name "${name}")
    string(REGEX REPLACE "__+" "_" name "${name}")
    string(REGEX REPLACE "^_+|_+$" "" name "${name}")
    if(name STREQUAL "" OR name MATCHES "^[0-9]")
      string(PREPEND name "model_")
    endif()
  endif()
  if(NOT name MATCHES "^[A-Za-z][A-Za-z0-9_]*$" OR name MATCHES "__")
    message(FATAL_ERROR "memplan_tflm_model(${target}): NAME '${name}' is not a C identifier "
                        "(letters, digits and single '_', a letter first)")
  endif()
  set(flags --name ${name} --quiet)
  if(arg_TARGET)
    list(APPEND flags --target ${arg_TARGET})
  endif()
  if(arg_KERNELS)
    list(APPEND flags --kernels ${arg_KERNELS})
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/memplan_models")
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${dir}/${name}.h" "${dir}/${name}.cc"
    COMMAND memplan::command embed "${model}" -o "${dir}/${name}.cc" ${flags} ${arg_OPTIONS}
    DEPENDS "${model}" memplan::command
    COMMENT "memplan: ${name}.h and ${name}.cc from ${arg_MODEL}"
    VERBATIM)
  target_sources(${target} PRIVATE "${dir}/${name}.h" "${dir}/${name}.cc")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
