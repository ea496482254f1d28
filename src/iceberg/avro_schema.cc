#include "iceberg/avro_schema.h"

#include <array>
#include <limits>
#include <unordered_map>
#include <utility>

#include <boost/json.hpp>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

namespace json = boost::json;

constexpr std::array<std::pair<std::string_view, AvroType>, 8> kPrimitives{{
    {"null", AvroType::kNull},
    {"boolean", AvroType::kBoolean},
    {"int", AvroType::kInt},
    {"long", AvroType::kLong},
    {"float", AvroType::kFloat},
    {"double", AvroType::kDouble},
    {"bytes", AvroType::kBytes},
    {"string", AvroType::kString},
}};

std::optional<AvroType> PrimitiveNamed(std::string_view name) {
  for (const auto& primitive : kPrimitives) {
    if (primitive.first == name) return primitive.second;
  }
  return std::nullopt;
}

AvroNode NodeOf(AvroType type) {
  AvroNode node;
  node.type = type;
  return node;
}

// An optional integer attribute (`field-id`, `element-id`) that must fit in an int32.
Result<std::optional<int32_t>> IdAttribute(const json::object& object,
                                           std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr) return std::nullopt;
  if (auto number = value->if_int64(); number != nullptr &&
                                       *number >= std::numeric_limits<int32_t>::min() &&
                                       *number <= std::numeric_limits<int32_t>::max()) {
    return static_cast<int32_t>(*number);
  }
  return BadRequest("Invalid Avro schema: '{}' must be a 32-bit integer", key);
}

Result<std::string> StringAttribute(const json::object& object, std::string_view key,
                                    std::string_view what) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) {
    return BadRequest("Invalid Avro schema: {} without a string '{}'", what, key);
  }
  return std::string(value->as_string());
}

// Builds the node tree; named types are registered once complete, so a type that names
// itself (directly or through another) finds no definition and is refused.
class SchemaBuilder {
 public:
  Result<int> Build(const json::value& value, int depth) {
    if (depth > kMaxAvroSchemaDepth) {
      return BadRequest("Invalid Avro schema: nested deeper than {} levels",
                        kMaxAvroSchemaDepth);
    }
    if (value.is_string()) return Named(value.as_string());
    if (value.is_array()) return Union(value.as_array(), depth);
    if (!value.is_object())
      return BadRequest("Invalid Avro schema: a type must be a string, array or object");
    const json::object& object = value.as_object();
    CAIRN_ASSIGN_OR_RAISE(std::string type, StringAttribute(object, "type", "a type"));
    if (auto primitive = PrimitiveNamed(type)) return Add(NodeOf(*primitive));
    if (type == "record" || type == "error") return Record(object, depth);
    if (type == "array") return Container(object, AvroType::kArray, "items", depth);
    if (type == "map") return Container(object, AvroType::kMap, "values", depth);
    if (type == "enum") return Enum(object);
    if (type == "fixed") return Fixed(object);
    // `{"type": "r102"}` names a defined type, as a bare string would.
    return Named(type);
  }

  std::vector<AvroNode> TakeNodes() { return std::move(nodes_); }

