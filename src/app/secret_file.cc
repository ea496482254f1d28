#include "app/secret_file.h"

#include <fstream>
#include <ios>

namespace cairn {

Result<std::string> ReadSecretFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string value(kMaxSecretFileBytes + 1, '\0');
  in.read(value.data(), static_cast<std::streamsize>(value.size()));
  if (!in && !in.eof()) return InvalidConfig("cannot read '{}'", path);
  value.resize(static_cast<size_t>(in.gcount()));
  if (value.size() > kMaxSecretFileBytes) {
    return InvalidConfig("'{}' is larger than {} bytes", path, kMaxSecretFileBytes);
  }
  value.resize(value.find_first_of("\r\n") == std::string::npos
                   ? value.size()
                   : value.find_first_of("\r\n"));
  if (value.empty()) return InvalidConfig("'{}' is empty", path);
  return value;
}

}  // namespace cairn
