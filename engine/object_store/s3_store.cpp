// The S3 client: libcurl does the HTTP and signs every request (CURLOPT_AWS_SIGV4, curl >= 7.75);
// this file only addresses objects, moves bytes between them and local files, and turns failures
// into one line. No request is retried: a failure ends the run with that line.
#include <curl/curl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "engine/object_store/object_store.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// An error body is a few hundred bytes of XML; a listing of 1,000 keys a few hundred KB.
constexpr std::size_t kMaxErrorBody = 64 << 10;
constexpr std::size_t kMaxListingBody = 16 << 20;
// What S3 returns in one listing page at most.
constexpr char kListingPage[] = "1000";

using CurlHandle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using HeaderList = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;
using File = std::unique_ptr<std::FILE, decltype(&std::fclose)>;

// RFC 3986's unreserved characters stay, every other byte is %XX: what SigV4's canonical request
// expects, so the path and query curl signs are the ones S3 checks.
std::string UriEncoded(const std::string& text, bool keep_slash) {
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      encoded += c;
    } else {
      encoded += Printf("%%%02X", byte);
    }
  }
  return encoded;
}

// The text of the first <tag>...</tag> in `xml` at or after `from`, XML's entities decoded.
std::string XmlText(const std::string& xml, const std::string& tag, std::size_t from = 0) {
  const std::string open = "<" + tag + ">";
  const std::size_t start = xml.find(open, from);
  if (start == std::string::npos) return "";
  const std::size_t end = xml.find("</" + tag + ">", start);
  if (end == std::string::npos) return "";
  const std::string raw = xml.substr(start + open.size(), end - start - open.size());
  static const std::pair<const char*, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string text;
  for (std::size_t i = 0; i < raw.size();) {
    bool decoded = false;
    for (const auto& [entity, c] : kEntities) {
      if (raw.compare(i, std::strlen(entity), entity) == 0) {
        text += c;
        i += std::strlen(entity);
        decoded = true;
        break;
      }
    }
    if (!decoded) text += raw[i++];
  }
  return text;
}

// Where a response goes: a 2xx body into `file` or `text`, any other status's body (S3's XML
// error) into `error_body`.
struct ResponseSink {
  CURL* curl = nullptr;
  std::FILE* file = nullptr;
  std::string* text = nullptr;
  std::size_t max_text = kMaxListingBody;
  std::string error_body;
  int write_errno = 0;  // the local file could not take the bytes
  bool text_too_large = false;
};

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto& sink = *static_cast<ResponseSink*>(user);
  const std::size_t bytes = size * count;
  long status = 0;
  curl_easy_getinfo(sink.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    sink.error_body.append(
        data, std::min(bytes, kMaxErrorBody - std::min(kMaxErrorBody, sink.error_body.size())));
    return bytes;
  }
  if (sink.file != nullptr) {
    if (std::fwrite(data, 1, bytes, sink.file) != bytes) {
      sink.write_errno = errno;
      return 0;  // ends the transfer with CURLE_WRITE_ERROR
    }
    return bytes;
  }
  if (sink.text != nullptr) {
    if (sink.text->size() + bytes > sink.max_text) {
      sink.text_too_large = true;
      return 0;
    }
    sink.text->append(data, bytes);
  }
  return bytes;
}

const char* ContentType(const std::string& key) {
  const auto ends_with = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return key.size() >= n && key.compare(key.size() - n, n, suffix) == 0;
  };
  if (ends_with(".json")) return "application/json";
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".md")) return "text/markdown; charset=utf-8";
  return "application/octet-stream";
}

class S3Store : public ObjectStore {
 public:
  explicit S3Store(S3Config config) : config_(std::move(config)) {}