 private:
  Result<int> Add(AvroNode node) {
    if (nodes_.size() >= kMaxAvroSchemaNodes) {
      return BadRequest("Invalid Avro schema: more than {} types", kMaxAvroSchemaNodes);
    }
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size() - 1);
  }

  // A name is only ever a primitive here: Iceberg's writers define every record, enum and
  // fixed where it is used. A reference to a defined type is refused: Avro C resolves
  // names by namespace rules of its own (a mismatch would let it decode bytes Cairn never
  // checked), and a type referenced many times multiplies what decoding allocates.
  Result<int> Named(std::string_view name) {
    if (auto primitive = PrimitiveNamed(name)) return Add(NodeOf(*primitive));
    if (named_.count(std::string(name)) > 0) {
      return BadRequest(
          "Invalid Avro schema: type '{}' is referenced again (named type references are "
          "not read)",
          name);
    }
    return BadRequest("Invalid Avro schema: unknown type '{}'", name);
  }

  Status Register(const std::string& name, int index) {
    if (!named_.emplace(name, index).second) {
      return BadRequest("Invalid Avro schema: type '{}' is defined twice", name);
    }
    return Ok();
  }

  Result<std::string> FullName(const json::object& object, std::string_view what) {
    CAIRN_ASSIGN_OR_RAISE(std::string name, StringAttribute(object, "name", what));
    if (name.find('.') != std::string::npos) return name;
    const json::value* space = object.if_contains("namespace");
    if (space != nullptr && space->is_string() && !space->as_string().empty()) {
      return std::string(space->as_string()) + "." + name;
    }
    return name;
  }

  Result<int> Record(const json::object& object, int depth) {
    CAIRN_ASSIGN_OR_RAISE(std::string name, FullName(object, "a record"));
    const json::value* fields = object.if_contains("fields");
    if (fields == nullptr || !fields->is_array()) {
      return BadRequest("Invalid Avro schema: record '{}' without a 'fields' array",
                        name);
    }
    AvroNode record = NodeOf(AvroType::kRecord);
    record.name = name;
    for (const json::value& field : fields->as_array()) {
      if (!field.is_object()) {
        return BadRequest("Invalid Avro schema: a field of record '{}' is not an object",
                          name);
      }
      const json::object& spec = field.as_object();
      AvroField parsed;
      CAIRN_ASSIGN_OR_RAISE(parsed.name, StringAttribute(spec, "name", "a field"));
      CAIRN_ASSIGN_OR_RAISE(parsed.field_id, IdAttribute(spec, "field-id"));
      const json::value* type = spec.if_contains("type");
      if (type == nullptr) {
        return BadRequest("Invalid Avro schema: field '{}' of record '{}' has no type",
                          parsed.name, name);
      }
      CAIRN_ASSIGN_OR_RAISE(parsed.type, Build(*type, depth + 1));
      record.fields.push_back(std::move(parsed));
    }
    CAIRN_ASSIGN_OR_RAISE(int index, Add(std::move(record)));
    CAIRN_RETURN_IF_ERROR(Register(name, index));
    return index;
  }

  Result<int> Container(const json::object& object, AvroType type, std::string_view key,
                        int depth) {
    const json::value* items = object.if_contains(key);
    if (items == nullptr) {
      return BadRequest("Invalid Avro schema: {} without '{}'",
                        type == AvroType::kArray ? "an array" : "a map", key);
    }
    AvroNode node = NodeOf(type);
    CAIRN_ASSIGN_OR_RAISE(node.items, Build(*items, depth + 1));
    if (type == AvroType::kArray) {
      CAIRN_ASSIGN_OR_RAISE(node.element_id, IdAttribute(object, "element-id"));
    }
    return Add(std::move(node));
  }

  Result<int> Union(const json::array& branches, int depth) {
    AvroNode node = NodeOf(AvroType::kUnion);
    for (const json::value& branch : branches) {
      CAIRN_ASSIGN_OR_RAISE(int index, Build(branch, depth + 1));
      if (nodes_[static_cast<size_t>(index)].type == AvroType::kUnion) {
        return BadRequest("Invalid Avro schema: a union directly inside a union");
      }
      node.branches.push_back(index);
    }
    if (node.branches.empty()) return BadRequest("Invalid Avro schema: an empty union");
    return Add(std::move(node));
  }

  Result<int> Enum(const json::object& object) {
    CAIRN_ASSIGN_OR_RAISE(std::string name, FullName(object, "an enum"));
    const json::value* symbols = object.if_contains("symbols");
    if (symbols == nullptr || !symbols->is_array() || symbols->as_array().empty()) {
      return BadRequest("Invalid Avro schema: enum '{}' without symbols", name);
    }
    AvroNode node = NodeOf(AvroType::kEnum);
    node.name = name;
    node.size = static_cast<int64_t>(symbols->as_array().size());
    CAIRN_ASSIGN_OR_RAISE(int index, Add(std::move(node)));
    CAIRN_RETURN_IF_ERROR(Register(name, index));
    return index;
  }

  Result<int> Fixed(const json::object& object) {
    CAIRN_ASSIGN_OR_RAISE(std::string name, FullName(object, "a fixed type"));
    const json::value* size = object.if_contains("size");
    constexpr int64_t kMaxFixedBytes = int64_t{1} << 20;
    if (size == nullptr || !size->is_int64() || size->as_int64() < 0 ||
        size->as_int64() > kMaxFixedBytes) {
      return BadRequest("Invalid Avro schema: fixed '{}' needs a size from 0 to {}", name,
                        kMaxFixedBytes);
    }
    AvroNode node = NodeOf(AvroType::kFixed);
    node.name = name;
    node.size = size->as_int64();
    CAIRN_ASSIGN_OR_RAISE(int index, Add(std::move(node)));
    CAIRN_RETURN_IF_ERROR(Register(name, index));
    return index;
  }

  std::vector<AvroNode> nodes_;
  std::unordered_map<std::string, int> named_;
};

