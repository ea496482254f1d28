#include "http/process_metrics.h"

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <sys/resource.h>

namespace cairn {
namespace {

void Append(std::string& out, const char* name, const char* type, const char* help,
            double value) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name,
                     value);
}

// Resident and virtual bytes from /proc/self/statm (pages).
std::optional<std::pair<double, double>> MemoryBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t virtual_pages = 0;
  uint64_t resident_pages = 0;
  if (!(statm >> virtual_pages >> resident_pages)) return std::nullopt;
  const auto page = static_cast<double>(sysconf(_SC_PAGESIZE));
  return std::pair{static_cast<double>(resident_pages) * page,
                   static_cast<double>(virtual_pages) * page};
}

// Open file descriptors: the entries of /proc/self/fd (bounded by the process's limit).
std::optional<double> OpenFds() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/fd", ec);
  if (ec) return std::nullopt;
  double count = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    ++count;
  }
  return count;
}

// Start time: field 22 of /proc/self/stat (clock ticks after boot) plus the boot time.
std::optional<double> StartTimeSeconds() {
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)),
                   std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  uint64_t start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) std::from_chars(field.data(), field.data() + field.size(), start_ticks);
  }
  if (start_ticks == 0) return std::nullopt;
  std::ifstream proc_stat("/proc/stat");
  std::string line;
  while (std::getline(proc_stat, line)) {
    if (line.rfind("btime ", 0) != 0) continue;
    uint64_t boot = 0;
    std::from_chars(line.data() + 6, line.data() + line.size(), boot);
    if (boot == 0) return std::nullopt;
    return static_cast<double>(boot) +
           static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return std::nullopt;
}

}  // namespace

void AppendProcessMetrics(std::string& out) {
  if (auto memory = MemoryBytes()) {
    Append(out, "process_resident_memory_bytes", "gauge",
           "Resident memory size in bytes.", memory->first);
    Append(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
           memory->second);
  }
  if (auto fds = OpenFds()) {
    Append(out, "process_open_fds", "gauge", "Number of open file descriptors.", *fds);
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    Append(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
           static_cast<double>(limit.rlim_cur));
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    Append(out, "process_cpu_seconds_total", "counter",
           "Total user and system CPU time spent in seconds.",
           seconds(usage.ru_utime) + seconds(usage.ru_stime));
  }
  if (auto start = StartTimeSeconds()) {
    Append(out, "process_start_time_seconds", "gauge",
           "Start time of the process since unix epoch in seconds.", *start);
  }
}

}  // namespace cairn
