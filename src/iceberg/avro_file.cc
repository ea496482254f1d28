#include "iceberg/avro_file.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include <snappy-c.h>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

constexpr std::string_view kMagic{"Obj\x01", 4};
constexpr size_t kSyncBytes = 16;
constexpr int kMaxVarintBytes = 10;

// Reads Avro binary primitives from a byte range, never past its end.
class AvroCursor {
 public:
  explicit AvroCursor(std::string_view data) : data_(data) {}

  Result<int64_t> Long() {
    uint64_t value = 0;
    for (int shift = 0, i = 0; i < kMaxVarintBytes; ++i, shift += 7) {
      if (pos_ >= data_.size()) return Truncated("a number");
      const auto byte = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
      }
    }
    return BadRequest("Invalid Avro data: a number longer than {} bytes at byte {}",
                      kMaxVarintBytes, pos_);
  }

  Result<int32_t> Int() {
    CAIRN_ASSIGN_OR_RAISE(int64_t value, Long());
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      return BadRequest("Invalid Avro data: int out of range at byte {}", pos_);
    }
    return static_cast<int32_t>(value);
  }

  // A length or count that must lie in [0, bound].
  Result<int64_t> Length(std::string_view what, int64_t bound) {
    CAIRN_ASSIGN_OR_RAISE(int64_t value, Long());
    if (value < 0 || value > bound) {
      return BadRequest("Invalid Avro data: {} of {} at byte {} (allowed 0 to {})", what,
                        value, pos_, bound);
    }
    return value;
  }

  Result<std::string_view> Bytes(size_t count) {
    if (count > remaining()) return Truncated("bytes");
    std::string_view bytes = data_.substr(pos_, count);
    pos_ += count;
    return bytes;
  }

  Result<std::string_view> LengthPrefixed(std::string_view what) {
    CAIRN_ASSIGN_OR_RAISE(int64_t length,
                          Length(what, static_cast<int64_t>(remaining())));
    return Bytes(static_cast<size_t>(length));
  }

  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  std::string_view rest() const { return data_.substr(pos_); }

 private:
  tl::unexpected<Error> Truncated(std::string_view what) const {
    return BadRequest("Invalid Avro data: {} runs past the end at byte {}", what, pos_);
  }

  std::string_view data_;
  size_t pos_ = 0;
};

// Walks values of a schema over a cursor, checking every length, count and index.
class ValueChecker {
 public:
  ValueChecker(const AvroSchema& schema, AvroCursor& cursor, int64_t item_budget)
      : schema_(schema), cursor_(cursor), item_budget_(item_budget) {}

  Status Check(int index) {
    const AvroNode& node = schema_.node(index);
    switch (node.type) {
      case AvroType::kNull:
        return Ok();
      case AvroType::kBoolean: {
        CAIRN_ASSIGN_OR_RAISE(std::string_view byte, cursor_.Bytes(1));
        if (byte[0] != 0 && byte[0] != 1) return Invalid("a boolean that is not 0 or 1");
        return Ok();
      }
      case AvroType::kInt:
      case AvroType::kEnum: {
        CAIRN_ASSIGN_OR_RAISE(int32_t value, cursor_.Int());
        if (node.type == AvroType::kEnum && (value < 0 || value >= node.size)) {
          return Invalid("an enum symbol out of range");
        }
        return Ok();
      }
      case AvroType::kLong:
        return cursor_.Long().map([](int64_t) {});
      case AvroType::kFloat:
        return cursor_.Bytes(4).map([](std::string_view) {});
      case AvroType::kDouble:
        return cursor_.Bytes(8).map([](std::string_view) {});
      case AvroType::kBytes:
      case AvroType::kString:
        return cursor_.LengthPrefixed("a length").map([](std::string_view) {});
      case AvroType::kFixed:
        return cursor_.Bytes(static_cast<size_t>(node.size)).map([](std::string_view) {});
      case AvroType::kRecord:
        for (const AvroField& field : node.fields)
          CAIRN_RETURN_IF_ERROR(Check(field.type));
        return Ok();
      case AvroType::kUnion: {
        CAIRN_ASSIGN_OR_RAISE(
            int64_t branch,
            cursor_.Length("a union branch",
                           static_cast<int64_t>(node.branches.size()) - 1));
        return Check(node.branches[static_cast<size_t>(branch)]);
      }
      case AvroType::kArray:
      case AvroType::kMap:
        return Items(node);
    }
    return Invalid("an unknown type");
  }

 private:
  Status Items(const AvroNode& node) {
    while (true) {
      CAIRN_ASSIGN_OR_RAISE(int64_t count, cursor_.Long());
      if (count == 0) return Ok();
      size_t expected_end = 0;
      if (count < 0) {
        if (count == std::numeric_limits<int64_t>::min())
          return Invalid("an item count out of range");
        count = -count;
        CAIRN_ASSIGN_OR_RAISE(
            int64_t size,
            cursor_.Length("a block size", static_cast<int64_t>(cursor_.remaining())));
        expected_end = cursor_.position() + static_cast<size_t>(size);
      }
      if (count > item_budget_) {
        return Invalid("more array or map items than the block has bytes");
      }
      item_budget_ -= count;
      for (int64_t i = 0; i < count; ++i) {
        if (node.type == AvroType::kMap) {
          CAIRN_RETURN_IF_ERROR(
              cursor_.LengthPrefixed("a map key length").map([](std::string_view) {}));
        }
        CAIRN_RETURN_IF_ERROR(Check(node.items));
      }
      if (expected_end != 0 && cursor_.position() != expected_end) {
        return Invalid("an item block whose size does not match its items");
      }
    }
  }

