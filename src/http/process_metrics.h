#pragma once

/// \file
/// \brief The process's own metrics in Prometheus's standard names, read from the kernel
/// at each scrape: `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
/// `process_open_fds`, `process_max_fds`, `process_cpu_seconds_total` and
/// `process_start_time_seconds`. A value the kernel does not give is left out.

#include <string>

namespace cairn {

/// \brief Appends the process metrics, with their HELP and TYPE lines, to `out`.
void AppendProcessMetrics(std::string& out);

}  // namespace cairn
