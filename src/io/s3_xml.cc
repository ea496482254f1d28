#include "io/s3_xml.h"

#include <expat.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>
#include <functional>
#include <iterator>
#include <memory>
#include <utility>

#include "common/macros.h"

namespace cairn {
namespace {

/// The parse state: the path of open elements and the text of the innermost one.
struct XmlWalk {
  std::string path;
  std::vector<std::string> texts;
  const XmlElementEnd* on_end = nullptr;
  XML_Parser parser = nullptr;
  bool had_doctype = false;
};

void OnStart(void* data, const XML_Char* name, const XML_Char** /*attributes*/) {
  auto* walk = static_cast<XmlWalk*>(data);
  if (!walk->path.empty()) walk->path.push_back('/');
  walk->path += name;
  walk->texts.emplace_back();
}

void OnEnd(void* data, const XML_Char* /*name*/) {
  auto* walk = static_cast<XmlWalk*>(data);
  (*walk->on_end)(walk->path, std::move(walk->texts.back()));
  walk->texts.pop_back();
  const size_t slash = walk->path.rfind('/');
  walk->path.resize(slash == std::string::npos ? 0 : slash);
}

void OnText(void* data, const XML_Char* text, int length) {
  auto* walk = static_cast<XmlWalk*>(data);
  if (!walk->texts.empty()) walk->texts.back().append(text, static_cast<size_t>(length));
}

void OnDoctype(void* data, const XML_Char* /*name*/, const XML_Char* /*sysid*/,
               const XML_Char* /*pubid*/, int /*has_internal_subset*/) {
  auto* walk = static_cast<XmlWalk*>(data);
  walk->had_doctype = true;
  XML_StopParser(walk->parser, XML_FALSE);
}

struct ParserFree {
  void operator()(XML_Parser parser) const { XML_ParserFree(parser); }
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Decodes a key of a listing made with `encoding-type=url`.
Result<std::string> UrlDecodeKey(std::string_view encoded) {
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      const int hi = i + 1 < encoded.size() ? HexValue(encoded[i + 1]) : -1;
      const int lo = i + 2 < encoded.size() ? HexValue(encoded[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return IOError("Malformed S3 listing: a key has a malformed %-escape");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
  }
  return out;
}

void AppendXmlEscaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out.push_back(c);
    }
  }
}

}  // namespace

Status WalkXml(std::string_view xml, const XmlElementEnd& on_end, std::string_view what) {
  if (xml.size() > static_cast<size_t>(INT_MAX)) {
    return IOError("Malformed {}: too large to parse", what);
  }
  std::unique_ptr<XML_ParserStruct, ParserFree> parser(XML_ParserCreate("UTF-8"));
  if (parser == nullptr) return IOError("Cannot parse an {}: out of memory", what);
  XmlWalk walk;
  walk.on_end = &on_end;
  walk.parser = parser.get();
  XML_SetUserData(parser.get(), &walk);
  XML_SetElementHandler(parser.get(), OnStart, OnEnd);
  XML_SetCharacterDataHandler(parser.get(), OnText);
  XML_SetStartDoctypeDeclHandler(parser.get(), OnDoctype);
  const auto status =
      XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), XML_TRUE);
  if (walk.had_doctype) return IOError("Malformed {}: it has a DOCTYPE", what);
  if (status != XML_STATUS_OK) {
    return IOError("Malformed {}: {} at line {}", what,
                   XML_ErrorString(XML_GetErrorCode(parser.get())),
                   XML_GetCurrentLineNumber(parser.get()));
  }
  return Ok();
}

Result<int64_t> ParseS3Timestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  auto number = [&](size_t at, size_t digits, int& out) {
    if (at + digits > text.size()) return false;
    const char* first = text.data() + at;
    auto [end, error] = std::from_chars(first, first + digits, out);
    return error == std::errc() && end == first + digits;
  };
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  const bool shaped = text.size() >= 20 && text[4] == '-' && text[7] == '-' &&
                      text[10] == 'T' && text[13] == ':' && text[16] == ':' &&
                      text.back() == 'Z';
  if (!shaped || !number(0, 4, year) || !number(5, 2, month) || !number(8, 2, day) ||
      !number(11, 2, hour) || !number(14, 2, minute) || !number(17, 2, second)) {
    return IOError("Malformed S3 timestamp");
  }
  int millis = 0;
  const std::string_view fraction = text.substr(19, text.size() - 20);
  if (!fraction.empty()) {
    const size_t digits = std::min<size_t>(fraction.size() - 1, 3);
    if (fraction[0] != '.' || fraction.size() < 2 ||
        fraction.find_first_not_of("0123456789", 1) != std::string_view::npos ||
        !number(20, digits, millis)) {
      return IOError("Malformed S3 timestamp");
    }
    for (size_t i = digits; i < 3; ++i) millis *= 10;
  }
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) {
    return IOError("Malformed S3 timestamp");
  }
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return ((days * 24 + hour) * 60 + minute) * 60000 + int64_t{second} * 1000 + millis;
}