  tl::unexpected<Error> Invalid(std::string_view what) const {
    return BadRequest("Invalid Avro data: {} at byte {}", what, cursor_.position());
  }

  const AvroSchema& schema_;
  AvroCursor& cursor_;
  int64_t item_budget_;
};

Result<std::string> InflateRaw(std::string_view stored, size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return Internal("zlib failed to start");
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&stream, &inflateEnd);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
  stream.avail_in = static_cast<uInt>(stored.size());
  std::string out;
  int code = Z_OK;
  // Room grows with what came out (a guess of 4× the input first, then doubling), so
  // that a 64 KiB block does not zero a megabyte: that was a third of a cold plan's time.
  size_t room = std::clamp<size_t>(stored.size() * 4, 4096, size_t{1} << 20);
  while (code != Z_STREAM_END) {
    if (out.size() >= max_bytes) {
      return BadRequest("Invalid Avro data: a block inflates past {} bytes", max_bytes);
    }
    const size_t chunk = std::min(max_bytes - out.size(), room);
    room = std::min<size_t>(std::max(room, out.size() + chunk), size_t{1} << 20);
    const size_t before = out.size();
    out.resize(before + chunk);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream.avail_out = static_cast<uInt>(chunk);
    code = inflate(&stream, Z_NO_FLUSH);
    out.resize(before + chunk - stream.avail_out);
    if (code == Z_BUF_ERROR && stream.avail_in == 0) code = Z_DATA_ERROR;
    if (code != Z_OK && code != Z_STREAM_END && code != Z_BUF_ERROR) {
      return BadRequest("Invalid Avro data: a deflate block does not inflate");
    }
  }
  return out;
}

Result<std::string> UnSnappy(std::string_view stored, size_t max_bytes) {
  if (stored.size() < 4)
    return BadRequest("Invalid Avro data: a snappy block without its checksum");
  const std::string_view body = stored.substr(0, stored.size() - 4);
  size_t length = 0;
  if (snappy_uncompressed_length(body.data(), body.size(), &length) != SNAPPY_OK) {
    return BadRequest("Invalid Avro data: a snappy block does not decompress");
  }
  if (length > max_bytes) {
    return BadRequest("Invalid Avro data: a block inflates past {} bytes", max_bytes);
  }
  std::string out(length, '\0');
  if (snappy_uncompress(body.data(), body.size(), out.data(), &length) != SNAPPY_OK) {
    return BadRequest("Invalid Avro data: a snappy block does not decompress");
  }
  out.resize(length);
  const auto* tail = reinterpret_cast<const unsigned char*>(stored.data() + body.size());
  const uint32_t expected = (uint32_t{tail[0]} << 24) | (uint32_t{tail[1]} << 16) |
                            (uint32_t{tail[2]} << 8) | uint32_t{tail[3]};
  const auto actual = static_cast<uint32_t>(crc32(
      0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  if (actual != expected)
    return BadRequest("Invalid Avro data: a snappy block's checksum does not match");
  return out;
}

Result<std::string> UnZstd(std::string_view stored, size_t max_bytes) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(),
                                                               &ZSTD_freeDCtx);
  if (!context) return Internal("zstd failed to start");
  ZSTD_inBuffer in{stored.data(), stored.size(), 0};
  std::string out;
  size_t pending = 1;
  while (in.pos < in.size || pending != 0) {
    if (out.size() >= max_bytes) {
      return BadRequest("Invalid Avro data: a block inflates past {} bytes", max_bytes);
    }
    const size_t chunk = std::min<size_t>(max_bytes - out.size(), size_t{1} << 20);
    const size_t before = out.size();
    out.resize(before + chunk);
    ZSTD_outBuffer buffer{out.data() + before, chunk, 0};
    pending = ZSTD_decompressStream(context.get(), &buffer, &in);
    out.resize(before + buffer.pos);
    if (ZSTD_isError(pending) != 0U) {
      return BadRequest("Invalid Avro data: a zstandard block does not decompress");
    }
    if (in.pos == in.size && buffer.pos == 0 && pending != 0) {
      return BadRequest("Invalid Avro data: a zstandard block is truncated");
    }
  }
  return out;
}

}  // namespace

Status CheckAvroValues(const AvroSchema& schema, std::string_view data, int64_t count) {
  if (count < 0 || static_cast<uint64_t>(count) > data.size()) {
    return BadRequest("Invalid Avro data: a block claims {} records in {} bytes", count,
                      data.size());
  }
  AvroCursor cursor(data);
  ValueChecker checker(schema, cursor, static_cast<int64_t>(data.size()));
  for (int64_t i = 0; i < count; ++i) CAIRN_RETURN_IF_ERROR(checker.Check(schema.root));
  if (cursor.remaining() != 0) {
    return BadRequest("Invalid Avro data: {} bytes left after the block's {} records",
                      cursor.remaining(), count);
  }
  return Ok();
}

