#include "engine/script/probe_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/json_input/json_document.h"
#include "engine/script/timeline_codec.h"

namespace advisor {
namespace {

// How often a quiet wait looks at the script.
constexpr auto kSlice = std::chrono::milliseconds(100);

}  // namespace

ProbeListener::ProbeListener() {
  sockaddr_un where{};
  where.sun_family = AF_UNIX;
  folder_.emplace("advisor-probe-");
  address_ = folder_->path() + "/probe.sock";
  if (address_.size() >= sizeof where.sun_path) {
    folder_.reset();
    folder_.emplace("advisor-probe-", "/tmp");
    address_ = folder_->path() + "/probe.sock";
  }
  if (address_.size() >= sizeof where.sun_path) {
    throw std::runtime_error("the probe's socket path is too long: " + address_ + " (set TMPDIR)");
  }
  std::memcpy(where.sun_path, address_.c_str(), address_.size() + 1);
  listening_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listening_ < 0 || bind(listening_, reinterpret_cast<sockaddr*>(&where), sizeof where) != 0 ||
      listen(listening_, 16) != 0) {
    throw std::runtime_error("cannot open the probe's socket " + address_ + ": " +
                             std::strerror(errno));
  }
}

ProbeListener::~ProbeListener() { Close(); }

void ProbeListener::Close() {
  if (listening_ >= 0) close(listening_);
  listening_ = -1;
}

ProbeChannel::Wait ProbeListener::Accept(std::chrono::milliseconds timeout,
                                         const std::function<bool()>& keep_waiting,
                                         std::unique_ptr<ProbeChannel>& channel) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return ProbeChannel::Wait::kTimedOut;
    const auto slice = std::min<std::chrono::steady_clock::duration>(kSlice, deadline - now);
    pollfd descriptor{listening_, POLLIN, 0};
    const int ready =
        poll(&descriptor, 1,
             static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::strerror(errno));
    if (ready > 0) {
      const int connection = accept4(listening_, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection >= 0) {
        channel = std::make_unique<ProbeChannel>(connection);
        return ProbeChannel::Wait::kMessage;
      }
      if (errno != EINTR && errno != ECONNABORTED) throw std::runtime_error(std::strerror(errno));
      continue;
    }
    if (!keep_waiting()) return ProbeChannel::Wait::kStopped;
  }
}

ProbeChannel::~ProbeChannel() {
  if (connection_ >= 0) close(connection_);
}

void ProbeChannel::Send(const nlohmann::json& command) {
  const std::string line = command.dump() + "\n";
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = send(connection_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the script's probe is gone (its channel closed)");
    sent += static_cast<std::size_t>(n);
  }
}

bool ProbeChannel::TakeLine(nlohmann::json& message) {
  // Only what arrived since the last look can hold the newline: a window of tens of MB comes in
  // many reads.
  const std::size_t newline = pending_.find('\n', scanned_);
  if (newline == std::string::npos) {
    scanned_ = pending_.size();
    CheckJsonSize("probe message", pending_.size(), kMaxMessageBytes);
    return false;
  }
  message = ParseJsonDocument(std::string_view(pending_).substr(0, newline), "probe message");
  pending_.erase(0, newline + 1);
  scanned_ = 0;
  JsonField(message, "probe message").ExpectObject();
  return true;
}

ProbeChannel::Wait ProbeChannel::Receive(std::chrono::milliseconds timeout,
                                         const std::function<bool()>& keep_waiting,
                                         nlohmann::json& message) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[1 << 16];
  while (true) {
    if (TakeLine(message)) return Wait::kMessage;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Wait::kTimedOut;
    const auto slice = std::min<std::chrono::steady_clock::duration>(kSlice, deadline - now);
    pollfd descriptor{connection_, POLLIN, 0};
    const int ready =
        poll(&descriptor, 1,
             static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::strerror(errno));
    if (ready > 0) {
      const ssize_t n = recv(connection_, buffer, sizeof buffer, 0);
      if (n == 0) return Wait::kClosed;
      if (n > 0) pending_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (!keep_waiting()) return Wait::kStopped;
  }
}

bool ProbeChannel::PeerClosed() const {
  pollfd descriptor{connection_, POLLRDHUP, 0};
  return poll(&descriptor, 1, 0) > 0 && (descriptor.revents & (POLLRDHUP | POLLHUP)) != 0;
}

}  // namespace advisor
