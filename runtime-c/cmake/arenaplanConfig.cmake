# find_package(arenaplan CONFIG PATHS <arenaplan>/runtime-c/cmake): the runtime's targets
# (arenaplan::runtime, ::ethosu, ::neutron, ::sim) and arenaplan_add_model, built from this
# checkout's (or package's) sources into the caller's build tree. See ../CMakeLists.txt.
if(NOT TARGET arenaplan::runtime)
  add_subdirectory("${CMAKE_CURRENT_LIST_DIR}/.." "${CMAKE_BINARY_DIR}/arenaplan-runtime")
endif()