  std::vector<std::string> List(const ObjectUrl& prefix) override {
    std::vector<std::string> names;
    std::string token;
    do {
      // The parameters in name order: curl signs the query as it is written, and SigV4's
      // canonical query string is sorted.
      std::string query;
      if (!token.empty()) query += "continuation-token=" + UriEncoded(token, false) + "&";
      query += "delimiter=%2F&list-type=2&max-keys=" + std::string(kListingPage) +
               "&prefix=" + UriEncoded(prefix.key, false);
      std::string listing;
      ResponseSink sink;
      sink.text = &listing;
      Perform(ObjectUrl{prefix.bucket, ""}, prefix, "list", "GET", query, sink, nullptr, 0);
      for (std::size_t at = listing.find("<Contents>"); at != std::string::npos;
           at = listing.find("<Contents>", at + 1)) {
        const std::string key = XmlText(listing, "Key", at);
        if (key.size() <= prefix.key.size() || key.compare(0, prefix.key.size(), prefix.key) != 0)
          continue;
        const std::string name = key.substr(prefix.key.size());
        if (name.find('/') == std::string::npos) names.push_back(name);
      }
      token = XmlText(listing, "IsTruncated") == "true" ? XmlText(listing, "NextContinuationToken")
                                                        : "";
    } while (!token.empty());
    std::sort(names.begin(), names.end());
    return names;
  }

  void Download(const ObjectUrl& object, const std::string& file) override {
    File local(std::fopen(file.c_str(), "wb"), &std::fclose);
    if (!local) {
      throw ObjectStoreError(object, "read",
                             "cannot write the local copy " + file + ": " + std::strerror(errno));
    }
    ResponseSink sink;
    sink.file = local.get();
    Perform(object, object, "read", "GET", "", sink, nullptr, 0);
    if (std::fflush(local.get()) != 0) {
      throw ObjectStoreError(object, "read",
                             "cannot write the local copy " + file + ": " + std::strerror(errno));
    }
  }

  void Upload(const std::string& file, const ObjectUrl& object) override {
    File local(std::fopen(file.c_str(), "rb"), &std::fclose);
    struct stat status {};
    if (!local || ::fstat(fileno(local.get()), &status) != 0) {
      throw ObjectStoreError(object, "write", "cannot read " + file + ": " + std::strerror(errno));
    }
    ResponseSink sink;
    Perform(object, object, "write", "PUT", "", sink, local.get(), status.st_size);
  }

  void Remove(const ObjectUrl& object) override {
    ResponseSink sink;
    Perform(object, object, "delete", "DELETE", "", sink, nullptr, 0);
  }

 private:
  // The request's URL: path-style (ENDPOINT/BUCKET/KEY) at an overridden endpoint, which
  // S3-compatible stores expect, and for bucket names with dots, which AWS's TLS certificates do
  // not cover as host names; else virtual-hosted (BUCKET.s3.REGION.amazonaws.com/KEY).
  std::string Address(const ObjectUrl& url, const std::string& query) const {
    std::string address;
    if (config_.custom_endpoint || url.bucket.find('.') != std::string::npos) {
      address = config_.endpoint + "/" + url.bucket + "/";
    } else {
      const std::string scheme = "https://";
      address = scheme + url.bucket + "." + config_.endpoint.substr(scheme.size()) + "/";
    }
    address += UriEncoded(url.key, true);
    if (!query.empty()) address += "?" + query;
    return address;
  }

