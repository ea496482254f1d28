#pragma once

/// \file
/// \brief What the libFuzzer harnesses share: an invariant check that reports and aborts
/// (libFuzzer then saves the input as a crash), and the input as a string view.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

/// \brief Aborts with the failed condition when `cond` is false. Only for invariants that
/// hold for every input (round trips that are exact by construction), never for
/// properties that merely usually hold.
#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace cairn::fuzz {

/// \brief True when `CAIRN_FUZZ_STRICT=1`: the harnesses then also assert properties
/// that should hold but are not guaranteed by contract (a written document reads back and
/// writes the same text again). For exploring; the runs of scripts/test leave it off.
inline bool Strict() {
  static const bool strict = [] {
    const char* value = std::getenv("CAIRN_FUZZ_STRICT");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return strict;
}

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// \brief Cuts `text` at the first `\n`: the part before it is returned and removed from
/// `text` together with the newline. Without a newline, all of `text` is returned.
inline std::string_view TakeLine(std::string_view& text) {
  const size_t pos = text.find('\n');
  std::string_view line = text.substr(0, pos);
  text = pos == std::string_view::npos ? std::string_view() : text.substr(pos + 1);
  return line;
}

}  // namespace cairn::fuzz
