#include "lance/branch_clone.h"

#include <algorithm>
#include <limits>

#include "common/macros.h"
#include "lance/manifest_internal.h"
#include "lance/manifest_rewrite_internal.h"
#include "lance/proto/manifest.pb.h"

namespace cairn::lance {
namespace {

/// The id of the base path the clone adds: one above the highest the source uses, as
/// Lance 12 picks it.
Result<uint32_t> NewBaseId(const pb::Manifest& manifest) {
  if (manifest.base_paths().empty()) return 0U;
  uint32_t highest = 0;
  for (const pb::BasePath& base : manifest.base_paths()) {
    highest = std::max(highest, base.id());
  }
  if (highest == std::numeric_limits<uint32_t>::max()) {
    return Unsupported("The source manifest uses every base path id");
  }
  return highest + 1;
}

/// Every file the source reads from its own directory is read from the source's
/// directory; a file with a base path of its own keeps it.
void PointFilesAt(pb::Manifest& manifest, uint32_t base_id) {
  for (pb::DataFragment& fragment : *manifest.mutable_fragments()) {
    for (pb::DataFile& file : *fragment.mutable_files()) {
      if (!file.has_base_id()) file.set_base_id(base_id);
    }
    if (fragment.has_deletion_file() && !fragment.deletion_file().has_base_id()) {
      fragment.mutable_deletion_file()->set_base_id(base_id);
    }
  }
}

/// Every index without a base path of its own is read from the source's directory. Lance
/// 12 points every index there, also one that already lay elsewhere — on a branch of a
/// branch, an index built on main then names the source branch's `_indices/`, where its
/// files are not, and an indexed read fails; newer Lance keeps such a base path, and so
/// does Cairn.
Status PointIndicesAt(std::string& section_bytes, uint32_t base_id) {
  pb::IndexSection section;
  if (!internal::ParseBounded(section_bytes, section)) {
    return internal::NotAManifest("its index section does not parse");
  }
  for (pb::IndexMetadata& index : *section.mutable_indices()) {
    if (!index.has_base_id()) index.set_base_id(base_id);
  }
  section_bytes = section.SerializeAsString();
  return Ok();
}

pb::Transaction CloneTransaction(const BranchClone& clone) {
  pb::Transaction transaction;
  transaction.set_read_version(clone.source_version);
  transaction.set_uuid(clone.uuid);
  pb::Transaction::Clone& op = *transaction.mutable_clone();
  op.set_is_shallow(true);
  if (clone.source_branch) op.set_ref_name(*clone.source_branch);
  op.set_ref_version(clone.source_version);
  op.set_ref_path(clone.source_path);
  op.set_branch_name(clone.branch);
  return transaction;
}

}  // namespace

Result<ClonedVersion> CloneForBranch(std::string_view source_manifest,
                                     const BranchClone& clone) {
  ClonedVersion out;
  out.transaction_file = fmt::format("{}-{}.txn", clone.source_version, clone.uuid);
  out.transaction = CloneTransaction(clone).SerializeAsString();
  const auto edit = [&](pb::Manifest& manifest,
                        std::optional<std::string>& index_section) -> Status {
    CAIRN_ASSIGN_OR_RAISE(const uint32_t base_id, NewBaseId(manifest));
    pb::BasePath& base = *manifest.add_base_paths();
    base.set_id(base_id);
    if (clone.source_branch) base.set_name(*clone.source_branch);
    base.set_is_dataset_root(true);
    base.set_path(clone.source_path);
    PointFilesAt(manifest, base_id);
    if (index_section) CAIRN_RETURN_IF_ERROR(PointIndicesAt(*index_section, base_id));
    manifest.set_branch(clone.branch);
    manifest.clear_tag();
    manifest.set_reader_feature_flags(manifest.reader_feature_flags() |
                                      kBasePathsFeatureFlag);
    manifest.set_writer_feature_flags(manifest.writer_feature_flags() |
                                      kBasePathsFeatureFlag);
    return Ok();
  };
  CAIRN_ASSIGN_OR_RAISE(out.manifest, internal::RewriteManifestWith(
                                          source_manifest,
                                          {.version = clone.source_version,
                                           .timestamp_ms = clone.timestamp_ms,
                                           .transaction_file = out.transaction_file},
                                          edit));
  return out;
}

}  // namespace cairn::lance