// The fewest bytes a value of `index` takes. Items and records that can take none would
// let a count in a few bytes make a decoder allocate without bound.
int64_t MinWidth(const std::vector<AvroNode>& nodes, int index) {
  const AvroNode& node = nodes[static_cast<size_t>(index)];
  switch (node.type) {
    case AvroType::kNull:
      return 0;
    case AvroType::kFixed:
      return node.size;
    case AvroType::kRecord: {
      int64_t width = 0;
      for (const AvroField& field : node.fields) width += MinWidth(nodes, field.type);
      return width;
    }
    default:  // a varint, a length, a count, a branch index or fixed-width bytes
      return 1;
  }
}

Status CheckWidths(const std::vector<AvroNode>& nodes, int root) {
  if (MinWidth(nodes, root) == 0) {
    return BadRequest("Invalid Avro schema: a record that can take no bytes");
  }
  for (const AvroNode& node : nodes) {
    // (Map entries have a key of at least one byte.)
    if (node.type == AvroType::kArray && MinWidth(nodes, node.items) == 0) {
      return BadRequest("Invalid Avro schema: an array of items that can take no bytes");
    }
  }
  return Ok();
}

}  // namespace

int AvroSchema::FieldIndexById(const AvroNode& record, int32_t field_id) const {
  for (size_t i = 0; i < record.fields.size(); ++i) {
    if (record.fields[i].field_id == field_id) return static_cast<int>(i);
  }
  return -1;
}

int AvroSchema::NonNullBranch(int index) const {
  const AvroNode& union_node = node(index);
  if (union_node.type != AvroType::kUnion || union_node.branches.size() != 2)
    return index;
  if (node(union_node.branches[0]).type == AvroType::kNull) return union_node.branches[1];
  if (node(union_node.branches[1]).type == AvroType::kNull) return union_node.branches[0];
  return index;
}

Result<AvroSchema> ParseAvroSchema(std::string_view text) {
  json::parse_options options;
  // Each schema level takes up to three JSON levels (record, fields array, field).
  options.max_depth = 4 * kMaxAvroSchemaDepth;
  std::error_code ec;
  json::value value = json::parse(text, ec, {}, options);
  if (ec) return BadRequest("Invalid Avro schema: not JSON ({})", ec.message());
  SchemaBuilder builder;
  AvroSchema schema;
  CAIRN_ASSIGN_OR_RAISE(schema.root, builder.Build(value, 0));
  schema.nodes = builder.TakeNodes();
  CAIRN_RETURN_IF_ERROR(CheckWidths(schema.nodes, schema.root));
  return schema;
}

}  // namespace cairn::iceberg
