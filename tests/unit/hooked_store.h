#pragma once

// A MetaStore decorator for tests that interleave a competing writer or inject failures:
// it forwards everything to a real store, with hooks on the calls tests interfere with.

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "store/meta_store.h"

namespace cairn {

/// Forwards everything to `base`; `swap_hook`, when set, replaces `SwapEntities` (it gets
/// the base to forward to itself).
class HookedStore final : public MetaStore {
 public:
  using SwapHook =
      std::function<Result<bool>(const std::vector<EntitySwap>&, MetaStore&)>;

  explicit HookedStore(MetaStore& base) : base_(base) {}

  SwapHook swap_hook;
  int swap_calls = 0;
  /// Runs before `CreateEntity` is forwarded.
  std::function<void()> before_create;
  /// When set, `LoadEntity` fails with this error.
  std::optional<Error> load_error;

  Status Ping() override { return base_.Ping(); }
  Result<CatalogRecord> CreateCatalog(std::string_view name, std::string_view location,
                                      const Properties& properties) override {
    return base_.CreateCatalog(name, location, properties);
  }
  Result<CatalogRecord> GetCatalog(std::string_view name) override {
    return base_.GetCatalog(name);
  }
  Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                         const Properties& properties) override {
    return base_.CreateNamespace(catalog_id, path, properties);
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
  Status DropNamespace(int64_t catalog_id, const NamespacePath& path) override {
    return base_.DropNamespace(catalog_id, path);
  }
  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals) override {
    return base_.UpdateNamespaceProperties(catalog_id, path, updates, removals);
  }
  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata,
                                    const LocationClaim& claim) override {
    if (before_create) before_create();
    return base_.CreateEntity(catalog_id, ns, name, kind, metadata_location, metadata,
                              claim);
  }
  Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    return base_.EntityKindOf(catalog_id, ns, name);
  }
  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    if (load_error) return tl::unexpected(*load_error);
    return base_.LoadEntity(catalog_id, ns, name);
  }
  Result<bool> SwapEntities(const std::vector<EntitySwap>& swaps) override {
    ++swap_calls;
    if (swap_hook) return swap_hook(swaps, base_);
    return base_.SwapEntities(swaps);
  }
  Result<bool> DropEntity(int64_t catalog_id, const NamespacePath& ns,
                          std::string_view name, EntityKind kind) override {
    return base_.DropEntity(catalog_id, ns, name, kind);
  }
  Result<std::optional<EntityRecord>> DropEntityWithRecord(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const DropPlanner& planner) override {
    return base_.DropEntityWithRecord(catalog_id, ns, name, kind, planner);
  }
  Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                      std::string_view from_name, const NamespacePath& to_ns,
                      std::string_view to_name, EntityKind kind) override {
    return base_.RenameEntity(catalog_id, from_ns, from_name, to_ns, to_name, kind);
  }
  Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                EntityKind kind, std::string_view after,
                                std::optional<size_t> limit) override {
    return base_.ListEntities(catalog_id, ns, kind, after, limit);
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

  Result<std::optional<StoredResponse>> LoadIdempotentResponse(std::string_view key,
                                                               int64_t now_ms) override {
    return base_.LoadIdempotentResponse(key, now_ms);
  }
  Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                const StoredResponse& response) override {
    return base_.SaveIdempotentResponse(scope, response);
  }
  Result<std::optional<StoredResponse>> ClaimIdempotencyKey(
      const IdempotencyScope& scope, int64_t lease_until_ms) override {
    return base_.ClaimIdempotencyKey(scope, lease_until_ms);
  }
  Status ReleaseIdempotencyKey(const IdempotencyScope& scope) override {
    return base_.ReleaseIdempotencyKey(scope);
  }
  Status BeatInstance(std::string_view instance, int64_t now_ms,
                      int64_t forget_before_ms) override {
    return base_.BeatInstance(instance, now_ms, forget_before_ms);
  }
  Status RemoveInstance(std::string_view instance) override {
    return base_.RemoveInstance(instance);
  }

 private:
  MetaStore& base_;
};

}  // namespace cairn
