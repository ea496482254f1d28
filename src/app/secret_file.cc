#include "app/secret_file.h"

#include <fstream>
#include <ios>

namespace cairn {

Result<std::string> ReadWholeSecretFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidConfig("cannot read '{}'", path);
  std::string value(max_bytes + 1, '\0');
  in.read(value.data(), static_cast<std::streamsize>(value.size()));
  if (!in && !in.eof()) return InvalidConfig("cannot read '{}'", path);
  value.resize(static_cast<size_t>(in.gcount()));
  if (value.size() > max_bytes) {
    return InvalidConfig("'{}' is larger than {} bytes", path, max_bytes);
  }
  if (value.empty()) return InvalidConfig("'{}' is empty", path);
  return value;
}

Result<std::string> ReadSecretFile(const std::string& path) {
  auto value = ReadWholeSecretFile(path, kMaxSecretFileBytes);
  if (!value) return value;
  value->resize(value->find_first_of("\r\n") == std::string::npos
                    ? value->size()
                    : value->find_first_of("\r\n"));
  if (value->empty()) return InvalidConfig("'{}' is empty", path);
  return value;
}

}  // namespace cairn