Result<AvroFileReader> AvroFileReader::Open(std::string_view file,
                                            size_t max_block_bytes) {
  if (file.substr(0, kMagic.size()) != kMagic) {
    return BadRequest("Not an Avro container file (no 'Obj' magic)");
  }
  AvroFileReader reader;
  reader.max_block_bytes_ = max_block_bytes;
  AvroCursor cursor(file.substr(kMagic.size(), max_block_bytes));
  while (true) {
    CAIRN_ASSIGN_OR_RAISE(int64_t count, cursor.Long());
    if (count == 0) break;
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) {
        return BadRequest("Invalid Avro header: an entry count out of range");
      }
      count = -count;
      CAIRN_RETURN_IF_ERROR(cursor.Long().map([](int64_t) {}));
    }
    if (static_cast<uint64_t>(count) > cursor.remaining()) {
      return BadRequest("Invalid Avro header: {} entries in {} bytes", count,
                        cursor.remaining());
    }
    for (int64_t i = 0; i < count; ++i) {
      CAIRN_ASSIGN_OR_RAISE(std::string_view key,
                            cursor.LengthPrefixed("a header key length"));
      CAIRN_ASSIGN_OR_RAISE(std::string_view value,
                            cursor.LengthPrefixed("a header value length"));
      reader.metadata_.emplace_back(key, value);
    }
  }
  CAIRN_ASSIGN_OR_RAISE(std::string_view sync, cursor.Bytes(kSyncBytes));
  reader.sync_ = sync;
  reader.rest_ = file.substr(kMagic.size() + cursor.position());
  auto schema = reader.Metadata("avro.schema");
  if (!schema) return BadRequest("Invalid Avro header: no 'avro.schema'");
  reader.schema_json_ = *schema;
  CAIRN_ASSIGN_OR_RAISE(reader.schema_, ParseAvroSchema(reader.schema_json_));
  const std::string_view codec = reader.Metadata("avro.codec").value_or("null");
  if (codec == "null") {
    reader.codec_ = Codec::kNull;
  } else if (codec == "deflate") {
    reader.codec_ = Codec::kDeflate;
  } else if (codec == "snappy") {
    reader.codec_ = Codec::kSnappy;
  } else if (codec == "zstandard") {
    reader.codec_ = Codec::kZstandard;
  } else {
    return BadRequest(
        "Unsupported Avro codec '{}' (null, deflate, snappy and zstandard are read)",
        codec);
  }
  return reader;
}

std::optional<std::string_view> AvroFileReader::Metadata(std::string_view key) const {
  for (const auto& [name, value] : metadata_) {
    if (name == key) return std::string_view(value);
  }
  return std::nullopt;
}

Result<std::string_view> AvroFileReader::Decompress(std::string_view stored,
                                                    size_t block_number) {
  Result<std::string> inflated;
  switch (codec_) {
    case Codec::kNull:
      if (stored.size() > max_block_bytes_) {
        return BadRequest("Invalid Avro data: block {} is larger than {} bytes",
                          block_number, max_block_bytes_);
      }
      return stored;
    case Codec::kDeflate:
      inflated = InflateRaw(stored, max_block_bytes_);
      break;
    case Codec::kSnappy:
      inflated = UnSnappy(stored, max_block_bytes_);
      break;
    case Codec::kZstandard:
      inflated = UnZstd(stored, max_block_bytes_);
      break;
  }
  if (!inflated) {
    return BadRequest("{} (block {})", inflated.error().message, block_number);
  }
  inflated_ = std::move(*inflated);
  return std::string_view(inflated_);
}

Result<std::optional<AvroBlock>> AvroFileReader::NextBlock() {
  if (rest_.empty()) return std::nullopt;
  const size_t number = ++blocks_read_;
  AvroCursor cursor(rest_);
  CAIRN_ASSIGN_OR_RAISE(
      int64_t count,
      cursor.Length("a record count", std::numeric_limits<int64_t>::max()));
  CAIRN_ASSIGN_OR_RAISE(std::string_view stored, cursor.LengthPrefixed("a block size"));
  CAIRN_ASSIGN_OR_RAISE(std::string_view sync, cursor.Bytes(kSyncBytes));
  if (sync != sync_) {
    return BadRequest(
        "Invalid Avro data: block {} does not end with the file's sync marker", number);
  }
  rest_ = cursor.rest();
  CAIRN_ASSIGN_OR_RAISE(std::string_view data, Decompress(stored, number));
  decompressed_ += data.size();
  if (decompressed_ > max_block_bytes_) {
    return BadRequest("Invalid Avro data: the file's blocks inflate past {} bytes in all",
                      max_block_bytes_);
  }
  if (auto checked = CheckAvroValues(schema_, data, count); !checked) {
    return BadRequest("{} (block {})", checked.error().message, number);
  }
  return AvroBlock{count, data};
}

}  // namespace cairn::iceberg
