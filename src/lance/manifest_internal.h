#pragma once

/// \file
/// \brief What the manifest reader (`manifest.cc`) and the manifest rewriter
/// (`manifest_rewrite.cc`) share: the framing of a manifest file and the bounded protobuf
/// parse. Internal to `lance/*.cc`: it names protobuf types, which public headers do not.
///
/// A manifest file: optional sections (the index section, an inline transaction), each a
/// `u32 LE` length and a message; the `Manifest` message, likewise length-prefixed; then
/// the 16-byte footer `u64 LE position of the manifest | u16 major | u16 minor | "LANC"`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>

#include "common/result.h"

namespace cairn::lance::internal {

inline constexpr size_t kFooterBytes = 16;
inline constexpr size_t kLengthPrefixBytes = 4;
/// Protobuf's own default is 100; a manifest nests three messages deep (Manifest >
/// DataFragment > DataFile), so anything deeper is garbage or an attack.
inline constexpr int kProtobufRecursionLimit = 32;

/// \brief The `width`-byte little-endian number at `offset` (which must be in range).
uint64_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t width);

/// \brief Appends `value` as `width` little-endian bytes.
void PutLittleEndian(std::string& out, uint64_t value, size_t width);

/// \brief `kInternal`: "not a valid Lance manifest: <why>".
tl::unexpected<Error> NotAManifest(std::string_view why);

/// \brief The length-prefixed message at `position` of `file`, ending at or before `end`.
/// Errors: `NotAManifest` naming `what` when it does not fit.
Result<std::string_view> MessageAt(std::string_view file, uint64_t position, size_t end,
                                   std::string_view what);

/// \brief The `Manifest` message of a manifest file, after checking the file's size
/// (`kMaxManifestBytes`) and footer. Errors: `kInternal`.
Result<std::string_view> ManifestMessage(std::string_view file);

/// \brief Parses `bytes` into `message` with protobuf's parser under
/// `kProtobufRecursionLimit`, its log silenced. False when the bytes are not a
/// well-formed message of that type.
bool ParseBounded(std::string_view bytes, google::protobuf::MessageLite& message);

}  // namespace cairn::lance::internal
