# One static library per layer, and an include root per library that holds only the
# folders of that layer. A library sees the headers of its own layer and, through its
# PUBLIC link edges, those of the layers below — never those above: an `#include` that
# runs against the layers fails to compile (`docs/ARCHITECTURE.md`).
#
#   cairn_layer(NAME <library> DIRS <folder under src/>... SOURCES <file>... DEPS <lib>...)
function(cairn_layer)
  cmake_parse_arguments(LAYER "" "NAME" "DIRS;SOURCES;DEPS" ${ARGN})
  set(root ${PROJECT_BINARY_DIR}/layers/${LAYER_NAME})
  foreach(dir IN LISTS LAYER_DIRS)
    file(MAKE_DIRECTORY ${root})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${dir} ${root}/${dir} SYMBOLIC)
  endforeach()
  list(TRANSFORM LAYER_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/src/)
  add_library(${LAYER_NAME} STATIC ${LAYER_SOURCES})
  target_include_directories(${LAYER_NAME} PUBLIC ${root})
  target_link_libraries(${LAYER_NAME} PUBLIC ${LAYER_DEPS})
  cairn_set_warnings(${LAYER_NAME})
  cairn_use_pch(${LAYER_NAME})
endfunction()
