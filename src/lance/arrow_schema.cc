#include "lance/arrow_schema.h"

#include <array>
#include <charconv>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace cairn::lance {
namespace {

// Arrow's extension keys, and the markers Lance's Arrow conversion adds.
constexpr std::string_view kExtensionName = "ARROW:extension:name";
constexpr std::string_view kExtensionMetadata = "ARROW:extension:metadata";
constexpr std::string_view kJsonExtension = "lance.json";
constexpr std::string_view kBlobKey = "lance-encoding:blob";
constexpr std::string_view kBfloat16 = "lance.bfloat16";
/// The name Arrow (and Lance) give the item field of a fixed-size list.
constexpr std::string_view kItem = "item";
/// Longer logical types are passed through as they are: a fixed-size list of a
/// fixed-size list ... recurses once per level, and real types are a few dozen bytes.
constexpr size_t kMaxLogicalTypeBytes = 256;

/// Logical types that name one Arrow type outright (lance-core `LogicalType` ->
/// `DataType`, then the namespace's JSON name of that type).
constexpr std::array<std::pair<std::string_view, std::string_view>, 30> kPlainTypes = {{
    {"null", "null"},
    {"bool", "bool"},
    {"int8", "int8"},
    {"uint8", "uint8"},
    {"int16", "int16"},
    {"uint16", "uint16"},
    {"int32", "int32"},
    {"uint32", "uint32"},
    {"int64", "int64"},
    {"uint64", "uint64"},
    {"halffloat", "float16"},
    {"float", "float32"},
    {"double", "float64"},
    {"string", "utf8"},
    {"binary", "binary"},
    {"large_string", "large_utf8"},
    {"large_binary", "large_binary"},
    {"blob", "large_binary"},
    {"json", "large_binary"},
    {"date32:day", "date32"},
    {"date64:ms", "date64"},
    {"time32:s", "time32"},
    {"time32:ms", "time32"},
    {"time64:us", "time64"},
    {"time64:ns", "time64"},
    {"duration:s", "duration"},
    {"duration:ms", "duration"},
    {"duration:us", "duration"},
    {"duration:ns", "duration"},
    {"struct", "struct"},
}};

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

template <class T>
std::optional<T> ParseNumber(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool IsTimeUnit(std::string_view unit) {
  return unit == "s" || unit == "ms" || unit == "us" || unit == "ns";
}

/// The length of the valid UTF-8 sequence at `text[i]`, or 0.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto continuation = [&](size_t k) {
    return i + k < text.size() && (byte(k) & 0xC0U) == 0x80U;
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80U) return 1;
  if (lead >= 0xC2U && lead <= 0xDFU) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0U && lead <= 0xEFU) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0U && byte(1) < 0xA0U) return 0;   // overlong
    if (lead == 0xEDU && byte(1) >= 0xA0U) return 0;  // surrogate
    return 3;
  }
  if (lead >= 0xF0U && lead <= 0xF4U) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0U && byte(1) < 0x90U) return 0;   // overlong
    if (lead == 0xF4U && byte(1) >= 0x90U) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

/// `bytes` as UTF-8 text: invalid sequences become U+FFFD, as Rust's lossy conversion
/// does.
std::string ValidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const size_t length = Utf8SequenceLength(bytes, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(bytes.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::map<std::string, std::string> ValidUtf8(
    const std::map<std::string, std::string>& m) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : m) out.emplace(ValidUtf8(key), ValidUtf8(value));
  return out;
}

/// `fixed_size_list:<item type>:<size>`; the item type may hold colons itself.
std::optional<ArrowDataType> FixedSizeList(const std::vector<std::string_view>& parts,
                                           std::string_view logical_type) {
  if (parts.size() < 3) return std::nullopt;
  auto size = ParseNumber<int32_t>(parts.back());
  if (!size) return std::nullopt;
  const std::string_view inner =
      logical_type.substr(parts[0].size() + 1, logical_type.size() - parts[0].size() -
                                                   parts.back().size() - 2);
  ArrowField item{
      .name = std::string(kItem), .type = {}, .nullable = true, .metadata = {}};
  if (inner == kBfloat16) {
    item.type = ArrowDataType{.type = "fixed_size_binary", .fields = {}, .length = 2};
    item.metadata = {{std::string(kExtensionName), std::string(kBfloat16)},
                     {std::string(kExtensionMetadata), ""}};
  } else {
    item.type = LeafArrowType(std::string(inner));
  }
  return ArrowDataType{
      .type = "fixed_size_list", .fields = {std::move(item)}, .length = *size};
}

/// `decimal:<128|256>:<precision>:<scale>`, whose `length` is precision * 1000 + scale.
std::optional<ArrowDataType> Decimal(const std::vector<std::string_view>& parts) {
  if (parts.size() != 4 || (parts[1] != "128" && parts[1] != "256")) return std::nullopt;
  auto precision = ParseNumber<uint8_t>(parts[2]);
  auto scale = ParseNumber<int8_t>(parts[3]);
  if (!precision || !scale) return std::nullopt;
  return ArrowDataType{.type = "decimal" + std::string(parts[1]),
                       .fields = {},
                       .length = int64_t{*precision} * 1000 + *scale};
}

