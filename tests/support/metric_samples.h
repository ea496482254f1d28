#pragma once

/// \file
/// \brief Reading the process-wide operational metrics back as a scrape sees them, for
/// tests that check what an operation counted. Other tests of the same binary count
/// too: compare a sample before and after the calls that should move it.

#include <string>

#include "common/op_metrics.h"

namespace cairn::test {

/// \brief The exposition of every operational metric, as `/metrics` serves it.
inline std::string Exposition() {
  std::string out;
  metrics::AppendOpMetrics(out);
  return out;
}

/// \brief The value of the sample `series` (name and labels as exposed) in `text`; 0
/// when absent (a histogram series without observations is not exposed).
inline double Sample(const std::string& text, const std::string& series) {
  const std::string prefix = series + " ";
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size()));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return 0;
}

/// \brief The value of the sample `series` now.
inline double Sample(const std::string& series) { return Sample(Exposition(), series); }

}  // namespace cairn::test
