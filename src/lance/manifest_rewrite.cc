#include "lance/manifest_rewrite.h"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "common/macros.h"
#include "lance/manifest_internal.h"
#include "lance/manifest_rewrite_internal.h"
#include "lance/proto/manifest.pb.h"

namespace cairn::lance {
namespace {

using internal::kFooterBytes;
using internal::PutLittleEndian;

constexpr int64_t kMillisPerSecond = 1000;
constexpr int32_t kNanosPerMilli = 1000000;

void Reversion(pb::Manifest& manifest, const ManifestRewrite& rewrite) {
  manifest.set_version(rewrite.version);
  // Floor division: a time before the epoch keeps its nanos in [0, 1e9).
  int64_t seconds = rewrite.timestamp_ms / kMillisPerSecond;
  int64_t millis = rewrite.timestamp_ms % kMillisPerSecond;
  if (millis < 0) {
    millis += kMillisPerSecond;
    --seconds;
  }
  manifest.mutable_timestamp()->set_seconds(seconds);
  manifest.mutable_timestamp()->set_nanos(static_cast<int32_t>(millis) * kNanosPerMilli);
  manifest.set_transaction_file(rewrite.transaction_file);
  manifest.clear_transaction_section();
  manifest.clear_version_aux_data();
  if (rewrite.max_fragment_id_at_least) {
    manifest.set_max_fragment_id(
        manifest.has_max_fragment_id()
            ? std::max(manifest.max_fragment_id(), *rewrite.max_fragment_id_at_least)
            : *rewrite.max_fragment_id_at_least);
  }
}

Result<std::string> Rewrite(std::string_view file, const ManifestRewrite& rewrite,
                            const internal::ManifestEditor& edit) {
  CAIRN_ASSIGN_OR_RAISE(std::string_view bytes, internal::ManifestMessage(file));
  pb::Manifest manifest;
  if (!internal::ParseBounded(bytes, manifest)) {
    return internal::NotAManifest("its Manifest message does not parse");
  }
  std::optional<std::string> index_section;
  if (manifest.has_index_section()) {
    CAIRN_ASSIGN_OR_RAISE(
        std::string_view section,
        internal::MessageAt(file, manifest.index_section(), file.size() - kFooterBytes,
                            "index section"));
    index_section = std::string(section);
  }
  if (edit) CAIRN_RETURN_IF_ERROR(edit(manifest, index_section));
  std::string out;
  if (index_section) {
    // The section is copied into the new file and pointed at there.
    manifest.set_index_section(0);
    PutLittleEndian(out, index_section->size(), internal::kLengthPrefixBytes);
    out += *index_section;
  }
  Reversion(manifest, rewrite);
  const std::string message = manifest.SerializeAsString();
  const size_t position = out.size();
  PutLittleEndian(out, message.size(), internal::kLengthPrefixBytes);
  out += message;
  PutLittleEndian(out, position, 8);
  // The format version and the magic, as the original has them.
  out += file.substr(file.size() - 8);
  return out;
}

/// Protobuf throws only when memory runs out or on a bug: neither may take the server.
template <typename Fn>
Result<std::string> Guarded(size_t file_size, Fn&& rewrite) {
  try {
    return rewrite();
  } catch (const std::bad_alloc&) {
    return Internal("Lance manifest of {} bytes: out of memory while rewriting it",
                    file_size);
  } catch (const std::exception& e) {
    return Internal("Lance manifest cannot be rewritten: {}", e.what());
  }
}

}  // namespace

RestoreTransaction MakeRestoreTransaction(uint64_t read_version, std::string_view uuid,
                                          uint64_t restored_version) {
  pb::Transaction transaction;
  transaction.set_read_version(read_version);
  transaction.set_uuid(std::string(uuid));
  transaction.mutable_restore()->set_version(restored_version);
  return RestoreTransaction{fmt::format("{}-{}.txn", read_version, uuid),
                            transaction.SerializeAsString()};
}

Result<std::string> RewriteManifest(std::string_view file_bytes,
                                    const ManifestRewrite& rewrite) {
  return Guarded(file_bytes.size(),
                 [&] { return Rewrite(file_bytes, rewrite, nullptr); });
}

namespace internal {

Result<std::string> RewriteManifestWith(std::string_view file_bytes,
                                        const ManifestRewrite& rewrite,
                                        const ManifestEditor& edit) {
  return Guarded(file_bytes.size(), [&] { return Rewrite(file_bytes, rewrite, edit); });
}

}  // namespace internal

}  // namespace cairn::lance
