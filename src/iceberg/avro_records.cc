#include <cstring>
#include <utility>

#include "common/macros.h"
#include "iceberg/avro_records_internal.h"

namespace cairn::iceberg::avro_internal {
namespace {

tl::unexpected<Error> WrongType(std::string_view what, std::string_view expected) {
  return BadRequest("Invalid manifest: {} is not {}", what, expected);
}

template <typename T>
std::string LittleEndian(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));  // x86-64 and arm64 are little-endian
  return bytes;
}

Datum Child(const Datum& parent, int node, const avro_value_t& value) {
  return Datum{parent.schema, node, value};
}

}  // namespace

std::optional<Datum> Resolve(const Datum& datum) {
  if (datum.type().type == AvroType::kNull) return std::nullopt;
  if (datum.type().type != AvroType::kUnion) return datum;
  int discriminant = 0;
  avro_value_t branch;
  if (avro_value_get_discriminant(&datum.value, &discriminant) != 0 ||
      avro_value_get_current_branch(&datum.value, &branch) != 0 || discriminant < 0 ||
      static_cast<size_t>(discriminant) >= datum.type().branches.size()) {
    return std::nullopt;
  }
  return Resolve(
      Child(datum, datum.type().branches[static_cast<size_t>(discriminant)], branch));
}

std::optional<Datum> Field(const Datum& record, int32_t field_id, std::string_view name) {
  const AvroNode& node = record.type();
  if (node.type != AvroType::kRecord) return std::nullopt;
  int index = record.schema->FieldIndexById(node, field_id);
  if (index < 0) {
    for (size_t i = 0; i < node.fields.size(); ++i) {
      if (!node.fields[i].field_id && node.fields[i].name == name)
        index = static_cast<int>(i);
    }
  }
  if (index < 0) return std::nullopt;
  avro_value_t child;
  if (avro_value_get_by_index(&record.value, static_cast<size_t>(index), &child,
                              nullptr) != 0) {
    return std::nullopt;
  }
  return Resolve(Child(record, node.fields[static_cast<size_t>(index)].type, child));
}

Result<int64_t> AsLong(const Datum& datum, std::string_view what) {
  if (datum.type().type == AvroType::kLong) {
    int64_t value = 0;
    if (avro_value_get_long(&datum.value, &value) == 0) return value;
  } else if (datum.type().type == AvroType::kInt) {
    int32_t value = 0;
    if (avro_value_get_int(&datum.value, &value) == 0) return value;
  }
  return WrongType(what, "a number");
}

Result<int32_t> AsInt(const Datum& datum, std::string_view what) {
  CAIRN_ASSIGN_OR_RAISE(int64_t value, AsLong(datum, what));
  if (value < INT32_MIN || value > INT32_MAX) return WrongType(what, "a 32-bit number");
  return static_cast<int32_t>(value);
}

Result<bool> AsBool(const Datum& datum, std::string_view what) {
  int value = 0;
  if (datum.type().type != AvroType::kBoolean ||
      avro_value_get_boolean(&datum.value, &value) != 0) {
    return WrongType(what, "a boolean");
  }
  return value != 0;
}

Result<std::string> AsBytes(const Datum& datum, std::string_view what) {
  const void* bytes = nullptr;
  const char* text = nullptr;
  size_t size = 0;
  switch (datum.type().type) {
    case AvroType::kString:
      if (avro_value_get_string(&datum.value, &text, &size) != 0) break;
      // Avro C counts the terminating NUL it adds.
      return std::string(text, size > 0 ? size - 1 : 0);
    case AvroType::kBytes:
      if (avro_value_get_bytes(&datum.value, &bytes, &size) != 0) break;
      return std::string(static_cast<const char*>(bytes), size);
    case AvroType::kFixed:
      if (avro_value_get_fixed(&datum.value, &bytes, &size) != 0) break;
      return std::string(static_cast<const char*>(bytes), size);
    default:
      break;
  }
  return WrongType(what, "a string or bytes");
}

