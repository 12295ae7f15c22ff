# arenaplan_add_model(TARGET <target> MODEL <model> PLATFORM <arenaplan target>
#                     [NAME <base name>] [TARGETS <targets.toml>] [SOURCES <file>...]
#                     [BLOBS INCBIN|C])
#
# Plans MODEL for PLATFORM when the build runs (again whenever the model, a targets file or a
# scanned source changes) and adds the generated C to TARGET: NAME.h and NAME_program.h on its
# include path, NAME.c and NAME_program.c to its sources. NAME (default `model`) is the files'
# base name and the C prefix: NAME_init, NAME_input, NAME_run, NAME_output, NAME_deinit. The
# linker fragment NAME.x, NAME.plan.json and NAME.report.txt are written beside them, in
# ${CMAKE_CURRENT_BINARY_DIR}/arenaplan/<NAME>; ARENAPLAN_<NAME>_DIR names that folder.
#
# BLOBS INCBIN (the default) writes each delegate blob as NAME_blobN.bin there, which
# NAME_program.c links with the assembler's .incbin (found on the include path this adds; GCC
# or Clang for an ELF target); BLOBS C writes the blobs as C arrays, for any C99 compiler, at
# about six bytes of C to compile per byte of blob.
#
# ARENAPLAN_COMMAND is how the CLI runs: the installed `arenaplan` when it is on the PATH, else
# Cargo in the checkout this file belongs to.
if(NOT DEFINED ARENAPLAN_COMMAND)
  find_program(ARENAPLAN_INSTALLED arenaplan)
  get_filename_component(ARENAPLAN_CHECKOUT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
  if(ARENAPLAN_INSTALLED)
    set(ARENAPLAN_COMMAND "${ARENAPLAN_INSTALLED}" CACHE STRING "How to run the arenaplan CLI")
  elseif(EXISTS "${ARENAPLAN_CHECKOUT}/build-support/cli/Cargo.toml")
    set(ARENAPLAN_COMMAND
        "cargo;run;--quiet;--manifest-path;${ARENAPLAN_CHECKOUT}/Cargo.toml;--bin;arenaplan;--"
        CACHE STRING "How to run the arenaplan CLI")
  else()
    message(FATAL_ERROR "arenaplan: no `arenaplan` command on the PATH (cargo install arenaplan-cli), and no checkout to run it from: set ARENAPLAN_COMMAND")
  endif()
endif()

function(arenaplan_add_model)
  cmake_parse_arguments(ARG "" "TARGET;MODEL;PLATFORM;NAME;TARGETS;BLOBS" "SOURCES" ${ARGN})
  foreach(required TARGET MODEL PLATFORM)
    if(NOT ARG_${required})
      message(FATAL_ERROR "arenaplan_add_model: ${required} is required (arenaplan_add_model(TARGET app MODEL model.pte PLATFORM corstone-300))")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "arenaplan_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "arenaplan_add_model: `${ARG_TARGET}` is not a target (add_executable or add_library it first)")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME model)
  endif()
  if(NOT ARG_BLOBS)
    set(ARG_BLOBS INCBIN)
  endif()
  if(ARG_BLOBS STREQUAL "INCBIN")
    set(blobs incbin)
  elseif(ARG_BLOBS STREQUAL "C")
    set(blobs c)
  else()
    message(FATAL_ERROR "arenaplan_add_model: BLOBS is INCBIN (blob files linked with .incbin) or C (C arrays), found `${ARG_BLOBS}`")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/arenaplan/${ARG_NAME}")
  set(args plan --target ${ARG_PLATFORM} --model "${model}" --name ${ARG_NAME}
           --emit c,linker,json,report --blobs ${blobs} --out "${out}")
  set(depends "${model}")
  if(ARG_TARGETS)
    get_filename_component(targets "${ARG_TARGETS}" ABSOLUTE)
    list(APPEND args --targets "${targets}")
    list(APPEND depends "${targets}")
  endif()
  foreach(source ${ARG_SOURCES})
    get_filename_component(source "${source}" ABSOLUTE)
    list(APPEND args --source "${source}")
    list(APPEND depends "${source}")
  endforeach()
  set(generated "${out}/${ARG_NAME}.c" "${out}/${ARG_NAME}_program.c")
  add_custom_command(
    OUTPUT ${generated} "${out}/${ARG_NAME}.h" "${out}/${ARG_NAME}_program.h"
    COMMAND ${ARENAPLAN_COMMAND} ${args}
    DEPENDS ${depends}
    COMMENT "arenaplan: planning ${ARG_MODEL} for ${ARG_PLATFORM}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${generated})
  target_include_directories(${ARG_TARGET} PRIVATE "${out}")
  set(ARENAPLAN_${ARG_NAME}_DIR "${out}" PARENT_SCOPE)
endfunction()
