// ISA-L's inflater (Intel's Intelligent Storage Acceleration Library, Debian's libisal-dev): the
// one a build that found it has (gzip_members.h). It streams as zlib's does, with its state's 32
// KiB window and tables, and inflates about three times as fast.
#include <isa-l/igzip_lib.h>

#include <utility>

#include "engine/trace_import/gzip_members.h"

namespace advisor {
namespace {

class IsalInflater : public GzipMembers {
 public:
  IsalInflater(std::string path, FileHandle file, std::uint64_t size)
      : GzipMembers(std::move(path), std::move(file), size),
        state_(std::make_unique<inflate_state>()) {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;  // a gzip member's header and trailer, its CRC checked
  }

 private:
  void Feed(const char* data, std::size_t size) override {
    state_->next_in = reinterpret_cast<std::uint8_t*>(const_cast<char*>(data));
    state_->avail_in = static_cast<std::uint32_t>(size);
  }
  std::size_t InputLeft() const override { return state_->avail_in; }
  void Restart() override {
    isal_inflate_reset(state_.get());
    state_->crc_flag = ISAL_GZIP;
  }
  Inflated Inflate(char* out, std::size_t capacity, std::size_t& written) override {
    state_->next_out = reinterpret_cast<std::uint8_t*>(out);
    state_->avail_out = static_cast<std::uint32_t>(capacity);
    status_ = isal_inflate(state_.get());
    written += capacity - state_->avail_out;
    if (status_ < 0) return Inflated::kCorrupt;
    return state_->block_state == ISAL_BLOCK_FINISH ? Inflated::kMemberEnd : Inflated::kMore;
  }
  std::string Problem() const override {
    switch (status_) {
      case ISAL_INVALID_BLOCK:
        return "invalid block";
      case ISAL_INVALID_SYMBOL:
        return "invalid symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
      case ISAL_INVALID_WRAPPER:
        return "incorrect header check";
      case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
      default:
        return "inflate failed (ISA-L " + std::to_string(status_) + ")";
    }
  }

  std::unique_ptr<inflate_state> state_;
  int status_ = ISAL_DECOMP_OK;
};

}  // namespace

std::unique_ptr<GzipStream> OpenInflater(std::string path, FileHandle file, std::uint64_t size) {
  return std::make_unique<IsalInflater>(std::move(path), std::move(file), size);
}

std::string InflaterName() { return "ISA-L"; }

}  // namespace advisor
