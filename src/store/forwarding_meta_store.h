#pragma once

/// \file
/// \brief A `MetaStore` that forwards every method to another one: the base of
/// decorators (tests that inject failures or interleave a competing writer), which
/// override only the methods they change. Because every method forwards, a decorator
/// never silently runs a different code path than the store it wraps. The write methods
/// repeat `MetaStore`'s default `WriteContext`, so that a call through a decorator's type
/// reads as one through `MetaStore`; overrides forward the context they get.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/meta_store.h"

namespace cairn {

/// \brief Forwards every method to `base`, which must outlive it. Thread-safe as `base`.
class ForwardingMetaStore : public MetaStore {
 public:
  explicit ForwardingMetaStore(MetaStore& base) : base_(base) {}

  /// \brief The wrapped store.
  MetaStore& base() { return base_; }

  Status Ping() override { return base_.Ping(); }
  Result<CatalogRecord> CreateCatalog(
      std::string_view name, std::string_view location, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.CreateCatalog(name, location, properties, write);
  }
  Result<CatalogRecord> GetCatalog(std::string_view name) override {
    return base_.GetCatalog(name);
  }
  Status SetCatalogProperties(
      int64_t catalog_id, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.SetCatalogProperties(catalog_id, properties, write);
  }
  Result<bool> SwapCatalogProperties(
      int64_t catalog_id, const Properties& expected, const Properties& replacement,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.SwapCatalogProperties(catalog_id, expected, replacement, write);
  }
  Result<CatalogPage> ListCatalogRecords(std::string_view after, size_t limit) override {
    return base_.ListCatalogRecords(after, limit);
  }
  Result<NamePage> ListCatalogs(std::string_view after,
                                std::optional<size_t> limit) override {
    return base_.ListCatalogs(after, limit);
  }
  Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                         const Properties& properties,
                         const WriteContext& write = WriteContext::Immediate()) override {
    return base_.CreateNamespace(catalog_id, path, properties, write);
  }
  Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                        const NamespacePath& path) override {
    return base_.LoadNamespace(catalog_id, path);
  }
  Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) override {
    return base_.NamespaceExists(catalog_id, path);
  }
  Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                  std::string_view after,
                                  std::optional<size_t> limit) override {
    return base_.ListNamespaces(catalog_id, parent, after, limit);
  }
  Status DropNamespace(int64_t catalog_id, const NamespacePath& path,
                       const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DropNamespace(catalog_id, path, write);
  }
  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.UpdateNamespaceProperties(catalog_id, path, updates, removals, write);
  }
  Result<EntityRecord> CreateEntity(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      std::string_view metadata_location, std::string_view metadata,
      const LocationClaim& claim,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.CreateEntity(catalog_id, ns, name, kind, metadata_location, metadata,
                              claim, write);
  }
  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    return base_.LoadEntity(catalog_id, ns, name);
  }
  Result<std::optional<EntityPointer>> LoadEntityPointer(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    return base_.LoadEntityPointer(catalog_id, ns, name);
  }
  Result<std::optional<EntityPointer>> FindEntityPointer(std::string_view catalog_name,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    return base_.FindEntityPointer(catalog_name, ns, name);
  }
  Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    return base_.EntityKindOf(catalog_id, ns, name);
  }
  Result<bool> SwapEntities(
      const std::vector<EntitySwap>& swaps,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.SwapEntities(swaps, write);
  }
  Result<bool> DropEntity(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DropEntity(catalog_id, ns, name, kind, write);
  }
  Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                      std::string_view from_name, const NamespacePath& to_ns,
                      std::string_view to_name, EntityKind kind,
                      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.RenameEntity(catalog_id, from_ns, from_name, to_ns, to_name, kind,
                              write);
  }
  Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                EntityKind kind, std::string_view after,
                                std::optional<size_t> limit) override {
    return base_.ListEntities(catalog_id, ns, kind, after, limit);
  }
  Result<EntityPage> ListAllEntities(EntityKind kind, int64_t after_id,
                                     std::optional<size_t> limit) override {
    return base_.ListAllEntities(kind, after_id, limit);
  }
  Result<std::optional<std::vector<std::string>>> TableClaimHolding(
      std::string_view location) override {
    return base_.TableClaimHolding(location);
  }
  Result<bool> LocationInUse(std::string_view location,
                             int64_t except_entity_id) override {
    return base_.LocationInUse(location, except_entity_id);
  }
  Result<std::vector<UnclaimedEntity>> ListUnclaimedEntities(int64_t after_id,
                                                             size_t limit) override {
    return base_.ListUnclaimedEntities(after_id, limit);
  }
  Status RecordLegacyClaim(int64_t entity_id, const LocationClaim& claim) override {
    return base_.RecordLegacyClaim(entity_id, claim);
  }
  Status RecordOrphanFile(const OrphanFile& file) override {
    return base_.RecordOrphanFile(file);
  }
  Result<std::vector<OrphanFile>> OrphanFilesRecordedBefore(int64_t before_ms,
                                                            size_t limit) override {
    return base_.OrphanFilesRecordedBefore(before_ms, limit);
  }
  Status ForgetOrphanFile(std::string_view location) override {
    return base_.ForgetOrphanFile(location);
  }
  Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const IdempotencyScope& scope, int64_t lease_until_ms) override {
    return base_.ClaimIdempotencyKey(scope, lease_until_ms);
  }
  Status BeatInstance(std::string_view instance, int64_t now_ms,
                      int64_t forget_before_ms) override {
    return base_.BeatInstance(instance, now_ms, forget_before_ms);
  }
  Status RemoveInstance(std::string_view instance) override {
    return base_.RemoveInstance(instance);
  }
  Result<std::optional<IdempotencyRecord>> LoadIdempotentResponse(
      std::string_view key, int64_t now_ms) override {
    return base_.LoadIdempotentResponse(key, now_ms);
  }
  Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                std::string_view answer) override {
    return base_.SaveIdempotentResponse(scope, answer);
  }
  Status ReleaseIdempotencyKey(const IdempotencyScope& scope) override {
    return base_.ReleaseIdempotencyKey(scope);
  }
  Result<std::vector<EntityRecord>> DropCatalog(
      int64_t catalog_id, bool cascade, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DropCatalog(catalog_id, cascade, planner, write);
  }
  Result<std::vector<EntityRecord>> DropNamespaceTree(
      int64_t catalog_id, const NamespacePath& path, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DropNamespaceTree(catalog_id, path, planner, write);
  }
  Result<std::optional<EntityRecord>> DropEntityWithRecord(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DropEntityWithRecord(catalog_id, ns, name, kind, planner, write);
  }
  Status CreateTransaction(
      const TransactionRecord& record,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.CreateTransaction(record, write);
  }
  Result<std::optional<TransactionRecord>> LoadTransaction(std::string_view id) override {
    return base_.LoadTransaction(id);
  }
  Result<bool> UpdateTransaction(
      const TransactionRecord& updated, int64_t expected_version,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.UpdateTransaction(updated, expected_version, write);
  }
  Result<std::vector<TransactionRecord>> ListTransactions(
      const std::vector<std::string>& statuses) override {
    return base_.ListTransactions(statuses);
  }
  Result<std::map<std::string, int64_t>> CountTransactionsByStatus() override {
    return base_.CountTransactionsByStatus();
  }
  Result<TransactionPage> ListTransactionPage(const std::vector<std::string>& statuses,
                                              std::string_view after_id,
                                              size_t limit) override {
    return base_.ListTransactionPage(statuses, after_id, limit);
  }
  Result<bool> DeleteTransaction(
      std::string_view id,
      const WriteContext& write = WriteContext::Immediate()) override {
    return base_.DeleteTransaction(id, write);
  }
  Result<int64_t> PruneTransactions(const std::vector<std::string>& statuses,
                                    int64_t updated_before_ms, size_t limit) override {
    return base_.PruneTransactions(statuses, updated_before_ms, limit);
  }
  Result<std::vector<std::string>> FindOrphanedRows() override {
    return base_.FindOrphanedRows();
  }
  IdentityStore& identity() override { return base_.identity(); }
  LanceVersionStore& lance_versions() override { return base_.lance_versions(); }
  MetricsReportStore& metrics_reports() override { return base_.metrics_reports(); }

 private:
  MetaStore& base_;
};

}  // namespace cairn