Result<S3ListPage> ParseListObjectsV2(std::string_view xml) {
  S3ListPage page;
  bool truncated = false;
  bool url_encoded = false;
  bool root_seen = false;
  bool malformed_entry = false;
  int64_t modified_ms = kUnknownModifiedMs;  // of the <Contents> being read
  CAIRN_RETURN_IF_ERROR(WalkXml(xml, [&](const std::string& path, std::string text) {
    if (path == "ListBucketResult") {
      root_seen = true;
    } else if (path == "ListBucketResult/Contents/Key") {
      page.keys.push_back(std::move(text));
    } else if (path == "ListBucketResult/Contents/LastModified") {
      auto parsed = ParseS3Timestamp(text);
      malformed_entry |= !parsed;
      modified_ms = parsed.value_or(kUnknownModifiedMs);
    } else if (path == "ListBucketResult/Contents") {
      // One key per <Contents>, and its time with it.
      page.last_modified_ms.push_back(modified_ms);
      malformed_entry |= page.keys.size() != page.last_modified_ms.size();
      modified_ms = kUnknownModifiedMs;
    } else if (path == "ListBucketResult/IsTruncated") {
      truncated = text == "true";
    } else if (path == "ListBucketResult/NextContinuationToken") {
      page.next_continuation_token = std::move(text);
    } else if (path == "ListBucketResult/EncodingType") {
      url_encoded = text == "url";
    }
  }));
  if (!root_seen) return IOError("Malformed S3 listing: no ListBucketResult");
  if (malformed_entry) {
    return IOError(
        "Malformed S3 listing: an entry without exactly one Key or with a malformed "
        "LastModified");
  }
  if (truncated && page.next_continuation_token.empty()) {
    return IOError("Malformed S3 listing: truncated without a continuation token");
  }
  if (!truncated) page.next_continuation_token.clear();
  if (url_encoded) {
    for (auto& key : page.keys) {
      CAIRN_ASSIGN_OR_RAISE(key, UrlDecodeKey(key));
    }
  }
  return page;
}

Result<std::vector<S3DeleteError>> ParseDeleteObjectsResult(std::string_view xml) {
  std::vector<S3DeleteError> errors;
  S3DeleteError current;
  bool root_seen = false;
  CAIRN_RETURN_IF_ERROR(WalkXml(xml, [&](const std::string& path, std::string text) {
    if (path == "DeleteResult") {
      root_seen = true;
    } else if (path == "DeleteResult/Error/Key") {
      current.key = std::move(text);
    } else if (path == "DeleteResult/Error/Code") {
      current.code = std::move(text);
    } else if (path == "DeleteResult/Error/Message") {
      current.message = std::move(text);
    } else if (path == "DeleteResult/Error") {
      errors.push_back(std::exchange(current, {}));
    }
  }));
  if (!root_seen) return IOError("Malformed S3 DeleteObjects result: no DeleteResult");
  return errors;
}

S3ErrorBody ParseS3Error(std::string_view xml) {
  S3ErrorBody body;
  const auto parsed = WalkXml(xml, [&](const std::string& path, std::string text) {
    if (path == "Error/Code") {
      body.code = std::move(text);
    } else if (path == "Error/Message") {
      body.message = std::move(text);
    }
  });
  if (!parsed) return {};
  return body;
}

Result<std::vector<std::string>> ParseDeleteObjectsRequest(std::string_view xml,
                                                           size_t max_keys) {
  static constexpr std::string_view kKnown[] = {"Delete",
                                                "Delete/Quiet",
                                                "Delete/Object",
                                                "Delete/Object/Key",
                                                "Delete/Object/VersionId",
                                                "Delete/Object/ETag",
                                                "Delete/Object/LastModifiedTime",
                                                "Delete/Object/Size"};
  std::vector<std::string> keys;
  int keys_in_object = 0;
  std::string unexpected;
  bool malformed_object = false;
  bool root_seen = false;
  auto walked = WalkXml(
      xml,
      [&](const std::string& path, std::string text) {
        if (std::find(std::begin(kKnown), std::end(kKnown), path) == std::end(kKnown)) {
          if (unexpected.empty()) unexpected = path.substr(0, 100);
        } else if (path == "Delete") {
          root_seen = true;
        } else if (path == "Delete/Object/Key") {
          ++keys_in_object;
          if (keys.size() <= max_keys) keys.push_back(std::move(text));
        } else if (path == "Delete/Object") {
          malformed_object |= keys_in_object != 1;
          keys_in_object = 0;
        }
      },
      "DeleteObjects request");
  if (!walked) return BadRequest("{}", walked.error().message);
  if (!unexpected.empty()) {
    return BadRequest("Malformed DeleteObjects request: unexpected element {}",
                      unexpected);
  }
  if (!root_seen || malformed_object) {
    return BadRequest(
        "Malformed DeleteObjects request: expected <Delete> with one <Key> per <Object>");
  }
  if (keys.empty() || keys.size() > max_keys) {
    return BadRequest("Malformed DeleteObjects request: it must name 1 to {} keys",
                      max_keys);
  }
  return keys;
}

bool IsXmlSafeKey(std::string_view key) {
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

std::string DeleteObjectsBody(const std::vector<std::string>& keys) {
  std::string body =
      R"(<?xml version="1.0" encoding="UTF-8"?>)"
      R"(<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>)";
  for (const auto& key : keys) {
    body += "<Object><Key>";
    AppendXmlEscaped(body, key);
    body += "</Key></Object>";
  }
  body += "</Delete>";
  return body;
}

}  // namespace cairn
