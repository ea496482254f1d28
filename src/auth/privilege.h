#pragma once

/// \file
/// \brief The privilege model: what a grant allows, on which object, and what it
/// implies. Pure data and rules (no store, no HTTP) so that every layer and the docs'
/// route table speak the same names.
///
/// A grant names a privilege and a securable: the service, a catalog, a namespace, a
/// table or a view. A grant applies to its securable and to everything below it (a
/// namespace's grants reach its child namespaces and their tables and views). Two
/// privileges imply others: `SERVICE_ADMIN` implies every privilege everywhere, and
/// `CATALOG_MANAGE` every privilege inside its catalog; a `*_WRITE` implies the matching
/// `*_READ` (`NAMESPACE_WRITE_PROPERTIES` implies `NAMESPACE_READ_PROPERTIES`).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/namespace_path.h"

namespace cairn {

enum class Privilege : uint8_t {
  kServiceAdmin,
  kCatalogManage,
  kNamespaceCreate,
  kNamespaceList,
  kNamespaceDrop,
  kNamespaceReadProperties,
  kNamespaceWriteProperties,
  kTableCreate,
  kTableList,
  kTableDrop,
  kTableRead,
  kTableWrite,
  kViewCreate,
  kViewList,
  kViewDrop,
  kViewRead,
  kViewWrite,
};

/// \brief Every privilege, in declaration order.
const std::vector<Privilege>& AllPrivileges();
/// \brief The stored and documented name, e.g. "TABLE_READ".
std::string_view PrivilegeName(Privilege privilege);
/// \brief The privilege of a name (case-sensitive), nullopt for an unknown one.
std::optional<Privilege> ParsePrivilege(std::string_view name);

enum class SecurableKind : uint8_t { kService, kCatalog, kNamespace, kTable, kView };

/// \brief "service", "catalog", "namespace", "table" or "view".
std::string_view SecurableKindName(SecurableKind kind);
/// \brief The kind of a name, nullopt for an unknown one.
std::optional<SecurableKind> ParseSecurableKind(std::string_view name);

/// \brief An object grants are given on, by name.
struct Securable {
  SecurableKind kind = SecurableKind::kService;
  std::string catalog;  ///< empty for the service
  NamespacePath ns;     ///< the namespace itself, or the one holding the table or view
  std::string name;     ///< the table or view name; empty otherwise

  static Securable Service() { return {}; }
  static Securable Catalog(std::string catalog) {
    return {SecurableKind::kCatalog, std::move(catalog), {}, {}};
  }
  /// \brief A namespace; an empty path is the catalog itself.
  static Securable Namespace(std::string catalog, NamespacePath ns);
  static Securable Table(std::string catalog, NamespacePath ns, std::string name) {
    return {SecurableKind::kTable, std::move(catalog), std::move(ns), std::move(name)};
  }
  static Securable View(std::string catalog, NamespacePath ns, std::string name) {
    return {SecurableKind::kView, std::move(catalog), std::move(ns), std::move(name)};
  }

  friend bool operator==(const Securable&, const Securable&) = default;
};

/// \brief True when a grant on `granted` applies to `target`: `granted` is `target` or
/// one of its ancestors.
bool Covers(const Securable& granted, const Securable& target);

/// \brief A privilege on a securable, as a role holds it.
struct PrivilegeGrant {
  Privilege privilege = Privilege::kTableRead;
  Securable on;

  friend bool operator==(const PrivilegeGrant&, const PrivilegeGrant&) = default;
};

/// \brief What one principal may do: the grants of all its roles. Immutable; shared
/// between the requests of the principal until its grants change.
class Permissions {
 public:
  Permissions() = default;
  explicit Permissions(std::vector<PrivilegeGrant> grants);

  /// \brief True when some grant, or a privilege it implies, allows `privilege` on
  /// `target`.
  bool Allows(Privilege privilege, const Securable& target) const;

  /// \brief True when the caller may learn that `target` exists: some grant applies to
  /// it, or some grant is on an object below it (the caller needs to find its way
  /// there). Listings show what passes this test.
  bool MaySee(const Securable& target) const;

  const std::vector<PrivilegeGrant>& grants() const { return grants_; }

 private:
  std::vector<PrivilegeGrant> grants_;
};

/// \brief True when holding `held` allows `wanted` (they are equal, or `held` implies
/// `wanted`), without regard to where.
bool Implies(Privilege held, Privilege wanted);

}  // namespace cairn
