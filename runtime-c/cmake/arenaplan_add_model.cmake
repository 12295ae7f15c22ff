# arenaplan_add_model(TARGET <target> MODEL <model> PLATFORM <arenaplan target>
#                     [NAME <base name>] [TARGETS <targets.toml>] [SOURCES <file>...]
#                     [BLOBS INCBIN|C] [EXECUTORCH_KERNELS]
#                     [LINKER_SCRIPT <memory map> | NO_LINKER_SCRIPT])
#
# Plans MODEL for PLATFORM when the build runs (again whenever the model, a targets file or a
# scanned source changes) and adds the generated C to TARGET: NAME.h and NAME_program.h on its
# include path, NAME.c and NAME_program.c to its sources. NAME (default `model`) is the files'
# base name and the C prefix: NAME_init, NAME_input, NAME_run, NAME_output, NAME_deinit. The
# linker fragment NAME.x, NAME.plan.json and NAME.report.txt are written beside them, in
# ${CMAKE_CURRENT_BINARY_DIR}/arenaplan/<NAME>; ARENAPLAN_<NAME>_DIR names that folder.
#
# A cross build (CMAKE_SYSTEM_NAME Generic) links with the linker fragment: LINKER_SCRIPT names
# the firmware's own script (its MEMORY and SECTIONS), and TARGET (what links TARGET, for a
# library) is linked with -T arenaplan/NAME.main.ld (in the binary folder), which INCLUDEs that
# script and then NAME.x: each pool's arena becomes a NOLOAD section in the memory region its
# pool names (SRAM, DDR, ...; the script must define them), inserted before .bss, with an ASSERT
# that it fits. (GNU ld takes the fragment's INSERT only from within the main script.)
# NO_LINKER_SCRIPT says the project's own script INCLUDEs NAME.x (the folder is on the library
# path); a cross build with neither is refused, since the arenas would otherwise land wherever
# the default script puts orphan sections. Hosted builds take neither.
#
# BLOBS INCBIN (the default) writes each delegate blob as NAME_blobN.bin there, which
# NAME_program.c links with the assembler's .incbin (found on the include path this adds; GCC
# or Clang for an ELF target); BLOBS C writes the blobs as C arrays, for any C99 compiler, at
# about six bytes of C to compile per byte of blob.
#
# A program whose operators run on ExecuTorch's own kernels (an ExecuTorch .pte) takes
# EXECUTORCH_KERNELS: the model is then planned when CMake configures (and again when the model
# or a targets file changes), because which kernel files to compile depends on its operators.
# The function adds a C++ static library NAME_kernels, linked into TARGET: the generated shims
# and one unit per kernel file (each compiled for the dtypes the program uses), ExecuTorch's
# shared utilities from ARENAPLAN_EXECUTORCH (default: the EXECUTORCH_PATH environment
# variable, a checkout of ExecuTorch's sources in a folder named `executorch`), and the bridge
# (runtime-c/kernels/executorch/bridge), with the flags NAME_kernels.cmake lists (the same as a
# Cargo build's). The Cortex-M backend's kernels need ARENAPLAN_CMSIS_NN too. A cross build
# (CMAKE_SYSTEM_NAME Generic) compiles them freestanding: no C++ library, no exceptions. The
# project enables C++ first (project(... C CXX)).
#
# ARENAPLAN_COMMAND is how the CLI runs: the installed `arenaplan` when it is on the PATH, else
# Cargo in the checkout this file belongs to. Cargo builds the CLI once, when CMake configures,
# with its progress shown (minutes the first time on a small machine); later runs only check it.
if(NOT DEFINED ARENAPLAN_COMMAND)
  find_program(ARENAPLAN_INSTALLED arenaplan)
  get_filename_component(ARENAPLAN_CHECKOUT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
  if(ARENAPLAN_INSTALLED)
    set(ARENAPLAN_COMMAND "${ARENAPLAN_INSTALLED}" CACHE STRING "How to run the arenaplan CLI")
  elseif(EXISTS "${ARENAPLAN_CHECKOUT}/build-support/cli/Cargo.toml")
    message(STATUS "arenaplan: no `arenaplan` on the PATH; building it with Cargo from ${ARENAPLAN_CHECKOUT} (the first time takes minutes; `cargo install --path build-support/cli` there avoids it)")
    # From the checkout, so that its .cargo/config.toml finds the vendor sources; without the
    # CC that CMake exports while it configures (the firmware's cross compiler, not the host's).
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -E env --unset=CC --unset=CXX
              cargo build --manifest-path "${ARENAPLAN_CHECKOUT}/Cargo.toml" --bin arenaplan
      WORKING_DIRECTORY "${ARENAPLAN_CHECKOUT}"
      RESULT_VARIABLE cli_status)
    if(NOT cli_status EQUAL 0)
      message(FATAL_ERROR "arenaplan: building the arenaplan CLI with Cargo failed (its messages are above)")
    endif()
    set(ARENAPLAN_COMMAND
        "${CMAKE_COMMAND};-E;chdir;${ARENAPLAN_CHECKOUT};${CMAKE_COMMAND};-E;env;--unset=CC;--unset=CXX;cargo;run;--quiet;--manifest-path;${ARENAPLAN_CHECKOUT}/Cargo.toml;--bin;arenaplan;--"
        CACHE STRING "How to run the arenaplan CLI")
  else()
    message(FATAL_ERROR "arenaplan: no `arenaplan` command on the PATH (cargo install arenaplan-cli), and no checkout to run it from: set ARENAPLAN_COMMAND")
  endif()
