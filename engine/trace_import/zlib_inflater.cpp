// zlib's inflater: the one a build without ISA-L has (gzip_members.h).
#include <zlib.h>

#include <cstring>

#include "engine/trace_import/gzip_members.h"
#include "engine/trace_import/trace_error.h"

namespace advisor {
namespace {

class ZlibInflater : public GzipMembers {
 public:
  ZlibInflater(std::string path, FileHandle file, std::uint64_t size)
      : GzipMembers(std::move(path), std::move(file), size) {
    std::memset(&zlib_, 0, sizeof zlib_);
    if (inflateInit2(&zlib_, 16 + MAX_WBITS) != Z_OK) {
      throw TraceError(this->path(), "cannot start the gzip inflater");
    }
  }
  ~ZlibInflater() override { inflateEnd(&zlib_); }
  ZlibInflater(const ZlibInflater&) = delete;
  ZlibInflater& operator=(const ZlibInflater&) = delete;

 private:
  void Feed(const char* data, std::size_t size) override {
    zlib_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    zlib_.avail_in = static_cast<uInt>(size);
  }
  std::size_t InputLeft() const override { return zlib_.avail_in; }
  void Restart() override {
    if (inflateReset(&zlib_) != Z_OK) throw TraceError(path(), "cannot restart the inflater");
  }
  Inflated Inflate(char* out, std::size_t capacity, std::size_t& written) override {
    zlib_.next_out = reinterpret_cast<Bytef*>(out);
    zlib_.avail_out = static_cast<uInt>(capacity);
    const int status = inflate(&zlib_, Z_NO_FLUSH);
    written += capacity - zlib_.avail_out;
    if (status == Z_STREAM_END) return Inflated::kMemberEnd;
    if (status == Z_OK || status == Z_BUF_ERROR) return Inflated::kMore;
    return Inflated::kCorrupt;
  }
  std::string Problem() const override { return zlib_.msg ? zlib_.msg : "inflate failed"; }

  z_stream zlib_;
};

}  // namespace

std::unique_ptr<GzipStream> OpenInflater(std::string path, FileHandle file, std::uint64_t size) {
  return std::make_unique<ZlibInflater>(std::move(path), std::move(file), size);
}

std::string InflaterName() { return std::string("zlib ") + zlibVersion(); }

}  // namespace advisor
