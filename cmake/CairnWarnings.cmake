# Warnings are errors on our own targets only (third-party headers come in as SYSTEM).
# Under Clang (the dev and fuzz presets) the thread-safety analysis runs too: members
# marked CAIRN_GUARDED_BY and functions marked CAIRN_REQUIRES/CAIRN_EXCLUDES
# (common/thread_annotations.h) are checked against the cairn::Mutex locks actually held.
function(cairn_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  set_target_properties(${target} PROPERTIES COMPILE_WARNING_AS_ERROR ON)
endfunction()