Result<std::string> AsSingleValue(const Datum& datum, std::string_view what) {
  switch (datum.type().type) {
    case AvroType::kBoolean: {
      CAIRN_ASSIGN_OR_RAISE(bool value, AsBool(datum, what));
      return std::string(1, value ? '\x01' : '\x00');
    }
    case AvroType::kInt: {
      CAIRN_ASSIGN_OR_RAISE(int32_t value, AsInt(datum, what));
      return LittleEndian(value);
    }
    case AvroType::kLong: {
      CAIRN_ASSIGN_OR_RAISE(int64_t value, AsLong(datum, what));
      return LittleEndian(value);
    }
    case AvroType::kFloat: {
      float value = 0;
      if (avro_value_get_float(&datum.value, &value) != 0) break;
      return LittleEndian(value);
    }
    case AvroType::kDouble: {
      double value = 0;
      if (avro_value_get_double(&datum.value, &value) != 0) break;
      return LittleEndian(value);
    }
    default:
      return AsBytes(datum, what);
  }
  return WrongType(what, "a primitive value");
}

Status ForEachItem(const Datum& list, std::string_view what,
                   const std::function<Status(const Datum& item)>& visit) {
  const AvroNode& node = list.type();
  if (node.type != AvroType::kArray && node.type != AvroType::kMap) {
    return WrongType(what, "a list or map");
  }
  size_t size = 0;
  if (avro_value_get_size(&list.value, &size) != 0)
    return WrongType(what, "a list or map");
  for (size_t i = 0; i < size; ++i) {
    avro_value_t item;
    if (avro_value_get_by_index(&list.value, i, &item, nullptr) != 0) {
      return WrongType(what, "a readable list");
    }
    CAIRN_RETURN_IF_ERROR(visit(Child(list, node.items, item)));
  }
  return Ok();
}

Result<RecordDecoder> RecordDecoder::For(const AvroFileReader& reader) {
  RecordDecoder decoder(reader.schema());
  const std::string_view json = reader.schema_json();
  if (avro_schema_from_json_length(json.data(), json.size(), &decoder.avro_schema_) !=
      0) {
    return BadRequest("Invalid Avro schema: {}", avro_strerror());
  }
  decoder.iface_ = avro_generic_class_from_schema(decoder.avro_schema_);
  if (decoder.iface_ == nullptr ||
      avro_generic_value_new(decoder.iface_, &decoder.value_) != 0) {
    return BadRequest("Invalid Avro schema: {}", avro_strerror());
  }
  decoder.reader_ = avro_reader_memory("", 0);
  if (decoder.reader_ == nullptr) return Internal("Avro C could not make a reader");
  return decoder;
}

RecordDecoder::RecordDecoder(RecordDecoder&& other) noexcept
    : schema_(other.schema_),
      avro_schema_(std::exchange(other.avro_schema_, nullptr)),
      iface_(std::exchange(other.iface_, nullptr)),
      value_(std::exchange(other.value_, avro_value_t{})),
      reader_(std::exchange(other.reader_, nullptr)) {}

RecordDecoder::~RecordDecoder() {
  if (reader_ != nullptr) avro_reader_free(reader_);
  if (value_.iface != nullptr) avro_value_decref(&value_);
  if (iface_ != nullptr) avro_value_iface_decref(iface_);
  if (avro_schema_ != nullptr) avro_schema_decref(avro_schema_);
}

Status RecordDecoder::ForEach(const AvroBlock& block,
                              const std::function<Status(const Datum& record)>& visit) {
  avro_reader_memory_set_source(reader_, block.data.data(),
                                static_cast<int64_t>(block.data.size()));
  for (int64_t i = 0; i < block.count; ++i) {
    avro_value_reset(&value_);
    if (avro_value_read(reader_, &value_) != 0) {
      return BadRequest("Invalid Avro data: record {} of a block: {}", i,
                        avro_strerror());
    }
    CAIRN_RETURN_IF_ERROR(visit(Datum{schema_, schema_->root, value_}));
  }
  return Ok();
}

}  // namespace cairn::iceberg::avro_internal
