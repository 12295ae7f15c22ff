# The vendors' sources of the runtime's optional parts, as the Cargo features find them: a path
# variable names a checkout, or CMake fetches the commit arenaplan is tested against
# (FetchContent, git), as ExecuTorch's own CMake fetches CMSIS-NN. The commits and repositories
# are the ones ../vendors.txt lists for build.rs too.
#
#   arenaplan_vendor_sources(<feature> <path variable> <switch>)
#
# <feature> is a line of vendors.txt (ethos-u-driver, neutron-api, tflite-kernels). When the
# cache variable <path variable> is empty and <switch> is ON, the sources are fetched into the
# build tree and <path variable> is set (for this configure run, not the cache) to the folder
# the part builds from. Override the repository with ARENAPLAN_<FEATURE>_GIT_REPOSITORY (a
# mirror) and, where a mirror's history differs, the commit with ARENAPLAN_<FEATURE>_GIT_TAG;
# CMake's own FETCHCONTENT_SOURCE_DIR_ARENAPLAN_<FEATURE> points at a checkout without fetching.
include_guard(GLOBAL)

function(arenaplan_vendor_sources feature path_var switch)
  if(${path_var} OR NOT ${switch})
    return()
  endif()
  file(STRINGS "${ARENAPLAN_RUNTIME_DIR}/vendors.txt" lines REGEX "^${feature}[|]")
  list(LENGTH lines count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "arenaplan: vendors.txt has no line for `${feature}`")
  endif()
  string(REPLACE "|" ";" fields "${lines}")
  list(GET fields 2 expect)
  list(GET fields 3 what)
  list(GET fields 4 repository)
  list(GET fields 5 commit)
  list(LENGTH fields nfields)
  set(subfolder "")
  if(nfields GREATER 7)
    list(GET fields 7 subfolder)
  endif()
  string(TOUPPER "${feature}" upper)
  string(REPLACE "-" "_" upper "${upper}")
  set(ARENAPLAN_${upper}_GIT_REPOSITORY "${repository}" CACHE STRING
      "Where ${switch} fetches ${what} from (a mirror of ${repository})")
  set(ARENAPLAN_${upper}_GIT_TAG "${commit}" CACHE STRING
      "The commit of ${what} ${switch} fetches (arenaplan is tested against ${commit})")
  if(CMAKE_VERSION VERSION_LESS 3.18)
    message(FATAL_ERROR "arenaplan: ${switch} fetches ${what} with FetchContent, which needs CMake 3.18 or later (this is ${CMAKE_VERSION}): set ${path_var} to a checkout of ${repository} at ${commit} instead")
  endif()
  include(FetchContent)
  string(TOLOWER "arenaplan_${upper}" name)
  message(STATUS "arenaplan: ${switch}: fetching ${what} at ${ARENAPLAN_${upper}_GIT_TAG} (set ${path_var} to use a checkout)")
  # SOURCE_SUBDIR names a folder without a CMakeLists.txt: the sources are fetched, never added
  # as a CMake project (the runtime compiles the files it needs itself).
  FetchContent_Declare(${name}
    GIT_REPOSITORY "${ARENAPLAN_${upper}_GIT_REPOSITORY}"
    GIT_TAG "${ARENAPLAN_${upper}_GIT_TAG}"
    GIT_SUBMODULES ""
    SOURCE_SUBDIR arenaplan-fetches-sources-only)
  FetchContent_MakeAvailable(${name})
  FetchContent_GetProperties(${name} SOURCE_DIR dir)
  if(subfolder)
    set(dir "${dir}/${subfolder}")
  endif()
  if(NOT EXISTS "${dir}/${expect}")
    message(FATAL_ERROR "arenaplan: ${switch}: what was fetched from ${ARENAPLAN_${upper}_GIT_REPOSITORY} at ${ARENAPLAN_${upper}_GIT_TAG} has no ${expect} in ${dir}: set ${path_var} to a checkout of ${repository} at ${commit}")
  endif()
  set(${path_var} "${dir}" PARENT_SCOPE)
endfunction()
