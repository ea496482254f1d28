#pragma once

// A MetaStore decorator for tests that interleave a competing writer or inject failures:
// it forwards everything to a real store (`ForwardingMetaStore`), with hooks on the calls
// tests interfere with.

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "store/forwarding_meta_store.h"

namespace cairn {

/// Forwards everything to `base`; `swap_hook`, when set, replaces `SwapEntities` (it gets
/// the base to forward to itself).
class HookedStore final : public ForwardingMetaStore {
 public:
  using SwapHook =
      std::function<Result<bool>(const std::vector<EntitySwap>&, MetaStore&)>;

  explicit HookedStore(MetaStore& base) : ForwardingMetaStore(base) {}

  SwapHook swap_hook;
  int swap_calls = 0;
  /// Runs before `CreateEntity` is forwarded.
  std::function<void()> before_create;
  /// When set, every load of an entity (`LoadEntity`, `LoadEntityPointer`,
  /// `FindEntityPointer`) fails with this error.
  std::optional<Error> load_error;
  /// How often a catalog and an entity were read (`GetCatalog`, `LoadEntity`): what a
  /// request costs the store.
  int get_catalog_calls = 0;
  int load_entity_calls = 0;

  Result<CatalogRecord> GetCatalog(std::string_view name) override {
    ++get_catalog_calls;
    return ForwardingMetaStore::GetCatalog(name);
  }

  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata, const LocationClaim& claim,
                                    const WriteContext& write) override {
    if (before_create) before_create();
    return ForwardingMetaStore::CreateEntity(catalog_id, ns, name, kind,
                                             metadata_location, metadata, claim, write);
  }
  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    ++load_entity_calls;
    if (load_error) return tl::unexpected(*load_error);
    return ForwardingMetaStore::LoadEntity(catalog_id, ns, name);
  }
  Result<std::optional<EntityPointer>> LoadEntityPointer(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    if (load_error) return tl::unexpected(*load_error);
    return ForwardingMetaStore::LoadEntityPointer(catalog_id, ns, name);
  }
  Result<std::optional<EntityPointer>> FindEntityPointer(std::string_view catalog_name,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    if (load_error) return tl::unexpected(*load_error);
    return ForwardingMetaStore::FindEntityPointer(catalog_name, ns, name);
  }
  Result<bool> SwapEntities(const std::vector<EntitySwap>& swaps,
                            const WriteContext& write) override {
    ++swap_calls;
    if (swap_hook) return swap_hook(swaps, base());
    return ForwardingMetaStore::SwapEntities(swaps, write);
  }
};

}  // namespace cairn