/// The parameterised logical types; nullopt for one Cairn does not know.
std::optional<ArrowDataType> Parameterised(std::string_view logical_type) {
  const auto parts = Split(logical_type, ':');
  const std::string_view kind = parts[0];
  if (kind == "fixed_size_list") return FixedSizeList(parts, logical_type);
  if (kind == "decimal") return Decimal(parts);
  if (kind == "fixed_size_binary" && parts.size() == 2) {
    auto size = ParseNumber<int32_t>(parts[1]);
    if (size)
      return ArrowDataType{.type = "fixed_size_binary", .fields = {}, .length = *size};
  }
  // `dict:<value type>:<index type>:false`: the namespace shows a dictionary as its
  // value type.
  if (kind == "dict" && parts.size() == 4) return LeafArrowType(std::string(parts[1]));
  // `timestamp:<unit>:<time zone or ->`; the zone may hold colons (`+08:00`).
  if (kind == "timestamp" && parts.size() >= 3 && IsTimeUnit(parts[1])) {
    return ArrowDataType{.type = "timestamp", .fields = {}, .length = std::nullopt};
  }
  return std::nullopt;
}

/// The fields of a manifest as a tree: the children of each field id, in manifest order.
/// Each field is converted once at most: a damaged manifest that repeats a field id (so
/// that a field is its own descendant many times over) yields a finite tree, built in
/// time linear in the number of fields rather than exponential in the depth.
class FieldTree {
 public:
  explicit FieldTree(const std::vector<LanceField>& fields)
      : fields_(fields), converted_(fields.size(), false) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].parent_id < 0) {
        roots_.push_back(i);
      } else {
        children_[fields[i].parent_id].push_back(i);
      }
    }
  }

  std::vector<ArrowField> Roots() { return Convert(roots_, 1); }

 private:
  std::vector<ArrowField> Convert(const std::vector<size_t>& indices, int depth) {
    // Siblings are claimed before any is descended into, so a repeated id makes a field
    // a sibling where it first appears rather than a child of its own sibling.
    std::vector<size_t> fresh;
    fresh.reserve(indices.size());
    for (size_t i : indices) {
      if (converted_[i]) continue;
      converted_[i] = true;
      fresh.push_back(i);
    }
    std::vector<ArrowField> out;
    out.reserve(fresh.size());
    for (size_t i : fresh) out.push_back(Convert(fields_[i], depth));
    return out;
  }

  std::vector<size_t> ChildrenOf(const LanceField& field, int depth) const {
    if (depth >= kMaxFieldDepth) return {};
    auto it = children_.find(field.id);
    return it == children_.end() ? std::vector<size_t>{} : it->second;
  }

  ArrowField Convert(const LanceField& field, int depth) {
    ArrowField out{.name = ValidUtf8(field.name),
                   .type = {},
                   .nullable = field.nullable,
                   .metadata = ValidUtf8(field.metadata)};
    const std::string& logical = field.logical_type;
    std::vector<ArrowField> children = Convert(ChildrenOf(field, depth), depth + 1);
    if (logical == "json") {
      out.metadata[std::string(kExtensionName)] = kJsonExtension;
    } else if (logical == "blob") {
      out.metadata.emplace(kBlobKey, "true");
    }
    // A list holds one item field, a map one entries field.
    const auto first_child = [&]() {
      if (children.size() > 1) children.resize(1);
      return std::move(children);
    };
    if (logical == "list" || logical == "list.struct") {
      out.type = ArrowDataType{.type = "list", .fields = first_child(), .length = {}};
    } else if (logical == "large_list" || logical == "large_list.struct") {
      out.type =
          ArrowDataType{.type = "large_list", .fields = first_child(), .length = {}};
    } else if (logical == "map") {
      out.type = ArrowDataType{.type = "map", .fields = first_child(), .length = {}};
    } else if (logical.starts_with("fixed_size_list:struct:")) {
      out.type = LeafArrowType(logical);
      out.type.type = "fixed_size_list";
      out.type.fields = first_child();
    } else {
      out.type = LeafArrowType(logical);
      // A struct's members; any other type with children keeps them, unknown as it is.
      if (!children.empty()) out.type.fields = std::move(children);
    }
    return out;
  }

  const std::vector<LanceField>& fields_;
  std::vector<bool> converted_;
  std::vector<size_t> roots_;
  std::unordered_map<int32_t, std::vector<size_t>> children_;
};

}  // namespace

ArrowDataType LeafArrowType(const std::string& logical_type) {
  for (const auto& [lance_name, arrow_name] : kPlainTypes) {
    if (logical_type == lance_name) {
      return ArrowDataType{.type = std::string(arrow_name), .fields = {}, .length = {}};
    }
  }
  if (logical_type.size() <= kMaxLogicalTypeBytes) {
    if (auto parameterised = Parameterised(logical_type))
      return *std::move(parameterised);
  }
  return ArrowDataType{.type = logical_type, .fields = {}, .length = {}};
}

ArrowSchema ToArrowSchema(const std::vector<LanceField>& fields,
                          const std::map<std::string, std::string>& metadata) {
  return ArrowSchema{.fields = FieldTree(fields).Roots(),
                     .metadata = ValidUtf8(metadata)};
}

}  // namespace cairn::lance
