# Precompiled headers: the standard, Boost.JSON, fmt, spdlog and tl::expected headers
# that most units include are parsed once per target instead of once per unit. On two
# cores this is the largest share of a cold build (a catalog unit preprocesses to
# ~150,000 lines, most of them these headers), and scripts/test's budget is mostly cold
# builds. Only third-party headers go in: a change to a project header never rebuilds a
# PCH, and what a unit includes stays visible in the unit (the PCH adds, never replaces,
# its #include lines; include-what-you-use still holds).
# Clang only (the dev, fuzz and tidy toolchain, i.e. scripts/test's builds): with GCC 12 a
# PCH brought in by -include turns libstdc++'s inlined code into "ours" for -O3's
# -Wstringop-overread false positives, which -Werror then refuses in the release build.
# CAIRN_PCH=OFF builds without them (to check that every unit includes what it uses).
option(CAIRN_PCH "Precompile the common third-party headers of each target" ON)

set(CAIRN_PCH_HEADERS
  <algorithm> <array> <chrono> <cstddef> <cstdint> <functional> <map> <memory>
  <optional> <string> <string_view> <utility> <vector>
  <boost/json.hpp> <fmt/format.h> <spdlog/spdlog.h> <tl/expected.hpp>)

# Adds the common precompiled headers (and `extra` ones, e.g. GoogleTest's) to `target`.
function(cairn_use_pch target)
  if(NOT CAIRN_PCH OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${CAIRN_PCH_HEADERS} ${ARGN})
endfunction()
