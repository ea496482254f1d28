#include "auth/privilege.h"

#include <gtest/gtest.h>

namespace cairn {
namespace {

const Securable kCatalog = Securable::Catalog("lake");
const Securable kSales = Securable::Namespace("lake", {"sales"});
const Securable kSalesEu = Securable::Namespace("lake", {"sales", "eu"});
const Securable kOrders = Securable::Table("lake", {"sales", "eu"}, "orders");
const Securable kOrdersView = Securable::View("lake", {"sales", "eu"}, "orders");
const Securable kOther = Securable::Table("lake", {"hr"}, "people");

TEST(PrivilegeTest, NamesRoundTrip) {
  for (Privilege privilege : AllPrivileges()) {
    EXPECT_EQ(ParsePrivilege(PrivilegeName(privilege)), privilege);
  }
  EXPECT_EQ(AllPrivileges().size(), 17u);
  EXPECT_EQ(ParsePrivilege("table_read"), std::nullopt);
  EXPECT_EQ(ParseSecurableKind("namespace"), SecurableKind::kNamespace);
  EXPECT_EQ(ParseSecurableKind("bucket"), std::nullopt);
  EXPECT_EQ(Securable::Namespace("lake", {}), kCatalog);
}

TEST(PrivilegeTest, NamespaceGrantsReachThreeLevelsDown) {
  const Permissions permissions({{Privilege::kTableRead, kSales}});
  EXPECT_TRUE(permissions.Allows(Privilege::kTableRead, kOrders));
  EXPECT_FALSE(permissions.Allows(Privilege::kTableWrite, kOrders));
  EXPECT_FALSE(permissions.Allows(Privilege::kTableRead, kOther));
  EXPECT_FALSE(permissions.Allows(Privilege::kTableRead,
                                  Securable::Table("lake2", {"sales"}, "orders")));
  // A namespace named like a prefix of another's first level is not its parent.
  EXPECT_FALSE(permissions.Allows(Privilege::kTableRead,
                                  Securable::Table("lake", {"salesx"}, "orders")));
}

TEST(PrivilegeTest, TableGrantsDoNotReachViewsOfTheSameName) {
  const Permissions permissions({{Privilege::kTableRead, kOrders}});
  EXPECT_TRUE(permissions.Allows(Privilege::kTableRead, kOrders));
  EXPECT_FALSE(permissions.Allows(Privilege::kViewRead, kOrdersView));
  EXPECT_FALSE(permissions.Allows(Privilege::kTableRead, kOrdersView));
  EXPECT_FALSE(permissions.Allows(Privilege::kTableList, kSalesEu));
}

TEST(PrivilegeTest, Implications) {
  EXPECT_TRUE(Implies(Privilege::kTableWrite, Privilege::kTableRead));
  EXPECT_FALSE(Implies(Privilege::kTableRead, Privilege::kTableWrite));
  EXPECT_TRUE(Implies(Privilege::kViewWrite, Privilege::kViewRead));
  EXPECT_TRUE(
      Implies(Privilege::kNamespaceWriteProperties, Privilege::kNamespaceReadProperties));
  EXPECT_TRUE(Implies(Privilege::kCatalogManage, Privilege::kTableDrop));
  EXPECT_FALSE(Implies(Privilege::kCatalogManage, Privilege::kServiceAdmin));
  EXPECT_TRUE(Implies(Privilege::kServiceAdmin, Privilege::kServiceAdmin));

  const Permissions manager({{Privilege::kCatalogManage, kCatalog}});
  EXPECT_TRUE(manager.Allows(Privilege::kTableWrite, kOrders));
  EXPECT_FALSE(manager.Allows(Privilege::kTableWrite,
                              Securable::Table("other", {"sales"}, "orders")));
  EXPECT_FALSE(manager.Allows(Privilege::kServiceAdmin, Securable::Service()));
  const Permissions admin({{Privilege::kServiceAdmin, Securable::Service()}});
  EXPECT_TRUE(admin.Allows(Privilege::kTableWrite, kOther));
}

TEST(PrivilegeTest, MaySeeTheWayDownToAGrantButNotSiblings) {
  const Permissions permissions({{Privilege::kTableRead, kOrders}});
  EXPECT_TRUE(permissions.MaySee(Securable::Service()));
  EXPECT_TRUE(permissions.MaySee(kCatalog));
  EXPECT_TRUE(permissions.MaySee(kSales));
  EXPECT_TRUE(permissions.MaySee(kSalesEu));
  EXPECT_TRUE(permissions.MaySee(kOrders));
  EXPECT_FALSE(permissions.MaySee(kOther));
  EXPECT_FALSE(permissions.MaySee(Securable::Namespace("lake", {"hr"})));
  EXPECT_FALSE(permissions.MaySee(Securable::Catalog("lake2")));
  EXPECT_FALSE(Permissions().MaySee(kCatalog));
}

}  // namespace
}  // namespace cairn