endif()

function(arenaplan_add_model)
  cmake_parse_arguments(ARG "EXECUTORCH_KERNELS;NO_LINKER_SCRIPT" "TARGET;MODEL;PLATFORM;NAME;TARGETS;BLOBS;LINKER_SCRIPT" "SOURCES"
                        ${ARGN})
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
  if(ARG_EXECUTORCH_KERNELS)
    arenaplan_add_executorch_kernels()
  endif()
  add_custom_command(
    OUTPUT ${generated} "${out}/${ARG_NAME}.h" "${out}/${ARG_NAME}_program.h" "${out}/${ARG_NAME}.x"
           ${kernel_units}
    COMMAND ${ARENAPLAN_COMMAND} ${args}
    DEPENDS ${depends}
    COMMENT "arenaplan: planning ${ARG_MODEL} for ${ARG_PLATFORM}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE ${generated})
  target_include_directories(${ARG_TARGET} PRIVATE "${out}")
  if(ARG_LINKER_SCRIPT AND ARG_NO_LINKER_SCRIPT)
    message(FATAL_ERROR "arenaplan_add_model: LINKER_SCRIPT and NO_LINKER_SCRIPT exclude each other")
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
    get_target_property(type ${ARG_TARGET} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(scope PRIVATE)
    else()
      set(scope INTERFACE)
    endif()
    # NAME.x INCLUDEs the per-pool scripts beside it: the folder goes on the library path.
    target_link_options(${ARG_TARGET} ${scope} "-L${out}")
    if(ARG_LINKER_SCRIPT)
      get_filename_component(memory_map "${ARG_LINKER_SCRIPT}" ABSOLUTE)
      # Beside the output folder, which arenaplan replaces as a whole.
      set(main_script "${CMAKE_CURRENT_BINARY_DIR}/arenaplan/${ARG_NAME}.main.ld")
      file(WRITE "${main_script}.in"
           "/* Written by arenaplan_add_model: the firmware's script, then the model's arenas. */\n"
           "INCLUDE \"${memory_map}\"\nINCLUDE \"${ARG_NAME}.x\"\n")
      configure_file("${main_script}.in" "${main_script}" COPYONLY)
      target_link_options(${ARG_TARGET} ${scope} "-T${main_script}")
      foreach(property LINK_DEPENDS INTERFACE_LINK_DEPENDS)
        set_property(TARGET ${ARG_TARGET} APPEND PROPERTY ${property}
                     "${memory_map}" "${out}/${ARG_NAME}.x")
      endforeach()
    elseif(NOT ARG_NO_LINKER_SCRIPT)
      message(FATAL_ERROR "arenaplan_add_model: a cross build needs the model's arenas in the firmware's memory map: pass LINKER_SCRIPT <your .ld> (its MEMORY must define the regions ${ARG_PLATFORM}'s pools name), or NO_LINKER_SCRIPT if your script ends with INCLUDE ${ARG_NAME}.x")
    endif()
  endif()
  set(ARENAPLAN_${ARG_NAME}_DIR "${out}" PARENT_SCOPE)
endfunction()

set(ARENAPLAN_EXECUTORCH "$ENV{EXECUTORCH_PATH}" CACHE PATH
    "A checkout of ExecuTorch's sources (a folder named executorch), for programs whose operators run on its kernels")
set(ARENAPLAN_KERNELS_BRIDGE "${CMAKE_CURRENT_LIST_DIR}/../kernels/executorch/bridge" CACHE INTERNAL
    "The bridge to ExecuTorch's kernels (arenaplan-kernels' bridge/)")

# arenaplan_add_model's EXECUTORCH_KERNELS, in its scope (args, depends, out, ARG_*): plans now,
# reads NAME_kernels.cmake and adds the NAME_kernels library; sets kernel_units there.
macro(arenaplan_add_executorch_kernels)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${depends})
  execute_process(COMMAND ${ARENAPLAN_COMMAND} ${args}
                  RESULT_VARIABLE plan_status ERROR_VARIABLE plan_errors OUTPUT_QUIET)
  if(NOT plan_status EQUAL 0)
    message(FATAL_ERROR "arenaplan_add_model: planning ${ARG_MODEL} for ${ARG_PLATFORM} failed:\n${plan_errors}")
  endif()
  set(kernel_list "${out}/${ARG_NAME}_kernels.cmake")
  set(kernel_units "")
  if(EXISTS "${kernel_list}")
    if(NOT EXISTS "${ARENAPLAN_EXECUTORCH}/kernels/portable/cpu/op_add.cpp")
      message(FATAL_ERROR "arenaplan_add_model: ${ARG_MODEL}'s operators run on ExecuTorch's own kernels: set ARENAPLAN_EXECUTORCH (or the environment's EXECUTORCH_PATH) to a checkout of ExecuTorch's sources, found `${ARENAPLAN_EXECUTORCH}`")
    endif()
    include("${kernel_list}")
    foreach(unit ${ARENAPLAN_KERNEL_UNITS})
      list(APPEND kernel_units "${out}/${unit}")
    endforeach()
    set(kernel_sources ${kernel_units} "${ARENAPLAN_KERNELS_BRIDGE}/${ARENAPLAN_KERNEL_BRIDGE_SOURCE}")
    foreach(source ${ARENAPLAN_EXECUTORCH_SOURCES})
      list(APPEND kernel_sources "${ARENAPLAN_EXECUTORCH}/${source}")
    endforeach()
    if(NOT CMAKE_CXX_COMPILER_LOADED)
      message(FATAL_ERROR "arenaplan_add_model: ${ARG_MODEL}'s operators run on ExecuTorch's kernels, which are C++: enable it first (project(... C CXX), or enable_language(CXX))")
    endif()
    add_library(${ARG_NAME}_kernels STATIC ${kernel_sources})
    get_filename_component(executorch_parent "${ARENAPLAN_EXECUTORCH}" DIRECTORY)
    target_include_directories(${ARG_NAME}_kernels PRIVATE
      "${executorch_parent}" "${ARENAPLAN_EXECUTORCH}/runtime/core/portable_type/c10"
      "${ARENAPLAN_KERNELS_BRIDGE}" "${out}")
    if(ARENAPLAN_KERNELS_NEED_CMSIS_NN)
      if(NOT ARENAPLAN_CMSIS_NN)
        message(FATAL_ERROR "arenaplan_add_model: ${ARG_MODEL}'s Cortex-M operators call CMSIS-NN: set ARENAPLAN_CMSIS_NN (or the environment's CMSIS_NN_PATH) to a checkout of Arm's CMSIS-NN")
      endif()
      target_include_directories(${ARG_NAME}_kernels PRIVATE "${ARENAPLAN_CMSIS_NN}/Include")
    endif()
    target_compile_options(${ARG_NAME}_kernels PRIVATE ${ARENAPLAN_KERNEL_FLAGS}
                           -ffunction-sections -fdata-sections -w)
    target_compile_definitions(${ARG_NAME}_kernels PRIVATE ${ARENAPLAN_KERNEL_DEFINES})
    if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
      target_compile_definitions(${ARG_NAME}_kernels PRIVATE AP_ET_FREESTANDING=1)
    endif()
    target_link_libraries(${ARG_NAME}_kernels PUBLIC arenaplan::runtime)
    target_link_libraries(${ARG_TARGET} PRIVATE ${ARG_NAME}_kernels)
  endif()
endmacro()
