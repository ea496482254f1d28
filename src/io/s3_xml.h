#pragma once

/// \file
/// \brief The XML that the S3 client reads and writes: parsers for the responses it
/// uses (ListObjectsV2, DeleteObjects, error bodies) and the DeleteObjects request body;
/// and the parser of DeleteObjects request bodies that remote signing checks.
/// Pure functions, thread-safe; used by `s3_client.cc`, `s3_request_signing.cc` and
/// their tests only.
///
/// Parsing uses expat (libexpat1-dev, Debian 12 ships 2.5): a maintained streaming
/// parser that builds no DOM (a 1,000-key listing is read in one pass), never loads
/// external entities, and has guarded against entity expansion ("billion laughs") since
/// 2.4. A document with a DOCTYPE is refused outright, as S3 never sends one. (libxml2
/// would also do, but is larger and needs its network and entity options turned off;
/// Boost.PropertyTree's parser is not meant for untrusted input.)

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "io/file_io.h"

namespace cairn {

/// \brief Called at the end of every element with its path from the root
/// (`ListBucketResult/Contents/Key`) and its own text (namespaces are not resolved).
using XmlElementEnd = std::function<void(const std::string& path, std::string text)>;

/// \brief Walks `xml` (with the guards of the file comment), calling `on_end` for every
/// element: what the parsers below and the STS client's are built on. Errors: `kIOError`
/// "Malformed S3 response: ..." for malformed XML or a DOCTYPE (the message never
/// quotes the document).
Status WalkXml(std::string_view xml, const XmlElementEnd& on_end,
               std::string_view what = "S3 response");

/// \brief One page of a ListObjectsV2 listing.
struct S3ListPage {
  /// The keys of the page, decoded (in the server's order: bytewise for S3).
  std::vector<std::string> keys;
  /// Each key's `LastModified` (same index), in milliseconds since the epoch;
  /// `kUnknownModifiedMs` where the server gave none.
  std::vector<int64_t> last_modified_ms;
  /// The token for the next page; empty when this page is the last.
  std::string next_continuation_token;
};

/// \brief The milliseconds since the epoch of an S3 timestamp (ISO 8601 in UTC,
/// `2026-12-03T16:05:03.000Z`; the fraction is optional). Errors: `kIOError` for any
/// other form.
Result<int64_t> ParseS3Timestamp(std::string_view text);

/// \brief A key that DeleteObjects could not delete.
struct S3DeleteError {
  std::string key;
  std::string code;
  std::string message;
};

/// \brief The `Code` and `Message` of an S3 error body (empty when absent or not XML).
struct S3ErrorBody {
  std::string code;
  std::string message;
};

/// \brief Parses a ListObjectsV2 result. Keys are URL-decoded when the response says
/// `<EncodingType>url</EncodingType>` (`%XX` and `+` for a space, as AWS encodes them).
/// Errors: `kIOError` for malformed XML, another root element, a truncated page without
/// a continuation token, or a malformed escape in a key.
Result<S3ListPage> ParseListObjectsV2(std::string_view xml);

/// \brief Parses a DeleteObjects result: the keys that were not deleted (in Quiet mode
/// the deleted ones are not listed). Errors: `kIOError` for malformed XML.
Result<std::vector<S3DeleteError>> ParseDeleteObjectsResult(std::string_view xml);

/// \brief The code and message of an S3 `<Error>` body; both empty if it is not one.
S3ErrorBody ParseS3Error(std::string_view xml);

/// \brief The keys of a DeleteObjects request body (`<Delete><Object><Key>`), decoded
/// (entities and character references resolved, as S3 resolves them). Strict, because
/// the keys are checked against a policy before the request is signed: an element other
/// than those of the S3 schema (`Quiet`, `Object`, `Key`, `VersionId`, `ETag`,
/// `LastModifiedTime`, `Size`) — notably a namespace-prefixed `<s3:Key>` that a
/// namespace-aware server would read as a key — an `<Object>` without exactly one
/// `<Key>`, a DOCTYPE, or more than `max_keys` keys is refused. Errors: `kBadRequest`.
Result<std::vector<std::string>> ParseDeleteObjectsRequest(std::string_view xml,
                                                           size_t max_keys);

/// \brief Whether `key` can be written in an XML 1.0 document: no control characters but
/// tab, line feed and carriage return (which `DeleteObjectsBody` writes as character
/// references, so that a parser does not normalise them).
bool IsXmlSafeKey(std::string_view key);

/// \brief The body of a Quiet-mode DeleteObjects request for `keys` (each
/// `IsXmlSafeKey`), XML-escaped.
std::string DeleteObjectsBody(const std::vector<std::string>& keys);

}  // namespace cairn