  // Sends one request to `target`; throws ObjectStoreError, naming `url`, unless the store
  // answered 2xx.
  void Perform(const ObjectUrl& target, const ObjectUrl& url, const std::string& action,
               const char* method, const std::string& query, ResponseSink& sink, std::FILE* upload,
               curl_off_t upload_bytes) {
    static std::once_flag initialised;
    std::call_once(initialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    CurlHandle curl(curl_easy_init(), &curl_easy_cleanup);
    if (!curl) throw ObjectStoreError(url, action, "cannot start libcurl");
    sink.curl = curl.get();
    const std::string address = Address(target, query);
    const std::string signing = "aws:amz:" + config_.region + ":s3";
    HeaderList headers(nullptr, &curl_slist_free_all);
    const auto add_header = [&](const std::string& header) {
      headers.reset(curl_slist_append(headers.release(), header.c_str()));
    };
    // S3 wants the payload's hash signed; an upload streams from the disk, so none is computed.
    add_header("x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (!config_.session_token.empty())
      add_header("x-amz-security-token: " + config_.session_token);
    // (No "Expect:" to turn off "100 Continue": curl 7.88 signs the header it then leaves out.)
    if (upload != nullptr) add_header(std::string("Content-Type: ") + ContentType(target.key));
    char curl_error[CURL_ERROR_SIZE] = "";
    CURL* handle = curl.get();
    curl_easy_setopt(handle, CURLOPT_URL, address.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85 deprecated the bit mask for the string
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
    curl_easy_setopt(handle, CURLOPT_AWS_SIGV4, signing.c_str());
    curl_easy_setopt(handle, CURLOPT_USERNAME, config_.access_key_id.c_str());
    curl_easy_setopt(handle, CURLOPT_PASSWORD, config_.secret_access_key.c_str());
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    // A store that stops answering ends the run rather than hanging it: connecting, and any
    // stretch of timeout_s in which not one byte moves.
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, config_.timeout_s);
    curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, config_.timeout_s);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
    if (upload != nullptr) {
      curl_easy_setopt(handle, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(handle, CURLOPT_READDATA, upload);
      curl_easy_setopt(handle, CURLOPT_INFILESIZE_LARGE, upload_bytes);
    } else if (std::strcmp(method, "GET") != 0) {
      curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
    }
    const CURLcode code = curl_easy_perform(handle);
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    if (code != CURLE_OK) {
      throw ObjectStoreError(url, action, Redacted(TransferProblem(code, curl_error, sink)));
    }
    if (status < 200 || status >= 300) {
      throw ObjectStoreError(url, action, Redacted(StatusProblem(status, sink.error_body)));
    }
  }

  std::string TransferProblem(CURLcode code, const char* curl_error,
                              const ResponseSink& sink) const {
    const std::string detail = *curl_error != '\0' ? curl_error : curl_easy_strerror(code);
    switch (code) {
      case CURLE_WRITE_ERROR:
        if (sink.text_too_large) return "the listing is larger than 16 MB";
        return std::string("cannot write the local copy: ") + std::strerror(sink.write_errno);
      case CURLE_OPERATION_TIMEDOUT:
        return Printf("the store did not answer for %ld s (ADVISOR_S3_TIMEOUT_S): ",
                      config_.timeout_s) +
               detail;
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
        return "cannot reach the store at " + config_.endpoint + ": " + detail;
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
      case CURLE_SEND_ERROR:
      case CURLE_GOT_NOTHING:
        return "the connection broke off mid-transfer: " + detail;
      default:
        return detail;
    }
  }

  // S3's error "Code: Message (HTTP status)"; the rest of its XML (a SignatureDoesNotMatch
  // error echoes the request it signed) is left out.
  static std::string StatusProblem(long status, const std::string& body) {
    const std::string code = XmlText(body, "Code");
    std::string message = XmlText(body, "Message");
    if (message.size() > 200) message = message.substr(0, 200) + "...";
    std::string problem;
    if (!code.empty()) problem = code + (message.empty() ? "" : ": " + message) + " ";
    if (code.empty() && status == 404) problem = "no such object or bucket ";
    if (code.empty() && status == 403) problem = "access denied ";
    return problem + Printf("(HTTP %ld)", status);
  }

  // The line as printed: one line, and not one of the secrets in it, whatever the store echoed.
  std::string Redacted(const std::string& problem) const {
    std::string line = PrintableLine(problem);
    for (const std::string* secret :
         {&config_.secret_access_key, &config_.session_token, &config_.access_key_id}) {
      if (secret->empty()) continue;
      for (std::size_t at = line.find(*secret); at != std::string::npos;
           at = line.find(*secret, at)) {
        line.replace(at, secret->size(), "[redacted]");
      }
    }
    return line;
  }

  const S3Config config_;
};

}  // namespace

std::unique_ptr<ObjectStore> OpenS3Store(const EnvironmentLookup& environment) {
  return std::make_unique<S3Store>(ResolveS3Config(environment));
}

bool HasObjectStoreSupport() { return true; }

}  // namespace advisor
