#pragma once

/// \file
/// \brief The Arrow schema of a Lance version in the shape of the Lance namespace spec's
/// `JsonArrowSchema` / `JsonArrowField` / `JsonArrowDataType` (its JSON form lives in
/// `api/lance`). Type names are those the Lance namespace's own JSON conversion uses
/// (lance-format/lance, `rust/lance-namespace/src/schema.rs`, `arrow_type_to_json`):
/// `int64`, `float32`, `utf8`, `large_utf8`, `date32`, `timestamp`, `decimal128` with
/// `length` = precision * 1000 + scale, `fixed_size_list` with `length` and its item
/// field, `list` / `large_list` / `struct` / `map` with their child fields; a dictionary
/// is shown as its value type. The Lance logical types map to Arrow types as Lance's
/// `LogicalType` conversion defines (lance-core `datatypes.rs`), and a field carries its
/// metadata as Lance's Arrow conversion gives it (`json` and `blob` columns gain their
/// marker keys). A logical type Cairn does not know is passed through as the type name.
/// Pure: no I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lance/manifest.h"

namespace cairn::lance {

struct ArrowField;

/// \brief `JsonArrowDataType`.
struct ArrowDataType {
  std::string type = {};
  /// The child fields of nested types (list item, struct members, map entries). (No
  /// `= {}`: the element type is incomplete here, and a vector is empty by default.)
  std::vector<ArrowField> fields;
  /// Fixed sizes (`fixed_size_list`, `fixed_size_binary`) and encoded decimals.
  std::optional<int64_t> length = std::nullopt;

  bool operator==(const ArrowDataType&) const = default;
};

/// \brief `JsonArrowField`.
struct ArrowField {
  std::string name = {};
  ArrowDataType type;
  bool nullable = true;
  /// Valid UTF-8 (Lance's byte values are converted, invalid sequences replaced).
  std::map<std::string, std::string> metadata = {};

  bool operator==(const ArrowField&) const = default;
};

/// \brief `JsonArrowSchema`.
struct ArrowSchema {
  std::vector<ArrowField> fields = {};
  std::map<std::string, std::string> metadata = {};

  bool operator==(const ArrowSchema&) const = default;
};

/// \brief The Arrow schema of `fields` (a manifest's flat list: children after their
/// parent, naming it by id) with `metadata` as schema metadata. Fields whose parent is
/// not listed are left out; nesting below `kMaxFieldDepth` is cut off.
ArrowSchema ToArrowSchema(const std::vector<LanceField>& fields,
                          const std::map<std::string, std::string>& metadata);

/// \brief The JSON Arrow type of a Lance logical type without child fields (a leaf, or a
/// fixed-size list of a leaf type).
ArrowDataType LeafArrowType(const std::string& logical_type);

}  // namespace cairn::lance
