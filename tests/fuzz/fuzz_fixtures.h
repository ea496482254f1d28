#pragma once

/// \file
/// \brief Base metadata that the commit harnesses apply parsed updates to, read once from
/// the spec fixtures in tests/resources (`CAIRN_FUZZ_RESOURCES`). A fixture that does not
/// load is a broken setup, not a finding: the harness aborts with a message.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "iceberg/json_serde.h"
#include "iceberg/view_json_serde.h"

namespace cairn::fuzz {

inline std::string ReadFixture(const char* name) {
  const std::string path = std::string(CAIRN_FUZZ_RESOURCES) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read fixture %s\n", path.c_str());
    std::abort();
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// \brief The fixture `name` parsed by `parse`; aborts when it does not parse (a broken
/// harness, not a finding).
template <class Parse>
auto ParseFixture(const char* name, Parse parse) {
  auto parsed = parse(ReadFixture(name));
  if (!parsed) {
    std::fprintf(stderr, "fixture %s does not parse: %s\n", name,
                 parsed.error().message.c_str());
    std::abort();
  }
  return std::move(*parsed);
}

/// \brief TableMetadataV2Valid.json, parsed.
inline const iceberg::TableMetadata& TableBase() {
  static const iceberg::TableMetadata base = ParseFixture(
      "TableMetadataV2Valid.json",
      [](const std::string& text) { return iceberg::TableMetadataFromJsonString(text); });
  return base;
}

/// \brief ViewMetadataV1Valid.json, parsed.
inline const iceberg::ViewMetadata& ViewBase() {
  static const iceberg::ViewMetadata base = ParseFixture(
      "ViewMetadataV1Valid.json",
      [](const std::string& text) { return iceberg::ViewMetadataFromJsonString(text); });
  return base;
}

/// \brief A fixed clock for the builders, so that runs are reproducible.
inline constexpr int64_t kNowMs = 1767225600000;  // 2026-01-01T00:00:00Z

}  // namespace cairn::fuzz
