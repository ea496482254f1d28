#pragma once

/// \file
/// \brief Lance manifest files for tests: the fixtures LanceDB 0.39 wrote
/// (tests/data/lance) and manifests built here from the generated messages, framed as
/// Lance frames them (an optional index section at offset 0, the length-prefixed
/// `Manifest`, then `u64 position | u16 major | u16 minor | "LANC"`).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lance/proto/manifest.pb.h"

namespace cairn::lance::test {

/// The bytes of the fixture `name` in tests/data/lance.
inline std::string FixtureBytes(const std::string& name) {
  std::ifstream in(std::filesystem::path(CAIRN_TEST_DATA) / "lance" / name,
                   std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void PutLittleEndian(std::string& out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

/// `message` (any bytes) framed as a manifest file's message, after `prefix`.
inline std::string FramedMessage(const std::string& message,
                                 const std::string& prefix = "") {
  std::string out = prefix;
  const uint64_t position = out.size();
  PutLittleEndian(out, message.size(), 4);
  out += message;
  PutLittleEndian(out, position, 8);
  PutLittleEndian(out, 0, 2);
  PutLittleEndian(out, 2, 2);
  return out + "LANC";
}

/// A manifest of `version` with no fields and no fragments.
inline pb::Manifest MinimalManifest(uint64_t version) {
  pb::Manifest manifest;
  manifest.set_version(version);
  manifest.mutable_writer_version()->set_library("cairn-test");
  return manifest;
}

inline void AddField(pb::Manifest& manifest, int32_t id, int32_t parent_id,
                     const std::string& name, const std::string& logical_type,
                     bool nullable = true) {
  auto* field = manifest.add_fields();
  field->set_id(id);
  field->set_parent_id(parent_id);
  field->set_name(name);
  field->set_logical_type(logical_type);
  field->set_nullable(nullable);
}

/// The file of `manifest`; with `indices`, its index section comes first and the
/// manifest points at it.
inline std::string ManifestFile(pb::Manifest manifest,
                                const pb::IndexSection* indices = nullptr) {
  std::string prefix;
  if (indices != nullptr) {
    const std::string section = indices->SerializeAsString();
    PutLittleEndian(prefix, section.size(), 4);
    prefix += section;
    manifest.set_index_section(0);
  }
  return FramedMessage(manifest.SerializeAsString(), prefix);
}

}  // namespace cairn::lance::test
