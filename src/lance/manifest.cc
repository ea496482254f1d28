#include "lance/manifest.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <new>
#include <set>
#include <unordered_map>
#include <utility>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include "common/macros.h"
#include "lance/dataset.h"
#include "lance/manifest_internal.h"
#include "lance/proto/manifest.pb.h"

namespace cairn::lance {
namespace internal {

uint64_t ReadLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i]))
             << (8 * i);
  }
  return value;
}

void PutLittleEndian(std::string& out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFU));
  }
}

tl::unexpected<Error> NotAManifest(std::string_view why) {
  return Internal("not a valid Lance manifest: {}", why);
}

Result<std::string_view> MessageAt(std::string_view file, uint64_t position, size_t end,
                                   std::string_view what) {
  if (position > end || end - position < kLengthPrefixBytes) {
    return NotAManifest(
        fmt::format("the {} at offset {} lies outside the file", what, position));
  }
  const size_t start = static_cast<size_t>(position) + kLengthPrefixBytes;
  const uint64_t length = ReadLittleEndian(file, static_cast<size_t>(position), 4);
  if (length > end - start) {
    return NotAManifest(fmt::format("the {} of {} bytes at offset {} runs past its end",
                                    what, length, position));
  }
  return file.substr(start, static_cast<size_t>(length));
}

Result<std::string_view> ManifestMessage(std::string_view file) {
  if (file.size() > kMaxManifestBytes) {
    return Internal("Lance manifest of {} bytes is larger than the {} bytes Cairn reads",
                    file.size(), kMaxManifestBytes);
  }
  if (auto valid = ValidateManifest(file); !valid) {
    return NotAManifest(valid.error().message);
  }
  const size_t footer = file.size() - kFooterBytes;
  return MessageAt(file, ReadLittleEndian(file, footer, 8), footer, "manifest message");
}

bool ParseBounded(std::string_view bytes, google::protobuf::MessageLite& message) {
  // libprotobuf logs why a parse failed (invalid UTF-8 in a string field, say) to
  // stderr; the failure comes back as an error value naming the file, so the log line
  // would only repeat it at every read of a bad file. (A silencer is thread-safe; it may
  // also hide another thread's protobuf message meanwhile: Cairn has no other use.)
  google::protobuf::LogSilencer silence;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  in.SetRecursionLimit(kProtobufRecursionLimit);
  return message.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

}  // namespace internal

namespace {

using internal::kFooterBytes;
using internal::MessageAt;
using internal::NotAManifest;
using internal::ParseBounded;

/// Lance keeps its own indices (fragment reuse, MemWAL) in the index section beside the
/// user's; their names start with this.
constexpr std::string_view kInternalIndexPrefix = "__lance";

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b
             ? std::numeric_limits<uint64_t>::max()
             : a + b;
}

/// The version's timestamp in milliseconds; nullopt when unset or out of range.
std::optional<int64_t> TimestampMillis(const pb::Manifest& manifest) {
  if (!manifest.has_timestamp()) return std::nullopt;
  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1000 - 1;
  const int64_t seconds = manifest.timestamp().seconds();
  if (seconds > kMaxSeconds || seconds < -kMaxSeconds) return std::nullopt;
  return seconds * 1000 + manifest.timestamp().nanos() / 1000000;
}

template <class ProtoMap>
std::map<std::string, std::string> ToMap(const ProtoMap& entries) {
  return {entries.begin(), entries.end()};
}

/// Checks that every field's parent is a field and that no chain of parents is longer
/// than `kMaxFieldDepth` (which also rules out cycles).
Status CheckFieldTree(const std::vector<LanceField>& fields) {
  std::unordered_map<int32_t, int32_t> parent_of;
  for (const auto& field : fields) parent_of.emplace(field.id, field.parent_id);
  for (const auto& field : fields) {
    int depth = 1;
    for (int32_t parent = field.parent_id; parent >= 0; ++depth) {
      auto it = parent_of.find(parent);
      if (it == parent_of.end()) {
        return NotAManifest(fmt::format(
            "field '{}' names parent {}, which is not a field", field.name, parent));
      }
      if (depth >= kMaxFieldDepth) {
        return Internal("Lance manifest: field '{}' is nested deeper than {} levels",
                        field.name, kMaxFieldDepth);
      }
      parent = it->second;
    }
  }
  return Ok();
}

std::vector<LanceField> FieldsOf(const pb::Manifest& manifest) {
  std::vector<LanceField> fields;
  fields.reserve(static_cast<size_t>(manifest.fields_size()));
  for (const auto& field : manifest.fields()) {
    fields.push_back(LanceField{.id = field.id(),
                                .parent_id = field.parent_id(),
                                .name = field.name(),
                                .logical_type = field.logical_type(),
                                .nullable = field.nullable(),
                                .metadata = ToMap(field.metadata())});
  }
  return fields;
}

ManifestSummary SummarizeFragments(const pb::Manifest& manifest) {
  ManifestSummary summary;
  std::vector<uint64_t> lengths;
  lengths.reserve(static_cast<size_t>(manifest.fragments_size()));
  for (const auto& fragment : manifest.fragments()) {
    ++summary.fragments;
    const uint64_t physical = fragment.physical_rows();
    lengths.push_back(physical);
    if (physical < kSmallFragmentRows) ++summary.small_fragments;
    summary.physical_rows = SaturatingAdd(summary.physical_rows, physical);
    uint64_t deleted = 0;
    if (fragment.has_deletion_file()) {
      ++summary.deletion_files;
      deleted = std::min(fragment.deletion_file().num_deleted_rows(), physical);
    }
    summary.deleted_rows = SaturatingAdd(summary.deleted_rows, deleted);
    summary.live_rows = SaturatingAdd(summary.live_rows, physical - deleted);
    for (const auto& file : fragment.files()) {
      ++summary.data_files;
      if (file.file_size_bytes() == 0) ++summary.data_files_without_size;
      summary.data_file_bytes =
          SaturatingAdd(summary.data_file_bytes, file.file_size_bytes());
    }
  }
  summary.lengths = SummarizeFragmentLengths(std::move(lengths));
  return summary;
}

/// Sums up the index section the manifest points at into `summary`.
Status SummarizeIndices(std::string_view file, uint64_t position,
                        ManifestSummary& summary) {
  CAIRN_ASSIGN_OR_RAISE(
      std::string_view bytes,
      MessageAt(file, position, file.size() - kFooterBytes, "index section"));
  pb::IndexSection section;
  if (!ParseBounded(bytes, section)) {
    return NotAManifest("its index section does not parse");
  }
  std::set<std::string_view> names;
  for (const auto& index : section.indices()) {
    if (!std::string_view(index.name()).starts_with(kInternalIndexPrefix)) {
      names.insert(index.name());
    }
    for (const auto& index_file : index.files()) {
      summary.index_file_bytes =
          SaturatingAdd(summary.index_file_bytes, index_file.size_bytes());
    }
  }
  summary.has_index_section = true;
  summary.indices = names.size();
  return Ok();
}

Result<LanceManifest> Parse(std::string_view file) {
  CAIRN_ASSIGN_OR_RAISE(std::string_view bytes, internal::ManifestMessage(file));
  pb::Manifest message;
  if (!ParseBounded(bytes, message)) {
    return NotAManifest("its Manifest message does not parse");
  }
  LanceManifest manifest;
  manifest.version = message.version();
  manifest.timestamp_ms = TimestampMillis(message);
  manifest.tag = message.tag();
  if (message.has_branch()) manifest.branch = message.branch();
  manifest.writer_library = message.writer_version().library();
  manifest.writer_version = message.writer_version().version();
  manifest.data_format = message.data_format().file_format();
  manifest.data_format_version = message.data_format().version();
  manifest.reader_feature_flags = message.reader_feature_flags();
  manifest.writer_feature_flags = message.writer_feature_flags();
  manifest.transaction_file = message.transaction_file();
  if (message.has_max_fragment_id()) manifest.max_fragment_id = message.max_fragment_id();
  manifest.fields = FieldsOf(message);
  CAIRN_RETURN_IF_ERROR(CheckFieldTree(manifest.fields));
  manifest.schema_metadata = ToMap(message.schema_metadata());
  manifest.table_metadata = ToMap(message.table_metadata());
  manifest.config = ToMap(message.config());
  manifest.summary = SummarizeFragments(message);
  if (message.has_index_section()) {
    CAIRN_RETURN_IF_ERROR(
        SummarizeIndices(file, message.index_section(), manifest.summary));
  }
  return manifest;
}

}  // namespace

FragmentLengths SummarizeFragmentLengths(std::vector<uint64_t> physical_rows) {
  FragmentLengths lengths;
  const size_t n = physical_rows.size();
  if (n == 0) return lengths;
  std::sort(physical_rows.begin(), physical_rows.end());
  uint64_t sum = 0;
  for (uint64_t rows : physical_rows) sum = SaturatingAdd(sum, rows);
  lengths.min = physical_rows.front();
  lengths.max = physical_rows.back();
  lengths.mean = sum / n;
  lengths.p25 = physical_rows[n / 4];
  lengths.p50 = physical_rows[n / 2];
  lengths.p75 = physical_rows[n * 3 / 4];
  lengths.p99 = physical_rows[n * 99 / 100];
  return lengths;
}

Result<LanceManifest> ParseManifest(std::string_view file_bytes) {
  // The parser does not throw for bad input; memory exhaustion on a huge message can.
  try {
    return Parse(file_bytes);
  } catch (const std::bad_alloc&) {
    return Internal("Lance manifest of {} bytes: out of memory while parsing it",
                    file_bytes.size());
  } catch (const std::exception& e) {
    return Internal("Lance manifest does not parse: {}", e.what());
  }
}

}  // namespace cairn::lance
